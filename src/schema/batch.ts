import { batchCreate, createBatch, updateBatchStatus } from '../domain/batches.ts';
import { notFound } from '../domain/errors.ts';
import type { Batch as BatchRow } from '../generated/prisma/client.ts';
import { builder, type NodeRef } from './builder.ts';
import { BatchStatusEnum, RunOrderEnum } from './enums.ts';
import { typesFromSchema } from './json-schema-types.ts';
import { Run, RunFilterTypes, runsConnection } from './run.ts';
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
      resolve: (batch, args, context, info) => runsConnection({ batch }, args, context, info),
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
    resolve: async (_root, args, context) => {
      const batch = await createBatch(context, String(args.workflowId), BatchCreate.toStored(args.input));
      context.events.batchChanged(batch.id);
      return batch;
    },
  }),
  updateBatchStatus: t.field({
    type: Batch,
    description:
      'Pauses (PAUSED), resumes (PENDING) or cancels (CANCELLED) a batch (E9). Other moves are refused with CONFLICT.',
    args: { id: t.arg.id({ required: true }), status: t.arg({ type: BatchStatusEnum, required: true }) },
    resolve: async (_root, args, context) => {
      const batch = await updateBatchStatus(context, String(args.id), { status: args.status });
      context.events.batchChanged(batch.id);
      return batch;
    },
  }),
}));

const BatchProgress = builder.objectRef<BatchRow>('BatchProgress').implement({
  description: "A batch's progress: sent when subscribing, then on each change of status or stats.",
  fields: (t) => ({
    batchId: t.exposeID('id'),
    status: t.expose('status', { type: BatchStatusEnum }),
    stats: t.field({ type: BatchStats, resolve: (batch) => batch }),
    batch: t.field({ type: Batch, resolve: (batch) => batch }),
  }),
});

/** What a subscriber has seen: a state equal to it is not sent again. */
const progressKey = (batch: BatchRow) =>
  [batch.status, batch.pendingCount, batch.inProgressCount, batch.pausedCount, batch.finishedCount, batch.cancelledCount, batch.failedCount].join();

builder.subscriptionField('batchProgress', (t) =>
  t.field({
    type: BatchProgress,
    description:
      'The current state first, then one event for each change of status or stats, at most one per ~100 ms per ' +
      'batch; the last state is always delivered. Over graphql-ws and SSE at /graphql.',
    args: { batchId: t.arg.id({ required: true }) },
    subscribe: async function* (_root, args, context) {
      const batchId = String(args.batchId);
      // Tenancy is checked once, here: another organization's batch is not found.
      const current = await context.loaders.batch.load(batchId);
      if (!current) throw notFound('batch');
      // Watch before reading the first state, so no change between the two is missed.
      const changes = context.events.watch(batchId);
      try {
        const first = (await context.db.prisma.batch.findUnique({ where: { id: batchId } })) ?? current;
        let seen = progressKey(first);
        yield first;
        for await (const batch of changes) {
          const key = progressKey(batch);
          if (key === seen) continue;
          seen = key;
          // Each event is resolved afresh: what the previous one cached (its runs page) is stale now.
          for (const loader of Object.values(context.loaders)) loader.clearAll();
          yield batch;
        }
      } finally {
        await changes.return?.();
      }
    },
    resolve: (batch) => batch,
  }),
);
