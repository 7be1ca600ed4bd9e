import type { DefaultConnectionArguments } from '@pothos/plugin-relay';
import type { GraphQLResolveInfo } from 'graphql';
import { runsOfBatchBound } from '../db/parts/batch-first-run.ts';
import { noCondition } from '../db/parts/child-orders.ts';
import { countedRunsSql } from '../db/parts/counter-columns.ts';
import {
  RUN_ORDER_COLUMNS,
  type RunFilter,
  type RunSort,
  runFilter,
  runFilterSql,
  runOrderSql,
} from '../domain/runs.ts';
import { parseOrThrow } from '../domain/validation.ts';
import { Prisma, type Prospect as ProspectRow, type RunAttempt as RunAttemptRow } from '../generated/prisma/client.ts';
import { Batch } from './batch.ts';
import { builder, type NodeRef } from './builder.ts';
import { Consent } from './consent.ts';
import type { GraphQLContext } from './context.ts';
import { CallOutcomeEnum, RunOrderEnum, RunStatusEnum } from './enums.ts';
import { entityById } from './federation.ts';
import { typesFromSchema } from './json-schema-types.ts';
import { childConnection, offsetConnection } from './pagination.ts';
import { Prospect } from './prospect.ts';
import { type RunsParent, runListing } from './run-listing.ts';
import { connectionNodes, selectedColumns, selectedField } from './selection.ts';
import { type SqlChildList, sqlField } from './sql-fields.ts';
import { Workflow, WorkflowVersion } from './workflow.ts';

const RunFilterTypes = typesFromSchema(runFilter);

/** The `filter` argument, parsed: its problems are named under `filter`. */
const filterOf = (args: { filter?: unknown }): RunFilter =>
  parseOrThrow(runFilter, RunFilterTypes.toStored(args.filter) ?? {}, ['filter']);

interface RunListArgs extends DefaultConnectionArguments {
  filter?: unknown;
  orderBy?: RunSort | null;
}

/** What each Run and Prospect field reads besides a column of its own name (selection.ts). */
const runFieldReads = {
  nextAttemptAt: ['status'],
  callAttempts: ['id'],
  workflowName: ['workflowId'],
  batchName: ['batchId'],
  workflow: ['workflowId'],
  workflowVersion: ['workflowVersionId'],
  batch: ['batchId'],
  prospect: ['prospectId'],
};
const prospectFieldReads = { tags: [], runs: [] };

/** A page of the runs under a workflow or a batch, filtered and sorted as the runs listing (GET /workflows/{workflow_id}/runs) lists them (run-listing.ts). */
async function runsConnection(
  parent: RunsParent,
  args: RunListArgs,
  context: GraphQLContext,
  info: GraphQLResolveInfo,
) {
  const filter = filterOf(args);
  const listing = await runListing(parent, filter, args.orderBy ?? undefined, context.loaders);
  if (!listing)
    return offsetConnection(
      args,
      async () => [],
      async () => 0,
    );
  const { list, parentId, where, orderBy } = listing;
  // The page reads the columns the query selects, and each run's prospect in the same statement if it is selected.
  const nodes = connectionNodes(info);
  const runColumns = selectedColumns(nodes, Prisma.RunScalarFieldEnum, runFieldReads);
  const columns = runColumns && [...new Set([...runColumns, ...RUN_ORDER_COLUMNS])];
  const prospect = selectedField(nodes, 'prospect');
  const embeds = prospect
    ? { prospect: selectedColumns(prospect, Prisma.ProspectScalarFieldEnum, prospectFieldReads) }
    : {};
  return offsetConnection(
    args,
    (page) => context.loaders.pages.load({ list, parentId, where, orderBy, columns, embeds, ...page }) as never,
    listing.count,
  );
}

/**
 * A batch's or a workflow's runs as PostgreSQL writes them (sql-fields.ts),
 * listed as runListing lists them: a total by status alone read from the
 * batch counters (the workflow's batches' summed; index
 * "Batch_workflowId_createdAt_id_idx"). Null for a filter that is refused or
 * names a batch: the resolver answers those.
 */
function runsSql(parent: 'batchId' | 'workflowId', args: RunListArgs): SqlChildList | null {
  let filter: RunFilter;
  try {
    filter = filterOf(args);
  } catch {
    return null;
  }
  if (filter.batch_id !== undefined) return null;
  const byCounters = Object.entries(filter).every(([name, value]) => value === undefined || name === 'status');
  const counted = (row: string) =>
    parent === 'batchId'
      ? `(${countedRunsSql(row, filter.status)})`
      : `(SELECT coalesce(sum(${countedRunsSql('b', filter.status)}), 0) FROM "Batch" AS b
          WHERE b."workflowId" = ${row}.id AND b."organizationId" = ${row}."organizationId")`;
  return {
    table: 'Run',
    parent,
    where: runFilterSql(filter),
    orderBy: runOrderSql(args.orderBy ?? undefined),
    count: byCounters ? (row) => Prisma.raw(counted(row)) : undefined,
    // A deep page does not read the months before the batch's (batch-first-run.ts).
    pruning: parent === 'batchId' ? (row) => runsOfBatchBound('c', row) : undefined,
  };
}

