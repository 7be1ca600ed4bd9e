// A call record reported by the agent worker (POST /runs/{run_id}/attempts/
// {attempt}/record, GraphQL `reportCallRecord`), in parts, during the call and
// after it: a part adds or replaces members, turns are kept by who spoke and
// when (a later part never loses one; the same part twice changes nothing),
// evaluations by their id. While the call is in flight, a machine's
// `detection` (and the `outcome` member, as the outcome route) decides how the
// attempt ends; after it, a part changes the record only.
import { z } from 'zod';
import { callRecordOfAttempt } from '../db/sql/call-record-of-attempt.ts';
import { callRecordTarget } from '../db/sql/call-record-target.ts';
import { type CallRecordColumns, writeCallRecord } from '../db/sql/write-call-record.ts';
import type { Tx } from '../db/tx.ts';
import type { CallRecord } from '../generated/prisma/client.ts';
import {
  agentLatency,
  CALL_RECORD_BOUNDS,
  callDetection,
  callDisposition,
  endedByValues,
  evaluationResult,
  type TranscriptTurn,
  transcriptTurn,
} from '../records/call-records.ts';
import { callOutcomes, machineOutcomes } from '../records/campaign-settings.ts';
import { jsonValue } from '../records/values.ts';
import { callBackAfterCall } from './call-backs.ts';
import { appendRevocations } from './consents.ts';
import { badInput, notFound } from './errors.ts';
import { MAX_CALLBACK_DAYS } from './limits.ts';
import { maskPii } from './pii.ts';
import type { Scope } from './scope.ts';
import { Outbox } from './webhook-events.ts';

const https = z
  .url({ protocol: /^https$/, hostname: z.regexes.domain })
  .max(CALL_RECORD_BOUNDS.url)
  .meta({ description: 'an https address' });

export const callRecordReport = z
  .strictObject({
    transcript: z.array(transcriptTurn).max(CALL_RECORD_BOUNDS.turns).optional().meta({
      description: 'turns said, in order; a turn reported again (same role and started_ms) replaces the first',
    }),
    detection: callDetection.optional(),
    summary: z.string().max(CALL_RECORD_BOUNDS.summary).optional().meta({ description: 'what the call was about' }),
    disposition: callDisposition.optional(),
    data: jsonValue()
      .refine((data) => Buffer.byteLength(JSON.stringify(data) ?? '') <= CALL_RECORD_BOUNDS.dataBytes, {
        message: `must be at most ${CALL_RECORD_BOUNDS.dataBytes} bytes as JSON`,
      })
      .optional()
      .meta({ description: 'what the agent extracted (a booked slot, an answer): free JSON' }),
    sentiment: z.number().min(-1).max(1).optional().meta({ description: "the callee's sentiment, -1 to 1" }),
    ended_by: z.enum(endedByValues).optional().meta({ description: 'who hung up' }),
    recording_url: https.optional().meta({ description: "the call's recording (https)" }),
    latency: agentLatency.optional(),
    callback_at: z.iso
      .datetime({ offset: true })
      .optional()
      .meta({ description: 'RFC 3339: when the callee asked to be called back (within 14 days)' }),
    evaluations: z
      .array(evaluationResult)
      .max(CALL_RECORD_BOUNDS.evaluations)
      .optional()
      .meta({ description: "scores on the agent's evaluations; one reported again replaces the first" }),
    outcome: z.enum(callOutcomes).optional().meta({
      description: 'how the call ends, while it is in flight (as POST …/outcome); ignored once it has ended',
    }),
    consent_revoked: z.boolean().optional().meta({
      description:
        "true: the callee asked not to be called again: the prospect's consent of the batch's consent_scope (every scope it has entries in when the batch names none) is revoked, a revocation entry appended (docs/consent.md)",
    }),
  })
  .meta({
    id: 'CallRecordReport',
    description: 'A part of the record of a call: members given add to or replace what was reported before.',
  });
export type CallRecordReport = z.output<typeof callRecordReport>;

