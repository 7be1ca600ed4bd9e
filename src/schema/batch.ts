import { newestFirst, noCondition } from '../db/parts/child-orders.ts';
import { countedRunsSql, counterColumn } from '../db/parts/counter-columns.ts';
import { rowKey } from '../db/tenant.ts';
import { batchSettingsUpdate, settingsOf } from '../domain/batch-settings.ts';
import {
  batchCreate,
  batchStatusUpdate,
  createBatch,
  retryFailedRuns,
  updateBatchSettings,
  updateBatchStatus,
} from '../domain/batches.ts';
import { describeWindowWait, windowState } from '../domain/calling-window.ts';
import { badInput, notFound } from '../domain/errors.ts';
import type { Batch as BatchRow } from '../generated/prisma/client.ts';
import { autoPause, callingWindow, callOutcomes, retryPolicy } from '../records/campaign-settings.ts';
import { camelCase } from '../records/names.ts';
import { builder, type NodeRef } from './builder.ts';
import { type GraphQLContext, scopeOf } from './context.ts';
import { BatchStatusEnum } from './enums.ts';
import { entityById } from './federation.ts';
import { typesFromSchema } from './json-schema-types.ts';
import type { IntervalCounts, TimelineWindow } from './loaders.ts';
import { childConnection, modelConnection } from './pagination.ts';
import { parseOnce } from './parsed-input.ts';
import { sqlField } from './sql-fields.ts';
import { tenantNodeId } from './tenant-nodes.ts';
import { Workflow, WorkflowVersion } from './workflow.ts';

const counterColumns = Object.entries(counterColumn);

const BatchStats = builder.objectRef<BatchRow>('BatchStats').implement({
  description: "How many of the batch's runs are in each status; always equal to the runs themselves.",
  fields: (t) => ({
    ...Object.fromEntries(
      counterColumns.map(([status, column]) => [column, t.exposeInt(column, { description: `Runs ${status}.` })]),
    ),
    totalCount: t.int({
      description: 'Every run: the sum of the counts above, equal to `totalProspects`.',
      extensions: sqlField({ value: (row) => countedRunsSql(row) }),
      resolve: (batch) => counterColumns.reduce((sum, [, column]) => sum + batch[column], 0),
    }),
  }),
});

const CallingWindowType = typesFromSchema(callingWindow);
const RetryPolicyType = typesFromSchema(retryPolicy);
const AutoPauseType = typesFromSchema(autoPause);

type OutcomeCounts = Record<(typeof callOutcomes)[number] | 'attempts', number>;
/** Counts of no attempt. */
const noOutcomes = () => Object.fromEntries([...callOutcomes, 'attempts'].map((name) => [name, 0])) as OutcomeCounts;
type Types = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never;

/** `attempts` and one count per outcome, camelCased (`noAnswer`). */
const outcomeCountFields = (
  t: PothosSchemaTypes.ObjectFieldBuilder<Types, OutcomeCounts>,
  attempts: string,
  ended: (outcome: string) => string,
) => ({
  attempts: t.exposeInt('attempts', { description: attempts }),
  ...Object.fromEntries(
    callOutcomes.map((outcome) => [camelCase(outcome), t.exposeInt(outcome, { description: ended(outcome) })]),
  ),
});

const BatchOutcomes = builder.objectRef<OutcomeCounts>('BatchOutcomes').implement({
  description: "How the batch's call attempts ended so far (attempts still in flight count in `attempts` only).",
  fields: (t) => outcomeCountFields(t, 'Call attempts started.', (outcome) => `Attempts that ended \`${outcome}\`.`),
});

type AttemptsIntervalShape = OutcomeCounts & { start: Date; end: Date };

const AttemptsInterval = builder.objectRef<AttemptsIntervalShape>('AttemptsInterval').implement({
  description:
    'The call attempts of a batch that started in one interval of time, by how they ended (those in flight count in `attempts` only).',
  fields: (t) => ({
    start: t.expose('start', { type: 'DateTime', description: 'When the interval starts (included).' }),
    end: t.expose('end', { type: 'DateTime', description: 'When it ends (excluded).' }),
    ...outcomeCountFields(
      t as never,
      'Attempts started in the interval.',
      (outcome) => `Of those, attempts that ended \`${outcome}\`.`,
    ),
  }),
});