export const RunAttempt = builder.objectRef<RunAttemptRow>('RunAttempt').implement({
  description: 'One call attempt of a run: open (no outcome) while the call is in flight.',
  fields: (t) => ({
    number: t.exposeInt('number', { description: '1, 2, … within the run.' }),
    stepId: t.exposeString('stepId', { description: 'The call step it was made for.' }),
    startedAt: t.expose('startedAt', { type: 'DateTime', description: 'When the call was placed.' }),
    endedAt: t.expose('endedAt', {
      type: 'DateTime',
      nullable: true,
      description: 'When it ended; null while in flight.',
    }),
    outcome: t.expose('outcome', {
      type: CallOutcomeEnum,
      nullable: true,
      description: 'How it ended; null while in flight.',
    }),
    reason: t.exposeString('reason', {
      nullable: true,
      description:
        'Why it ended so: `precall_webhook`, `lost` (its instance died), `interrupted` (its instance stopped), a SIP status, …',
    }),
    fromNumber: t.exposeString('fromNumber', { nullable: true, description: 'The caller id (E.164).' }),
    toNumber: t.exposeString('toNumber', { description: "The prospect's number dialled (E.164)." }),
    durationSeconds: t.exposeFloat('durationSeconds', {
      nullable: true,
      description: 'How long the call lasted, in seconds.',
    }),
    dynamicVariables: t.expose('dynamicVariables', {
      type: 'JSON',
      nullable: true,
      description: "The `variables` the agent's pre-call webhook answered, handed to the dialer.",
    }),
    roomName: t.exposeString('roomName', {
      nullable: true,
      description: "The call's LiveKit room (DIALER=livekit); null otherwise.",
    }),
    reportedOutcome: t.expose('reportedOutcome', {
      type: CallOutcomeEnum,
      nullable: true,
      description: 'The outcome the agent worker reported (`reportCallOutcome`); null when it reported none.',
    }),
    consent: t.field({
      type: Consent,
      nullable: true,
      description:
        "The prospect's consent in force when the call was placed (evidence for a dispute); null when none was live.",
      resolve: (attempt, _args, context) =>
        attempt.consentId ? context.loaders.consent.load(attempt.consentId) : null,
    }),
  }),
});

export const Run: NodeRef<'Run'> = builder.prismaNode('Run', {
  // The key is (id, organizationId) (a partitioned table's, docs/scaling.md): a node's id is the run's.
  id: { resolve: (run) => run.id },
  findUnique: (id, context) => ({ id_organizationId: { id, organizationId: context.viewer.organizationId } }),
  nullable: true,
  description:
    "One prospect's way through a batch's workflow version, step by step, with its call attempts. " +
    'REST: an item of E6, and `GET /runs/{id}`.',
  fields: (t) => ({
    status: t.expose('status', { type: RunStatusEnum, description: 'Where it is in its lifecycle.' }),
    currentStepId: t.exposeString('currentStepId', { nullable: true, description: 'The step the run is at.' }),
    startedAt: t.expose('startedAt', {
      type: 'DateTime',
      nullable: true,
      description: 'When it first moved to IN_PROGRESS; null while not started.',
    }),
    endedAt: t.expose('endedAt', {
      type: 'DateTime',
      nullable: true,
      description: 'When it ended (FINISHED, CANCELLED or FAILED); null until then.',
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it was created, with its batch.' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime', description: 'When it last changed.' }),
    workflowId: t.exposeID('workflowId', { description: 'The id of its workflow (`wf_…`).' }),
    workflowVersionId: t.exposeID('workflowVersionId', {
      description: 'The id of the workflow version it follows (`wfv_…`).',
    }),
    batchId: t.exposeID('batchId', { description: 'The id of its batch (`bat_…`).' }),
    prospectId: t.exposeID('prospectId', { description: 'The id of the prospect it calls (`prs_…`).' }),
    attempts: t.exposeInt('attempts', { description: 'Call attempts made.' }),
    lastOutcome: t.expose('lastOutcome', {
      type: CallOutcomeEnum,
      nullable: true,
      description: 'How the latest attempt ended.',
    }),
    nextAttemptAt: t.field({
      type: 'DateTime',
      nullable: true,
      description:
        'While PENDING or PAUSED: the earliest the next attempt may start (a retry delay, a calling window).',
      extensions: sqlField({
        value: (row) => `CASE WHEN ${row}.status IN ('PENDING', 'PAUSED') THEN ${row}."nextAttemptAt" END`,
      }),
      resolve: (run) => (run.status === 'PENDING' || run.status === 'PAUSED' ? run.nextAttemptAt : null),
    }),
    error: t.exposeString('error', { nullable: true, description: 'Why the run failed.' }),
    reason: t.exposeString('reason', {
      nullable: true,
      description: 'Why the run ended without a call: `invalid_number`, `do_not_call`, `precall_skip`.',
    }),
    callAttempts: t.field({
      type: [RunAttempt],
      description: 'Its call attempts, oldest first.',
      resolve: (run, _args, context) => context.loaders.attemptsOfRun.load(run.id),
    }),
    workflowName: t.string({
      description: "Its workflow's name (E6's `workflow_name`).",
      resolve: async (run, _args, context) => (await context.loaders.workflow.load(run.workflowId))!.name,
    }),
    batchName: t.string({
      description: "Its batch's name (E6's `batch_name`).",
      resolve: async (run, _args, context) => (await context.loaders.batch.load(run.batchId))!.name,
    }),
    workflow: t.field({
      type: Workflow,
      description: 'Its workflow.',
      resolve: async (run, _args, context) => (await context.loaders.workflow.load(run.workflowId))!,
    }),
    workflowVersion: t.field({
      type: WorkflowVersion,
      description: 'The workflow version it follows.',
      resolve: async (run, _args, context) => (await context.loaders.workflowVersion.load(run.workflowVersionId))!,
    }),
    batch: t.field({
      type: Batch,
      description: 'Its batch.',
      resolve: async (run, _args, context) => (await context.loaders.batch.load(run.batchId))!,
    }),
    prospect: t.field({
      type: Prospect,
      description: 'The prospect it calls.',
      extensions: sqlField({ row: { table: 'Prospect', column: 'prospectId' } }),
      // A page of runs may carry each run's prospect (loaders.ts, `embeds`).
      // Answered without a promise when embedded: a page holds up to 100 runs, a dashboard 1,000.
      resolve: (run, _args, context) =>
        (run as { prospect?: ProspectRow }).prospect ??
        (context.loaders.prospect.load(run.prospectId) as Promise<ProspectRow>),
    }),
  }),
});

