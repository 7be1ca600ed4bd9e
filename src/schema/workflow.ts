import { newestVersionFirst, noCondition } from '../db/parts/child-orders.ts';
import {
  createWorkflow,
  publishWorkflowVersion,
  updateWorkflow,
  workflowCreate,
  workflowUpdate,
  workflowVersionCreate,
} from '../domain/workflows.ts';
import { builder, type NodeRef } from './builder.ts';
import { scopeOf } from './context.ts';
import { entityById } from './federation.ts';
import { typesFromSchema } from './json-schema-types.ts';
import { childConnection, modelConnection } from './pagination.ts';
import { sqlField } from './sql-fields.ts';
import { tenantNodeId } from './tenant-nodes.ts';

export const Workflow: NodeRef<'Workflow'> = builder.prismaNode('Workflow', {
  ...tenantNodeId,
  nullable: true,
  description:
    'The steps a run follows (its definition), versioned: batches run one version of it. REST: `/workflows/{id}`.',
  fields: (t) => ({
    name: t.exposeString('name', { description: 'Its name; not empty.' }),
    description: t.exposeString('description', { description: 'Free text; empty when none was given.' }),
    isActive: t.exposeBoolean('isActive', { description: 'The active flag (default true).' }),
    triggerType: t.exposeString('triggerType', { description: 'What starts it, free text (default `manual`).' }),
    version: t.exposeInt('version', { description: 'The latest version number, from 1.' }),
    definition: t.field({
      type: 'JSON',
      description: "The latest version's definition.",
      resolve: async (workflow, _args, context) =>
        (await context.loaders.workflowVersionByNumber.load(`${workflow.id}:${workflow.version}`))?.definition ?? {},
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it was created.' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime', description: 'When it last changed.' }),
    publishedAt: t.expose('publishedAt', {
      type: 'DateTime',
      nullable: true,
      description: 'When its latest version was published (version 1: when it was created).',
    }),
    versions: t.connection({
      type: WorkflowVersion,
      description: 'Every version, newest first (E8: `GET /workflows/{id}/versions`).',
      extensions: sqlField({
        children: () => ({
          table: 'WorkflowVersion',
          parent: 'workflowId',
          where: noCondition,
          orderBy: newestVersionFirst,
        }),
      }),
      resolve: (workflow, args, context) =>
        childConnection(args, context.loaders, {
          list: 'versionsOfWorkflow',
          parentId: workflow.id,
          orderBy: newestVersionFirst,
        }),
    }),
  }),
});

export const WorkflowVersion: NodeRef<'WorkflowVersion'> = builder.prismaNode('WorkflowVersion', {
  ...tenantNodeId,
  nullable: true,
  description: 'One published definition of a workflow; it never changes once published.',
  fields: (t) => ({
    version: t.exposeInt('version', { description: 'Its number: 1 for the first, then one more for each publish.' }),
    definition: t.expose('definition', {
      type: 'JSON',
      description: 'The definition published: a JSON object (its steps).',
    }),
    createdBy: t.exposeString('createdBy', { description: 'The id of the API key that published it.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it was published.' }),
    workflowId: t.exposeID('workflowId', { description: 'The id of its workflow.' }),
    workflow: t.field({
      type: Workflow,
      description: 'Its workflow.',
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
    description:
      "A workflow of the organization; null for an unknown id or another organization's (`GET /workflows/{id}`).",
    args: { id: t.arg.id({ required: true, description: 'Its id (`wf_…`).' }) },
    resolve: (_root, args, context) => context.loaders.workflow.load(String(args.id)),
  }),
  workflows: t.connection({
    type: Workflow,
    description: "The organization's workflows, newest first.",
    resolve: (_root, args, context) =>
      modelConnection(args, context.db.workflow, { orderBy: [{ createdAt: 'desc' }, { id: 'desc' }] }),
  }),
}));

builder.mutationFields((t) => ({
  createWorkflow: t.field({
    type: Workflow,
    description: 'Creates a workflow at version 1 with the given definition (`POST /workflows`).',
    args: {
      input: t.arg({ type: WorkflowCreate.input(), required: true, description: 'The workflow; `name` required.' }),
    },
    resolve: (_root, args, context) =>
      createWorkflow(scopeOf(context), WorkflowCreate.parse(context, args.input), context.outbound),
  }),
  updateWorkflow: t.field({
    type: Workflow,
    description: 'Changes name, description, trigger type or active flag; never creates a version (E5).',
    args: {
      id: t.arg.id({ required: true, description: 'The workflow (`wf_…`).' }),
      input: t.arg({
        type: WorkflowUpdate.input(),
        required: true,
        description: 'The members to change; those absent stay.',
      }),
    },
    resolve: (_root, args, context) =>
      updateWorkflow(scopeOf(context), String(args.id), WorkflowUpdate.parse(context, args.input)),
  }),
  publishWorkflowVersion: t.field({
    type: Workflow,
    description:
      'Publishes a new definition as version N+1 (`POST /workflows/{id}/versions`); batches created after it run it.',
    args: {
      workflowId: t.arg.id({ required: true, description: 'The workflow (`wf_…`).' }),
      input: t.arg({ type: WorkflowVersionCreate.input(), required: true, description: 'The new definition.' }),
    },
    resolve: (_root, args, context) =>
      publishWorkflowVersion(
        scopeOf(context),
        String(args.workflowId),
        WorkflowVersionCreate.parse(context, args.input),
        context.outbound,
      ),
  }),
}));

// A federation entity: other subgraphs may resolve it by id (federation.ts).
entityById(Workflow, 'workflow');
