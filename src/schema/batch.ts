import { batchCreate, createBatch, updateBatchStatus } from '../domain/batches.ts';
import { runFilterSql, runOrderSql } from '../domain/runs.ts';
import type { Batch as BatchRow } from '../generated/prisma/client.ts';
import { builder, type NodeRef } from './builder.ts';
import { BatchStatusEnum, RunOrderEnum } from './enums.ts';
import { typesFromSchema } from './json-schema-types.ts';
import { offsetConnection } from './pagination.ts';
import { Run, RunFilterTypes } from './run.ts';
import { Workflow, WorkflowVersion } from './workflow.ts';

export const BatchStats = builder.objectRef<BatchRow>('BatchStats').implement({
  description: "How many of the batch's runs are in each status; always equal to the runs themselves.",
  fields: (t) => ({
    pendingCount: t.exposeInt('pendingCount'),
    inProgressCount: t.exposeInt('inProgressCount'),
    pausedCount: t.exposeInt('pausedCount'),
    finishedCount: t.exposeInt('finishedCount'),
    cancelledCount: t.exposeInt('cancelledCount'),
    failedCount: t.exposeInt('failedCount'),
    totalCount: t.int({
      resolve: (batch) =>
        batch.pendingCount +
        batch.inProgressCount +
        batch.pausedCount +
        batch.finishedCount +
        batch.cancelledCount +
        batch.failedCount,
    }),
  }),
});

export const Batch: NodeRef<'Batch'> = builder.prismaNode('Batch', {
  id: { field: 'id' },
  nullable: true,
  fields: (t) => ({
    name: t.exposeString('name'),
    organizationId: t.exposeID('organizationId'),
    workflowId: t.exposeID('workflowId'),
    workflowVersionId: t.exposeID('workflowVersionId'),
    workflowVersionNumber: t.int({
      resolve: async (batch, _args, context) =>
        (await context.loaders.workflowVersion.load(batch.workflowVersionId))!.version,
    }),
    sourceType: t.exposeString('sourceType', { description: '`prospect_ids`, `prospect_list` or `mixed`.' }),
    createdBy: t.exposeString('createdBy', { description: 'The id of the API key that created it.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    scheduledAt: t.expose('scheduledAt', { type: 'DateTime', nullable: true }),
    status: t.expose('status', { type: BatchStatusEnum }),
    totalProspects: t.exposeInt('totalProspects'),
    stats: t.field({ type: BatchStats, resolve: (batch) => batch }),
    workflow: t.field({
      type: Workflow,
      resolve: async (batch, _args, context) => (await context.loaders.workflow.load(batch.workflowId))!,
    }),
    workflowVersion: t.field({
      type: WorkflowVersion,
      resolve: async (batch, _args, context) => (await context.loaders.workflowVersion.load(batch.workflowVersionId))!,
    }),
    runs: t.connection({
      type: Run,
      args: {
        filter: t.arg({ type: RunFilterTypes.input(), required: false }),
        orderBy: t.arg({ type: RunOrderEnum, required: false }),
      },
      resolve: (batch, args, context) => {
        const where = runFilterSql(RunFilterTypes.toStored(args.filter));
        const orderBy = runOrderSql(args.orderBy ?? undefined);
        return offsetConnection(
          args,
          (page) => context.loaders.pages.load({ list: 'runsOfBatch', parentId: batch.id, where, orderBy, ...page }) as never,
          () => context.loaders.counts.load({ list: 'runsOfBatch', parentId: batch.id, where }),
        );
      },
    }),
  }),
});

const BatchCreate = typesFromSchema(batchCreate);

builder.queryFields((t) => ({
  batch: t.field({
    type: Batch,
    nullable: true,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, context) => context.loaders.batch.load(String(args.id)),
  }),
}));

builder.mutationFields((t) => ({
  createBatch: t.field({
    type: Batch,
    description:
      "Creates a batch of the workflow's latest version with one run per prospect (E4), all of it or nothing.",
    args: { workflowId: t.arg.id({ required: true }), input: t.arg({ type: BatchCreate.input(), required: true }) },
    resolve: (_root, args, context) => createBatch(context, String(args.workflowId), BatchCreate.toStored(args.input)),
  }),
  updateBatchStatus: t.field({
    type: Batch,
    description:
      'Pauses (PAUSED), resumes (PENDING) or cancels (CANCELLED) a batch (E9). Other moves are refused with CONFLICT.',
    args: { id: t.arg.id({ required: true }), status: t.arg({ type: BatchStatusEnum, required: true }) },
    resolve: (_root, args, context) => updateBatchStatus(context, String(args.id), { status: args.status }),
  }),
}));