type Stored = Omit<
  CallRecordColumns,
  'organizationId' | 'attemptId' | 'runId' | 'attemptNumber' | 'batchId' | 'agentId'
>;

const DAY_MS = 86_400_000;

const turnKey = (turn: TranscriptTurn) => `${turn.role} ${turn.started_ms}`;

/** Items of `before` and `after` by key, a later one in place of an earlier, ordered by `order`. */
function mergedBy<T>(before: T[], after: T[], key: (item: T) => string, order?: (a: T, b: T) => number): T[] {
  const items = new Map(before.map((item) => [key(item), item]));
  for (const item of after) items.set(key(item), item);
  const merged = [...items.values()];
  return order ? merged.sort(order) : merged;
}

/** What the record holds once `report` is added to `before`. */
function merge(before: Stored, report: CallRecordReport, mask: (text: string) => string): Stored {
  const transcript = report.transcript?.map((turn) => ({ ...turn, text: mask(turn.text) }));
  return {
    transcript: transcript
      ? mergedBy(before.transcript as TranscriptTurn[], transcript, turnKey, (a, b) => a.started_ms - b.started_ms)
      : before.transcript,
    detection: report.detection ?? before.detection,
    summary: report.summary === undefined ? before.summary : mask(report.summary),
    disposition: report.disposition ?? before.disposition,
    data: report.data === undefined ? before.data : report.data,
    sentiment: report.sentiment ?? before.sentiment,
    endedBy: report.ended_by ?? before.endedBy,
    recordingUrl: report.recording_url ?? before.recordingUrl,
    latency: report.latency ?? before.latency,
    callbackAt: report.callback_at ? new Date(report.callback_at) : before.callbackAt,
    evaluations: report.evaluations
      ? mergedBy(before.evaluations as { evaluation_id: number }[], report.evaluations, (item) =>
          String(item.evaluation_id),
        )
      : before.evaluations,
    transfer: before.transfer,
  };
}

const empty: Stored = {
  transcript: [],
  detection: null,
  summary: null,
  disposition: null,
  data: null,
  sentiment: null,
  endedBy: null,
  recordingUrl: null,
  latency: null,
  callbackAt: null,
  evaluations: [],
  transfer: null,
};

/** The members of a record's row the merge reads. */
const storedOf = (row: CallRecord | null): Stored =>
  row
    ? {
        transcript: row.transcript as unknown[],
        detection: row.detection as Stored['detection'],
        summary: row.summary,
        disposition: row.disposition as Stored['disposition'],
        data: row.data,
        sentiment: row.sentiment,
        endedBy: row.endedBy,
        recordingUrl: row.recordingUrl,
        latency: row.latency,
        callbackAt: row.callbackAt,
        evaluations: row.evaluations as unknown[],
        transfer: row.transfer,
      }
    : empty;

const sameRecord = (a: Stored, b: Stored) =>
  JSON.stringify({ ...a, callbackAt: a.callbackAt?.getTime() }) ===
  JSON.stringify({ ...b, callbackAt: b.callbackAt?.getTime() });

/** Evaluations named by the report that are not its agent's: a 400 naming each. */
async function checkEvaluations(tx: Tx<Scope['prisma']>, agentId: string, report: CallRecordReport) {
  const named = report.evaluations ?? [];
  if (named.length === 0) return;
  const own = new Set(
    (
      await tx.evaluation.findMany({
        where: { agentId, id: { in: named.map((item) => item.evaluation_id) } },
        select: { id: true },
      })
    ).map((row) => row.id),
  );
  const problems = named.flatMap((item, index) =>
    own.has(item.evaluation_id)
      ? []
      : [
          {
            path: `evaluations.${index}.evaluation_id`,
            rule: 'reference',
            message: `evaluation ${item.evaluation_id} is not one of agent ${agentId}'s`,
          },
        ],
  );
  if (problems.length > 0) throw badInput(problems);
}