const TIMELINE_MAX_MINUTES = 7 * 24 * 60;
const TIMELINE_MAX_INTERVALS = 1440;

/** The window of `minutes` ending with the interval that holds now, in intervals of `intervalMinutes`. */
function timelineWindow(minutes: number, intervalMinutes: number, now: Date): TimelineWindow {
  const problems = [
    ...(minutes < 1 || minutes > TIMELINE_MAX_MINUTES
      ? [
          {
            path: 'minutes',
            rule: `1 to ${TIMELINE_MAX_MINUTES}`,
            message: `must be between 1 and ${TIMELINE_MAX_MINUTES}`,
          },
        ]
      : []),
    ...(intervalMinutes < 1 || minutes / intervalMinutes > TIMELINE_MAX_INTERVALS
      ? [
          {
            path: 'intervalMinutes',
            rule: `1 to ${TIMELINE_MAX_INTERVALS} intervals`,
            message: `must be at least 1 and give at most ${TIMELINE_MAX_INTERVALS} intervals`,
          },
        ]
      : []),
  ];
  if (problems.length > 0) throw badInput(problems);
  const intervalMs = intervalMinutes * 60_000;
  // Aligned on whole intervals, so every batch of a request (and the next poll) shares the window.
  const to = new Date((Math.floor(now.getTime() / intervalMs) + 1) * intervalMs);
  return { to, intervalMs, intervals: Math.ceil(minutes / intervalMinutes) };
}

/** Every interval of the window, those without attempts at zero. */
function timelineOf(window: TimelineWindow, counted: IntervalCounts[]): AttemptsIntervalShape[] {
  const found = new Map(counted.map(({ interval, ...counts }) => [interval, counts]));
  const from = window.to.getTime() - window.intervalMs * window.intervals;
  return Array.from({ length: window.intervals }, (_, interval) => ({
    start: new Date(from + interval * window.intervalMs),
    end: new Date(from + (interval + 1) * window.intervalMs),
    ...(found.get(interval) ?? noOutcomes()),
  }));
}

