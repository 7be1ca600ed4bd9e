import type { DefaultConnectionArguments } from '@pothos/plugin-relay';
import { type RunSort, runFilter, runFilterSql, runOrderSql } from '../domain/runs.ts';
import type { GraphQLContext } from './context.ts';
import { Batch } from './batch.ts';
import { builder, type NodeRef } from './builder.ts';
import { RunOrderEnum, RunStatusEnum } from './enums.ts';
import { typesFromSchema } from './json-schema-types.ts';
import { offsetConnection } from './pagination.ts';
import { Prospect } from './prospect.ts';
import { Workflow, WorkflowVersion } from './workflow.ts';

export const RunFilterTypes = typesFromSchema(runFilter);

interface RunListArgs extends DefaultConnectionArguments {
  filter?: unknown;
  orderBy?: RunSort | null;
}

/** A page of the runs under a workflow or a batch, filtered and sorted as E6 lists them. */
export function runsConnection(list: 'runsOfWorkflow' | 'runsOfBatch', parentId: string, args: RunListArgs, context: GraphQLContext) {
  const where = runFilterSql(RunFilterTypes.toStored(args.filter));
  const orderBy = runOrderSql(args.orderBy ?? undefined);
  return offsetConnection(
    args,
    (page) => context.loaders.pages.load({ list, parentId, where, orderBy, ...page }) as never,
    () => context.loaders.counts.load({ list, parentId, where }),
  );
}

export const Run: NodeRef<'Run'> = builder.prismaNode('Run', {
  id: { field: 'id' },
  nullable: true,
  fields: (t) => ({
    status: t.expose('status', { type: RunStatusEnum }),
    currentStepId: t.exposeString('currentStepId', { nullable: true, description: 'The step the run is at.' }),
    startedAt: t.expose('startedAt', { type: 'DateTime', nullable: true }),
    endedAt: t.expose('endedAt', { type: 'DateTime', nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    workflowId: t.exposeID('workflowId'),
    workflowVersionId: t.exposeID('workflowVersionId'),
    batchId: t.exposeID('batchId'),
    prospectId: t.exposeID('prospectId'),
    workflowName: t.string({
      resolve: async (run, _args, context) => (await context.loaders.workflow.load(run.workflowId))!.name,
    }),
    batchName: t.string({
      resolve: async (run, _args, context) => (await context.loaders.batch.load(run.batchId))!.name,
    }),
    workflow: t.field({
      type: Workflow,
      resolve: async (run, _args, context) => (await context.loaders.workflow.load(run.workflowId))!,
    }),
    workflowVersion: t.field({
      type: WorkflowVersion,
      resolve: async (run, _args, context) => (await context.loaders.workflowVersion.load(run.workflowVersionId))!,
    }),
    batch: t.field({
      type: Batch,
      resolve: async (run, _args, context) => (await context.loaders.batch.load(run.batchId))!,
    }),
    prospect: t.field({
      type: Prospect,
      resolve: async (run, _args, context) => (await context.loaders.prospect.load(run.prospectId))!,
    }),
  }),
});

builder.queryFields((t) => ({
  runs: t.connection({
    type: Run,
    description: "A workflow's runs, filtered and sorted (E6). Null when the workflow is not the caller's.",
    nullable: true,
    args: {
      workflowId: t.arg.id({ required: true }),
      filter: t.arg({ type: RunFilterTypes.input(), required: false }),
      orderBy: t.arg({ type: RunOrderEnum, required: false }),
    },
    resolve: async (_root, args, context) => {
      const workflowId = String(args.workflowId);
      // Checked first: a malformed filter is refused even for a workflow that is not the caller's.
      runFilterSql(RunFilterTypes.toStored(args.filter));
      if (!(await context.loaders.workflow.load(workflowId))) return null;
      return runsConnection('runsOfWorkflow', workflowId, args, context);
    },
  }),
}));
