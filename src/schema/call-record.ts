// Call records (src/domain/call-records.ts): what was said and decided on a
// call, reported by its agent worker, read on its attempt and its run.
import { callRecordFilter, callRecordSearch } from '../domain/call-record-search.ts';
import { callRecordReport, reportCallRecord } from '../domain/call-records.ts';
import { callTransferRequest, transferCall } from '../domain/call-transfers.ts';
import {
  agentLatency,
  callDetection,
  callDisposition,
  callTransfer,
  evaluationResult,
  transcriptTurn,
} from '../records/call-records.ts';
import { builder, type NodeRef } from './builder.ts';
import { scopeOf } from './context.ts';
import { typesFromSchema } from './json-schema-types.ts';
import { offsetConnection } from './pagination.ts';
import { parseOnce } from './parsed-input.ts';
import { Run, RunAttempt } from './run.ts';
import { sqlField } from './sql-fields.ts';
import { tenantNodeId } from './tenant-nodes.ts';

const Turn = typesFromSchema(transcriptTurn);
const Detection = typesFromSchema(callDetection);
const Disposition = typesFromSchema(callDisposition);
const Latency = typesFromSchema(agentLatency);
const Evaluated = typesFromSchema(evaluationResult);
const Transfer = typesFromSchema(callTransfer);
const Report = typesFromSchema(callRecordReport);
const TransferRequest = typesFromSchema(callTransferRequest);

// JSON columns read as the typed objects they hold (wire names: the generated types' fields map them).
const object = (value: unknown) => value as Record<string, unknown> | null;
const objects = (value: unknown) => value as Record<string, unknown>[];

const CallRecord: NodeRef<'CallRecord'> = builder.prismaNode('CallRecord', {
  ...tenantNodeId,
  nullable: true,
  description:
    'What was said and decided on one call attempt, as its agent worker reported it (REST: `call_attempts[i].record` of `GET /runs/{run_id}`, `GET /call-records`).',
  fields: (t) => ({
    runId: t.exposeID('runId', { description: 'Its run (`run_…`).' }),
    attemptNumber: t.exposeInt('attemptNumber', { description: 'Its attempt: 1 for the first.' }),
    agentId: t.exposeID('agentId', { description: 'The agent that spoke (`agt_…`).' }),
    batchId: t.exposeID('batchId', { description: 'Its batch (`bat_…`).' }),
    transcript: t.field({
      type: [Turn.output()],
      description: 'The conversation, turn by turn, in order.',
      resolve: (row) => objects(row.transcript),
    }),
    detection: t.field({
      type: Detection.output(),
      nullable: true,
      description: Detection.description,
      extensions: sqlField({ json: 'detection' }),
      resolve: (row) => object(row.detection),
    }),
    summary: t.exposeString('summary', { nullable: true, description: 'What the call was about.' }),
    disposition: t.field({
      type: Disposition.output(),
      nullable: true,
      description: Disposition.description,
      extensions: sqlField({ json: 'disposition' }),
      resolve: (row) => object(row.disposition),
    }),
    data: t.expose('data', { type: 'JSON', nullable: true, description: 'What the agent extracted: free JSON.' }),
    sentiment: t.exposeFloat('sentiment', {
      nullable: true,
      description: "The callee's sentiment, -1 to 1.",
      extensions: sqlField({ float: (row) => `${row}.sentiment` }),
    }),
    endedBy: t.exposeString('endedBy', { nullable: true, description: 'Who hung up: `agent`, `callee`, `system`.' }),
    recordingUrl: t.exposeString('recordingUrl', { nullable: true, description: "The call's recording (https)." }),
    latency: t.field({
      type: Latency.output(),
      nullable: true,
      description: Latency.description,
      extensions: sqlField({ json: 'latency' }),
      resolve: (row) => object(row.latency),
    }),
    callbackAt: t.expose('callbackAt', {
      type: 'DateTime',
      nullable: true,
      description: 'When the callee asked to be called back.',
    }),
    evaluations: t.field({
      type: [Evaluated.output()],
      description: "How the call did on its agent's evaluations.",
      resolve: (row) => objects(row.evaluations),
    }),
    transfer: t.field({
      type: Transfer.output(),
      nullable: true,
      description: Transfer.description,
      extensions: sqlField({ json: 'transfer' }),
      resolve: (row) => object(row.transfer),
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When its first part was reported.' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime', description: 'When a part last changed it.' }),
  }),
});

builder.objectField(RunAttempt, 'record', (t) =>
  t.field({
    type: CallRecord,
    nullable: true,
    description: 'What its agent worker reported of the call; null when it reported nothing.',
    resolve: (attempt, _args, context) => context.loaders.recordOfAttempt.load(attempt.id),
  }),
);