/** "Stop calling me" on attempt `attemptNumber` of run `runId`: its batch's consent scope is revoked (consents.ts). */
async function revokeAfterCall(
  tx: Tx<Scope['prisma']>,
  organizationId: string,
  runId: string,
  attemptNumber: number,
  now: Date,
) {
  const run = await tx.run.findFirst({
    where: { id: runId },
    select: { prospectId: true, batch: { select: { consentScope: true } } },
  });
  if (!run) return;
  const scopes = run.batch.consentScope
    ? [run.batch.consentScope]
    : (
        await tx.consent.findMany({
          where: { prospectId: run.prospectId },
          distinct: ['scope'],
          select: { scope: true },
        })
      ).map((entry) => entry.scope);
  const how = { source: 'call_record', evidence: `the callee asked on ${runId} attempt ${attemptNumber}` };
  await appendRevocations(tx, organizationId, run.prospectId, scopes, how, now);
}

/**
 * Adds a part to attempt `attemptNumber`'s record of the caller's run `runId`,
 * in one transaction with the attempt held; answers the record. NOT_FOUND for
 * another organization's run; BAD_INPUT for turns past the bound or an
 * evaluation of another agent.
 */
export async function reportCallRecord(
  scope: Scope,
  runId: string,
  attemptNumber: number,
  report: CallRecordReport,
): Promise<CallRecord> {
  const organizationId = scope.viewer.organizationId;
  return scope.prisma.$transaction(async (tx) => {
    const target = await callRecordTarget(tx, organizationId, runId, attemptNumber);
    if (!target) throw notFound('call attempt');
    const { agentId } = target;
    await checkEvaluations(tx, agentId, report);
    const existing = await callRecordOfAttempt(tx, target.attemptId);
    const before = storedOf(existing);
    const after = merge(before, report, target.redactPii ? maskPii : (text) => text);
    if (after.transcript.length > CALL_RECORD_BOUNDS.turns)
      throw badInput([
        {
          path: 'transcript',
          rule: 'max_items',
          message: `would hold ${after.transcript.length} turns: a record holds at most ${CALL_RECORD_BOUNDS.turns}`,
        },
      ]);
    const now = new Date();
    if (after.callbackAt && after.callbackAt.getTime() > now.getTime() + MAX_CALLBACK_DAYS * DAY_MS)
      throw badInput([
        { path: 'callback_at', rule: 'max', message: `must be at most ${MAX_CALLBACK_DAYS} days ahead` },
      ]);
    const inFlight = target.endedAt === null;
    // In flight: what answered decides how the attempt ends (src/db/sql/close-attempts.ts).
    const reported =
      report.outcome ??
      (report.detection && (machineOutcomes as readonly string[]).includes(report.detection.result)
        ? (report.detection.result as (typeof machineOutcomes)[number])
        : undefined);
    if (inFlight && reported)
      await tx.runAttempt.updateMany({ where: { id: target.attemptId, runId }, data: { reportedOutcome: reported } });
    if (report.consent_revoked) await revokeAfterCall(tx, organizationId, runId, attemptNumber, now);
    if (existing && sameRecord(before, after)) return existing;
    const written = await writeCallRecord(
      tx,
      {
        organizationId,
        attemptId: target.attemptId,
        runId,
        attemptNumber,
        batchId: target.batchId,
        agentId,
        ...after,
      },
      target.transcriptLanguage,
      now,
    );
    // During the call, the attempt's end grants the call-back (src/engine/run-attempts.ts); after it, this part does.
    const askedAgain = after.callbackAt && after.callbackAt.getTime() !== before.callbackAt?.getTime();
    if (!inFlight && askedAgain)
      await callBackAfterCall(
        tx,
        organizationId,
        { runId, batchId: target.batchId, stepId: target.stepId },
        after.callbackAt!,
        now,
      );
    // After the call, each part that changes the record sends it whole (during it, the attempt's end does).
    if (!inFlight)
      await new Outbox()
        .add('call.record.completed', organizationId, { kind: 'record', runId, number: attemptNumber })
        .write(tx, now);
    return written;
  });
}