export const Batch: NodeRef<'Batch'> = builder.prismaNode('Batch', {
  ...tenantNodeId,
  nullable: true,
  description:
    'A campaign: one run per prospect of one workflow version, with its calling window, pacing, retry policy and ' +
    'circuit breaker. REST: `/batches/{id}` (E4 creates it, E9 sets its status).',
  fields: (t) => ({
    name: t.exposeString('name', { description: "Its name (default: the workflow's name and the creation time)." }),
    organizationId: t.exposeID('organizationId', { description: 'The id of its organization (`org_…`).' }),
    workflowId: t.exposeID('workflowId', { description: 'The id of its workflow (`wf_…`).' }),
    workflowVersionId: t.exposeID('workflowVersionId', {
      description:
        "The id of the workflow version its runs follow (`wfv_…`): the workflow's latest when the batch was created.",
    }),
    workflowVersionNumber: t.int({
      description: 'The number of that version.',
      resolve: async (batch, _args, context) =>
        (await context.loaders.workflowVersion.load(batch.workflowVersionId))!.version,
    }),
    sourceType: t.exposeString('sourceType', { description: '`prospect_ids`, `prospect_list` or `mixed`.' }),
    createdBy: t.exposeString('createdBy', { description: 'The id of the API key that created it.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it was created.' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime', description: 'When it last changed.' }),
    scheduledAt: t.expose('scheduledAt', {
      type: 'DateTime',
      nullable: true,
      description: 'Before this instant none of its runs starts; null: they may start at once.',
    }),
    status: t.expose('status', { type: BatchStatusEnum, description: 'Where it is in its lifecycle.' }),
    totalProspects: t.exposeInt('totalProspects', { description: 'How many prospects it calls, one run each.' }),
    stats: t.field({
      type: BatchStats,
      description: "Its runs by status (SPEC.md's `stats`).",
      extensions: sqlField({ sameRow: true }),
      resolve: (batch) => batch,
    }),
    callingWindow: t.field({
      type: CallingWindowType.output(),
      nullable: true,
      description: CallingWindowType.description,
      resolve: (batch) => settingsOf(batch).callingWindow,
    }),
    maxConcurrency: t.exposeInt('maxConcurrency', {
      nullable: true,
      description: 'Runs of the batch in progress at once, over every instance; null: unbounded.',
    }),
    callsPerSecond: t.exposeFloat('callsPerSecond', {
      nullable: true,
      description: 'Attempts started per second, over every instance; null: unpaced.',
    }),
    retry: t.field({
      type: RetryPolicyType.output(),
      description: RetryPolicyType.description,
      resolve: (batch) => settingsOf(batch).retry,
    }),
    autoPause: t.field({
      type: AutoPauseType.output(),
      nullable: true,
      description: AutoPauseType.description,
      resolve: (batch) => settingsOf(batch).autoPause,
    }),
    requireConsent: t.exposeBoolean('requireConsent', {
      nullable: true,
      description:
        "Whether its calls are placed only with a live consent of `consentScope` (docs/consent.md); null: the organization's setting.",
    }),
    consentScope: t.exposeString('consentScope', {
      nullable: true,
      description: 'The consent scope its calls need ("renewals"); null: a consent of any scope.',
    }),
    pausedReason: t.exposeString('pausedReason', {
      nullable: true,
      description:
        'Why the service paused the batch (`auto_pause: 31 of 50 attempts failed`); null when a client paused it, or it runs.',
    }),
    windowState: t.string({
      nullable: true,
      description:
        'While the calling window (in its own timezone) is closed: when it opens ("waiting for 09:00 America/Chicago"); null when open or unset.',
      resolve: (batch) => {
        const window = settingsOf(batch).callingWindow;
        if (!window) return null;
        const now = new Date();
        const state = windowState(window, window.timezone, now);
        return state.open ? null : describeWindowWait(state.opensAt, window.timezone, now);
      },
    }),
    outcomes: t.field({
      type: BatchOutcomes,
      description: "The batch's call attempts by outcome.",
      resolve: async (batch, _args, context) => {
        const counts = noOutcomes();
        for (const { outcome, count } of await context.loaders.outcomesOfBatch.load(batch.id)) {
          counts.attempts += count;
          if (outcome) counts[outcome as keyof OutcomeCounts] = count;
        }
        return counts;
      },
    }),
    attemptsTimeline: t.field({
      type: [AttemptsInterval],
      description:
        'Its call attempts over the last `minutes`, by the interval they started in, oldest first; the last interval holds now. ' +
        'Attempts per minute and outcomes over time, for charts.',
      args: {
        minutes: t.arg.int({
          required: false,
          defaultValue: 60,
          description: `How far back, in minutes: 1 to ${TIMELINE_MAX_MINUTES} (default 60).`,
        }),
        intervalMinutes: t.arg.int({
          required: false,
          defaultValue: 1,
          description: `The length of one interval, in minutes (default 1): at most ${TIMELINE_MAX_INTERVALS} intervals.`,
        }),
      },
      resolve: async (batch, args, context) => {
        const window = timelineWindow(args.minutes ?? 60, args.intervalMinutes ?? 1, new Date());
        return timelineOf(window, await context.loaders.attemptsTimeline.load({ batchId: batch.id, window }));
      },
    }),
    workflow: t.field({
      type: Workflow,
      description: 'Its workflow.',
      resolve: async (batch, _args, context) => (await context.loaders.workflow.load(batch.workflowId))!,
    }),
    workflowVersion: t.field({
      type: WorkflowVersion,
      description: 'The workflow version its runs follow.',
      resolve: async (batch, _args, context) => (await context.loaders.workflowVersion.load(batch.workflowVersionId))!,
    }),
  }),
});

const BatchCreate = typesFromSchema(batchCreate);
const BatchSettingsUpdate = typesFromSchema(batchSettingsUpdate);

builder.queryFields((t) => ({
  batch: t.field({
    type: Batch,
    nullable: true,
    description: "A batch of the organization; null for an unknown id or another organization's (`GET /batches/{id}`).",
    args: { id: t.arg.id({ required: true, description: 'Its id (`bat_…`).' }) },
    resolve: (_root, args, context) => context.loaders.batch.load(String(args.id)),
  }),
  batches: t.connection({
    type: Batch,
    description: "The organization's batches, newest first, of one workflow or in one status when given.",
    args: {
      workflowId: t.arg.id({ required: false, description: 'Only the batches of this workflow (`wf_…`).' }),
      status: t.arg({ type: BatchStatusEnum, required: false, description: 'Only the batches in this status.' }),
    },
    resolve: (_root, args, context) => {
      const where = {
        ...(args.workflowId ? { workflowId: String(args.workflowId) } : {}),
        ...(args.status ? { status: args.status } : {}),
      };
      return modelConnection(args, context.db.batch, { where, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }] });
    },
  }),
}));

