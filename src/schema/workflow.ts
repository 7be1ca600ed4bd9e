import { createWorkflow, publishWorkflowVersion, updateWorkflow, workflowCreate, workflowUpdate, workflowVersionCreate } from '../domain/workflows.ts';
import { Prisma } from '../generated/prisma/client.ts';
// Types reference each other (workflow <-> batch <-> run); refs are only read
// inside field thunks, after every module has loaded.
import { Batch } from './batch.ts';
import { builder, type NodeRef } from './builder.ts';
import { RunOrderEnum } from './enums.ts';
import { typesFromSchema } from './json-schema-types.ts';
import { offsetConnection } from './pagination.ts';
import { Run, RunFilterTypes, runsConnection } from './run.ts';

const noCondition = { sql: Prisma.empty, key: '' };
const newestVersionFirst = { sql: Prisma.raw('c.version DESC'), key: 'version_desc' };
const newestBatchFirst = { sql: Prisma.raw('c."createdAt" DESC, c.id DESC'), key: 'created_desc' };

export const Workflow: NodeRef<'Workflow'> = builder.prismaNode('Workflow', {
  id: { field: 'id' },
  nullable: true,
  fields: (t) => ({
    name: t.exposeString('name'),
    description: t.exposeString('description'),
    isActive: t.exposeBoolean('isActive'),
    triggerType: t.exposeString('triggerType'),
    version: t.exposeInt('version', { description: 'The latest version number.' }),
    definition: t.field({
      type: 'JSON',
      description: "The latest version's definition.",
      resolve: async (workflow, _args, context) =>
        (await context.loaders.workflowVersionByNumber.load(`${workflow.id}:${workflow.version}`))?.definition ?? {},
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    publishedAt: t.expose('publishedAt', { type: 'DateTime', nullable: true }),
    versions: t.connection({
      type: WorkflowVersion,
      description: 'Every version, newest first.',
      resolve: (workflow, args, context) =>
        offsetConnection(
          args,
          (page) =>
            context.loaders.pages.load({
              list: 'versionsOfWorkflow',
              parentId: workflow.id,
              where: noCondition,
              orderBy: newestVersionFirst,
              ...page,
            }) as never,
          () => context.loaders.counts.load({ list: 'versionsOfWorkflow', parentId: workflow.id, where: noCondition }),
        ),
    }),
    batches: t.connection({
      type: Batch,
      description: 'Batches, newest first.',
      resolve: (workflow, args, context) =>
        offsetConnection(
          args,
          (page) =>
            context.loaders.pages.load({
              list: 'batchesOfWorkflow',
              parentId: workflow.id,
              where: noCondition,
              orderBy: newestBatchFirst,
              ...page,
            }) as never,
          () => context.loaders.counts.load({ list: 'batchesOfWorkflow', parentId: workflow.id, where: noCondition }),
        ),
    }),
    runs: t.connection({
      type: Run,
      args: {
        filter: t.arg({ type: RunFilterTypes.input(), required: false }),
        orderBy: t.arg({ type: RunOrderEnum, required: false }),
      },
      resolve: (workflow, args, context, info) => runsConnection({ workflowId: workflow.id }, args, context, info),
    }),
  }),
});

export const WorkflowVersion: NodeRef<'WorkflowVersion'> = builder.prismaNode('WorkflowVersion', {
  id: { field: 'id' },
  nullable: true,
  fields: (t) => ({
    version: t.exposeInt('version'),
    definition: t.expose('definition', { type: 'JSON' }),
    createdBy: t.exposeString('createdBy', { description: 'The id of the API key that published it.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    workflowId: t.exposeID('workflowId'),
    workflow: t.field({
      type: Workflow,
      resolve: async (version, _args, context) => (await context.loaders.workflow.load(version.workflowId))!,
    }),
  }),
});

const WorkflowCreate = typesFromSchema(workflowCreate);
const WorkflowUpdate = typesFromSchema(workflowUpdate);
const WorkflowVersionCreate = typesFromSchema(workflowVersionCreate);

builder.queryFields((t) => ({
  workflow: t.field({
    type: Workflow,
    nullable: true,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, context) => context.loaders.workflow.load(String(args.id)),
  }),
  workflows: t.connection({
    type: Workflow,
    description: 'The organization\'s workflows, newest first.',
    resolve: (_root, args, context) =>
      offsetConnection(
        args,
        ({ offset, limit }) =>
          context.prisma.workflow.findMany({ orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], skip: offset, take: limit }),
        () => context.prisma.workflow.count(),
      ),
  }),
}));

builder.mutationFields((t) => ({
  createWorkflow: t.field({
    type: Workflow,
    description: 'Creates a workflow at version 1 with the given definition.',
    args: { input: t.arg({ type: WorkflowCreate.input(), required: true }) },
    resolve: (_root, args, context) => createWorkflow(context, WorkflowCreate.toStored(args.input)),
  }),
  updateWorkflow: t.field({
    type: Workflow,
    description: 'Changes name, description, trigger type or active flag; never creates a version (E5).',
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: WorkflowUpdate.input(), required: true }) },
    resolve: (_root, args, context) => updateWorkflow(context, String(args.id), WorkflowUpdate.toStored(args.input)),
  }),
  publishWorkflowVersion: t.field({
    type: Workflow,
    description: 'Publishes a new definition as version N+1.',
    args: {
      workflowId: t.arg.id({ required: true }),
      input: t.arg({ type: WorkflowVersionCreate.input(), required: true }),
    },
    resolve: (_root, args, context) =>
      publishWorkflowVersion(context, String(args.workflowId), WorkflowVersionCreate.toStored(args.input)),
  }),
}));
