// A call record reported by the agent worker (POST /runs/{run_id}/attempts/
// {attempt}/record, GraphQL `reportCallRecord`), in parts, during the call and
// after it: a part adds or replaces members, turns are kept by who spoke and
// when (a later part never loses one; the same part twice changes nothing),
// evaluations by their id. While the call is in flight, a machine's
// `detection` (and the `outcome` member, as the outcome route) decides how the
// attempt ends; after it, a part changes the record only.
import { z } from 'zod';
import type { SqlQueryable } from '../db/database.ts';
import { callRecordOfAttempt } from '../db/sql/call-record-of-attempt.ts';
import { callRecordTarget } from '../db/sql/call-record-target.ts';
import {
  type AuditRow,
  type CallRecordPart,
  REPORTED_RECORD,
  type ReportedCallRecord,
  reportCallRecord as writeReport,
} from '../db/sql/report-call-record.ts';
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
import { type AuditedWrite, recordWrite } from './audit-log.ts';
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

const DAY_MS = 86_400_000;

const turnKey = (turn: TranscriptTurn) => `${turn.role} ${turn.started_ms}`;

/** `items` one per key, a later one in place of an earlier (where the first was). */
function oncePerKey<T>(items: T[], key: (item: T) => string): T[] {
  const kept = new Map<string, T>();
  for (const item of items) kept.set(key(item), item);
  return [...kept.values()];
}

/** The turns with their personal data masked; null when none held any (the statement then takes them as said). */
function maskedTurns(turns: TranscriptTurn[]): TranscriptTurn[] | null {
  let masked: TranscriptTurn[] | null = null;
  for (let index = 0; index < turns.length; index++) {
    const turn = turns[index]!;
    const text = maskPii(turn.text);
    if (text === turn.text && !masked) continue;
    masked ??= turns.slice(0, index);
    masked.push(text === turn.text ? turn : { ...turn, text });
  }
  return masked;
}

/** The text masked; null when it held nothing to mask. */
const maskedText = (text: string) => {
  const masked = maskPii(text);
  return masked === text ? null : masked;
};

/**
 * The report as the statement adds it (src/db/sql/report-call-record.ts): texts as said and masked (null when
 * masking changed nothing: they are sent once), lists once per key.
 */
function partOf(report: CallRecordReport): CallRecordPart {
  const turns = report.transcript && oncePerKey(report.transcript, turnKey).sort((a, b) => a.started_ms - b.started_ms);
  return {
    transcript: turns ? { said: turns, masked: maskedTurns(turns) } : null,
    summary: report.summary === undefined ? null : { said: report.summary, masked: maskedText(report.summary) },
    detection: report.detection ?? null,
    disposition: report.disposition ?? null,
    data: report.data === undefined ? null : { value: report.data },
    sentiment: report.sentiment ?? null,
    endedBy: report.ended_by ?? null,
    recordingUrl: report.recording_url ?? null,
    latency: report.latency ?? null,
    callbackAt: report.callback_at ? new Date(report.callback_at) : null,
    evaluations: report.evaluations ? oncePerKey(report.evaluations, (item) => String(item.evaluation_id)) : null,
  };
}

/** The record written, or the error that says why none was. */
function writtenOf(result: ReportedCallRecord, report: CallRecordReport): CallRecord {
  if (result.found === 0) throw notFound('call attempt');
  if (result.foreignEvaluations.length > 0) {
    const foreign = new Set(result.foreignEvaluations);
    throw badInput(
      (report.evaluations ?? []).flatMap((item, index) =>
        foreign.has(item.evaluation_id)
          ? [
              {
                path: `evaluations.${index}.evaluation_id`,
                rule: 'reference',
                message: `evaluation ${item.evaluation_id} is not one of agent ${result.stepAgentId}'s`,
              },
            ]
          : [],
      ),
    );
  }
  if (!result.record)
    throw badInput([
      {
        path: 'transcript',
        rule: 'max_items',
        message: `would hold more than ${CALL_RECORD_BOUNDS.turns} turns: a record holds at most ${CALL_RECORD_BOUNDS.turns}`,
      },
    ]);
  return result.record;
}

/** The audit event of a report the statement appends itself. */
const auditRowOf = (write: AuditedWrite<unknown>): AuditRow => ({
  ...write.actor,
  operation: write.operation,
  resourceType: write.changed?.target.type ?? null,
  resourceId: write.changed?.target.id ?? null,
});

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
 * Adds a part to attempt `attemptNumber`'s record of the caller's run `runId`;
 * answers the record. A part is one statement on the driver (`sql`), its
 * audit event (`audit`) and its event appended by it; a part that revokes a
 * consent or asks for a call-back after the call does more, in a transaction
 * of Prisma's with its audit event. NOT_FOUND for another organization's run;
 * BAD_INPUT for turns past the bound or an evaluation of another agent.
 */
export async function reportCallRecord(
  scope: Scope,
  audit: { sql: SqlQueryable; write: AuditedWrite<unknown> },
  runId: string,
  attemptNumber: number,
  report: CallRecordReport,
): Promise<CallRecord> {
  const organizationId = scope.viewer.organizationId;
  const now = new Date();
  if (report.callback_at && Date.parse(report.callback_at) > now.getTime() + MAX_CALLBACK_DAYS * DAY_MS)
    throw badInput([{ path: 'callback_at', rule: 'max', message: `must be at most ${MAX_CALLBACK_DAYS} days ahead` }]);
  const part = partOf(report);
  const where = { organizationId, runId, attemptNumber };
  // In flight: what answered decides how the attempt ends (src/db/sql/close-attempts.ts).
  const reportedOutcome =
    report.outcome ??
    (report.detection && (machineOutcomes as readonly string[]).includes(report.detection.result)
      ? report.detection.result
      : null);
  // After the call, each part that changes the record sends it whole (during it, the attempt's end does).
  const events = new Outbox()
    .add('call.record.completed', organizationId, { kind: 'record', runId, number: attemptNumber })
    .writes(now, { record: REPORTED_RECORD });
  if (!report.consent_revoked && !report.callback_at) {
    const effects = { reportedOutcome, audit: auditRowOf(audit.write), events };
    return writtenOf(await writeReport(audit.sql, where, part, effects, CALL_RECORD_BOUNDS.turns, now), report);
  }
  return recordWrite(scope.prisma, audit.write, async (tx) => {
    const target = await callRecordTarget(tx, organizationId, runId, attemptNumber);
    if (!target) throw notFound('call attempt');
    const before = await callRecordOfAttempt(tx, organizationId, target.attemptId);
    const effects = { reportedOutcome, audit: null, events };
    const written = writtenOf(await writeReport(tx, where, part, effects, CALL_RECORD_BOUNDS.turns, now), report);
    if (report.consent_revoked) await revokeAfterCall(tx, organizationId, runId, attemptNumber, now);
    // During the call, the attempt's end grants the call-back (src/engine/run-attempts.ts); after it, this part does.
    const askedAgain = written.callbackAt && written.callbackAt.getTime() !== before?.callbackAt?.getTime();
    if (target.endedAt !== null && askedAgain)
      await callBackAfterCall(
        tx,
        organizationId,
        { runId, batchId: target.batchId, stepId: target.stepId },
        written.callbackAt!,
        now,
      );
    return written;
  });
}