builder.prismaObjectField(Run, 'lastRecord', (t) =>
  t.field({
    type: CallRecord,
    nullable: true,
    description: 'The record of its latest attempt that has one.',
    // As lastRecordOfRun reads it, on "CallRecord_runId_idx".
    extensions: sqlField({
      first: { table: 'CallRecord', parent: 'runId', orderBy: (record) => `${record}."attemptNumber" DESC` },
    }),
    resolve: (run, _args, context) => context.loaders.lastRecordOfRun.load(run.id),
  }),
);

builder.queryFields((t) => ({
  callRecords: t.connection({
    type: CallRecord,
    description:
      "The organization's call records that every argument given keeps. With `search`, the newest 1,000 matches " +
      'come first, best match first, then the older matches newest first (`totalCount` counts them all); without ' +
      'it, newest first (REST: `GET /call-records`). BAD_INPUT names an argument out of its bounds.',
    args: {
      search: t.arg.string({
        description:
          "Words said or summarized, in the organization's `transcriptLanguage` (stemmed: `booking` finds " +
          '`booked`), as a web search engine reads them: `"a phrase"`, `or`, `-word`.',
      }),
      agentId: t.arg.id({ description: 'Records of this agent (`agt_…`).' }),
      batchId: t.arg.id({ description: 'Records of this batch (`bat_…`).' }),
      disposition: t.arg.string({ description: "Records whose disposition's label is exactly this." }),
      category: t.arg.string({
        description: "Records whose disposition's category is this: `success`, `neutral`, `issue`.",
      }),
      detection: t.arg.string({
        description:
          'Records whose detection found this: `human`, `voicemail`, `ivr`, `call_screening`, `unavailable`.',
      }),
      from: t.arg.string({ description: 'Records made at or after this instant (RFC 3339).' }),
      to: t.arg.string({ description: 'Records made before this instant (RFC 3339).' }),
    },
    resolve: (_root, args, context) => {
      const filter = parseOnce(context, callRecordFilter, () => ({
        search: args.search ?? undefined,
        agent_id: args.agentId == null ? undefined : String(args.agentId),
        batch_id: args.batchId == null ? undefined : String(args.batchId),
        disposition: args.disposition ?? undefined,
        category: args.category ?? undefined,
        detection: args.detection ?? undefined,
        from: args.from ?? undefined,
        to: args.to ?? undefined,
      }));
      const found = callRecordSearch(context.sql, context.viewer.organizationId, filter);
      return offsetConnection(args, found.page, found.count);
    },
  }),
}));

builder.mutationFields((t) => ({
  reportCallRecord: t.field({
    type: CallRecord,
    description:
      'The agent worker reports a part of the record of its call, during the call or after it: members given add to or ' +
      'replace what was reported before; the same part twice changes nothing. NOT_FOUND for an unknown run or attempt ' +
      '(REST: `POST /runs/{run_id}/attempts/{attempt}/record`).',
    args: {
      runId: t.arg.id({ required: true, description: 'The run (`run_…`): `run_id` of the dispatch metadata.' }),
      attempt: t.arg.int({ required: true, description: 'The attempt number: `attempt` of the dispatch metadata.' }),
      input: t.arg({ type: Report.input(), required: true, description: 'The part of the record.' }),
    },
    resolve: (_root, args, context) =>
      reportCallRecord(
        scopeOf(context),
        { sql: context.primarySql, write: context.audit! },
        String(args.runId),
        args.attempt,
        Report.parse(context, args.input),
      ),
  }),
  transferCall: t.field({
    type: CallRecord,
    description:
      "Hands the attempt's call to a person while it is in flight (a cold transfer: the agent leaves), through LiveKit's SIP " +
      'transfer (simulated without LiveKit); answers the record with the transfer. CONFLICT when the attempt is not in a ' +
      'call; BAD_GATEWAY when LiveKit refused (the failed transfer is recorded). REST: `POST /runs/{run_id}/attempts/{attempt}/transfer`.',
    args: {
      runId: t.arg.id({ required: true, description: 'The run (`run_…`).' }),
      attempt: t.arg.int({ required: true, description: 'The attempt number.' }),
      input: t.arg({ type: TransferRequest.input(), required: true, description: 'Where to hand the call.' }),
    },
    resolve: (_root, args, context) =>
      transferCall(
        scopeOf(context),
        context.transfers,
        String(args.runId),
        args.attempt,
        TransferRequest.parse(context, args.input),
      ),
  }),
}));