/** A batch mutation's answer, once its subscribers are told the batch changed. */
async function announced(context: GraphQLContext, change: Promise<BatchRow>) {
  const batch = await change;
  context.events.batchChanged(batch.id);
  return batch;
}

builder.mutationFields((t) => ({
  createBatch: t.field({
    type: Batch,
    description:
      "Creates a batch of the workflow's latest version with one run per prospect (E4), all of it or nothing.",
    args: {
      workflowId: t.arg.id({ required: true, description: 'The workflow (`wf_…`); an inactive one is a CONFLICT.' }),
      input: t.arg({
        type: BatchCreate.input(),
        required: true,
        description: 'Whom to call, and the campaign settings.',
      }),
    },
    resolve: (_root, args, context) =>
      announced(
        context,
        createBatch(scopeOf(context), String(args.workflowId), BatchCreate.parse(context, args.input)),
      ),
  }),
  updateBatchStatus: t.field({
    type: Batch,
    description:
      'Pauses (PAUSED), resumes (PENDING) or cancels (CANCELLED) a batch (E9). Other moves are refused with CONFLICT.',
    args: {
      id: t.arg.id({ required: true, description: 'The batch (`bat_…`).' }),
      status: t.arg({
        type: BatchStatusEnum,
        required: true,
        description: 'PAUSED, PENDING (resume) or CANCELLED; another is BAD_INPUT. The current status changes nothing.',
      }),
    },
    resolve: (_root, args, context) =>
      announced(
        context,
        updateBatchStatus(
          scopeOf(context),
          String(args.id),
          parseOnce(context, batchStatusUpdate, () => ({ status: args.status })),
        ),
      ),
  }),
  updateBatchSettings: t.field({
    type: Batch,
    description:
      "Changes a live batch's calling window, pacing, retry policy or circuit breaker " +
      '(`PATCH /batches/{id}/settings`). Runs waiting for the old window or delay are due as the new settings say.',
    args: {
      id: t.arg.id({ required: true, description: 'The batch (`bat_…`).' }),
      input: t.arg({
        type: BatchSettingsUpdate.input(),
        required: true,
        description: 'The settings to change: members absent stay, `null` removes a setting.',
      }),
    },
    resolve: (_root, args, context) =>
      announced(
        context,
        updateBatchSettings(scopeOf(context), String(args.id), BatchSettingsUpdate.parse(context, args.input)),
      ),
  }),
  retryFailedRuns: t.field({
    type: Batch,
    description:
      "Gives the batch's FAILED runs one more attempt each; a finished batch runs again " +
      '(`POST /batches/{id}/retry-failed`). CONFLICT on a cancelled batch.',
    args: { id: t.arg.id({ required: true, description: 'The batch (`bat_…`).' }) },
    resolve: (_root, args, context) => announced(context, retryFailedRuns(scopeOf(context), String(args.id))),
  }),
}));