/** The filter and order of every list of runs (the runs listing's): the root `runs` and the lists below. */
const runFilterArgs = builder.args((t) => ({
  filter: t.field({ type: RunFilterTypes.input(), required: false, description: 'Conditions every run listed meets.' }),
  orderBy: t.field({ type: RunOrderEnum, required: false, description: 'The order (default `STARTED_DESC`).' }),
}));

builder.queryFields((t) => ({
  run: t.field({
    type: Run,
    nullable: true,
    description: 'A run by id, with its attempts (`GET /runs/{run_id}`). Null when it is not the caller’s.',
    args: { id: t.arg.id({ required: true, description: 'Its id (`run_…`).' }) },
    resolve: (_root, args, context) => context.db.run.findFirst({ where: { id: String(args.id) } }),
  }),
  runs: t.connection({
    type: Run,
    description: "A workflow's runs, filtered and sorted (E6). Null when the workflow is not the caller's.",
    nullable: true,
    args: { workflowId: t.arg.id({ required: true, description: 'The workflow (`wf_…`).' }), ...runFilterArgs },
    resolve: async (_root, args, context, info) => {
      const workflowId = String(args.workflowId);
      // Checked first: a malformed filter is refused even for a workflow that is not the caller's.
      filterOf(args);
      if (!(await context.loaders.workflow.load(workflowId))) return null;
      return runsConnection({ workflowId }, args, context, info);
    },
  }),
}));

// The run lists of the types a run points at are declared here, beside Run: a type's file imports only
// the types it points at, so the schema's modules form no cycle (`npm run lint:layers`).
builder.prismaObjectField(Batch, 'runs', (t) =>
  t.connection({
    type: Run,
    description: 'Its runs, filtered and sorted as E6 lists them.',
    args: runFilterArgs,
    extensions: sqlField({ children: (args) => runsSql('batchId', args as RunListArgs) }),
    resolve: (batch, args, context, info) => runsConnection({ batch }, args, context, info),
  }),
);

builder.prismaObjectField(Workflow, 'runs', (t) =>
  t.connection({
    type: Run,
    description: 'The runs of all its batches, filtered and sorted as E6 lists them (the root `runs` is E6 itself).',
    args: runFilterArgs,
    extensions: sqlField({ children: (args) => runsSql('workflowId', args as RunListArgs) }),
    resolve: (workflow, args, context, info) => runsConnection({ workflowId: workflow.id }, args, context, info),
  }),
);

builder.prismaObjectField(Prospect, 'runs', (t) =>
  t.connection({
    type: Run,
    description: "The prospect's runs, most recently started first.",
    extensions: sqlField({
      children: () => ({ table: 'Run', parent: 'prospectId', where: noCondition, orderBy: runOrderSql() }),
    }),
    resolve: (prospect, args, context) =>
      childConnection(args, context.loaders, { list: 'runsOfProspect', parentId: prospect.id, orderBy: runOrderSql() }),
  }),
);

// A federation entity: other subgraphs may resolve it by id (federation.ts).
entityById(Run, 'run');