const BatchProgress = builder.objectRef<BatchRow>('BatchProgress').implement({
  description: "A batch's progress: sent when subscribing, then on each change of status or stats.",
  fields: (t) => ({
    batchId: t.exposeID('id', { description: "The batch's id (`bat_…`)." }),
    status: t.expose('status', { type: BatchStatusEnum, description: 'Its status at this event.' }),
    stats: t.field({ type: BatchStats, description: 'Its runs by status at this event.', resolve: (batch) => batch }),
    batch: t.field({ type: Batch, description: 'The batch, read afresh for this event.', resolve: (batch) => batch }),
  }),
});

/** What a subscriber has seen: a state equal to it is not sent again. */
const progressKey = (batch: BatchRow) =>
  [batch.status, batch.pausedReason, ...counterColumns.map(([, column]) => batch[column])].join();
/** Each row's key, made once: the hub hands the same row to every subscriber of the batch on this instance. */
const progressKeys = new WeakMap<BatchRow, string>();
const progressKeyOf = (batch: BatchRow) => {
  let key = progressKeys.get(batch);
  if (key === undefined) {
    key = progressKey(batch);
    progressKeys.set(batch, key);
  }
  return key;
};

/**
 * A subscriber's progress: the current state, then each state unlike the last
 * one sent. An iterator of its own rather than an async generator: each change
 * passes through it once per subscriber (thousands), and a generator's resume
 * and yield cost more promises than this one await.
 */
function progressOf(context: GraphQLContext, batchId: string): AsyncIterableIterator<BatchRow> {
  // Watch before reading the first state, so no change between the two is missed.
  const changes = context.events.watch(batchId);
  let seen: string | undefined;
  let stopped = false;
  const stop = async () => {
    stopped = true;
    await changes.return?.();
    return { value: undefined, done: true } as const;
  };
  return {
    async next() {
      // Stopped, even before its first state was read: nothing more, as from a generator.
      if (stopped) return { value: undefined, done: true };
      try {
        if (seen === undefined) {
          // Through the organization's client: another organization's batch is not found (and nothing the
          // watcher reads reaches this subscriber before this check passed).
          const first = await context.db.batch.findUnique({ where: rowKey(context.viewer.organizationId, batchId) });
          if (!first) throw notFound('batch');
          seen = progressKey(first);
          return { value: first, done: false };
        }
        for (;;) {
          const change = await changes.next();
          if (change.done) return change;
          const key = progressKeyOf(change.value);
          if (key === seen) continue;
          seen = key;
          // Each event is resolved afresh: what the previous one cached (its runs page) is stale now.
          for (const loader of Object.values(context.loaders)) loader.clearAll();
          return change;
        }
      } catch (error) {
        await stop();
        throw error;
      }
    },
    return: stop,
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}

builder.subscriptionField('batchProgress', (t) =>
  t.field({
    type: BatchProgress,
    description:
      'The current state first, then one event for each change of status or stats, at most one per ~100 ms per ' +
      'batch; the last state is always delivered. Over graphql-ws and SSE at /graphql.',
    args: {
      batchId: t.arg.id({
        required: true,
        description: "The batch to watch (`bat_…`); another organization's is NOT_FOUND.",
      }),
    },
    subscribe: (_root, args, context) => progressOf(context, String(args.batchId)),
    resolve: (batch) => batch,
  }),
);

// Declared beside Batch, so that workflow.ts need not import this file (no import cycle).
builder.prismaObjectField(Workflow, 'batches', (t) =>
  t.connection({
    type: Batch,
    description: 'Its batches, newest first (E7: `GET /workflows/{id}/batches`).',
    extensions: sqlField({
      children: () => ({ table: 'Batch', parent: 'workflowId', where: noCondition, orderBy: newestFirst }),
    }),
    resolve: (workflow, args, context) =>
      childConnection(args, context.loaders, {
        list: 'batchesOfWorkflow',
        parentId: workflow.id,
        orderBy: newestFirst,
      }),
  }),
);

// A federation entity: other subgraphs may resolve it by id (federation.ts).
entityById(Batch, 'batch');
