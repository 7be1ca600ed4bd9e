// A run's call attempts: written open before the call is placed (so a call in
// flight is known even if this instance dies), closed with its outcome after.
// Both are guarded by the lease, and closing only closes an open attempt, so a
// transaction retried after a commit whose answer was lost changes nothing.

import { attemptsAtSteps } from '../db/sql/attempts-at-steps.ts';
import { attemptsWritten } from '../db/sql/attempts-written.ts';
import { closeAttempts } from '../db/sql/close-attempts.ts';
import { countRunAttempts } from '../db/sql/count-run-attempts.ts';
import { insertAttempts } from '../db/sql/insert-attempts.ts';
import { recordLastOutcomes } from '../db/sql/record-last-outcomes.ts';
import { runsLeasedBy } from '../db/sql/runs-leased-by.ts';
import type { Tx } from '../db/tx.ts';
import { Outbox } from '../domain/webhook-events.ts';
import type { CallResult } from './dialer.ts';
import { lockRunBatches } from './run-batches.ts';
import type { ClaimedRun } from './run-claims.ts';
import { finishLocked } from './run-endings.ts';
import { type AttemptSettlement, afterAttempt, callbackOf, countedAttempts, settle } from './run-settlement.ts';

export interface AttemptStart {
  number: number;
  stepId: string;
  fromNumber: string | null;
  toNumber: string;
  dynamicVariables: unknown;
  /** A paced attempt's slot: when its call is placed (not before). */
  startedAt: Date | null;
  /** The prospect's consent in force (src/db/sql/consents-in-force.ts), if one is live. */
  consentId?: string | null;
}

/** An attempt to write open: the run's attempt `attempt.number`. */
export interface AttemptStartRequest {
  run: ClaimedRun;
  attempt: AttemptStart;
}

/**
 * Writes many runs' attempts open in one transaction; for each, in the order
 * of `starts`, false when its run is no longer `owner`'s (nothing written).
 */
export async function startAttempts(
  tx: Tx,
  now: Date,
  owner: string,
  starts: AttemptStartRequest[],
): Promise<boolean[]> {
  const counted = new Set(
    (
      await countRunAttempts(
        tx,
        starts.map(({ run, attempt }) => ({
          runId: run.id,
          organizationId: run.organizationId,
          number: attempt.number,
        })),
        owner,
        now,
      )
    ).map((row) => row.id),
  );
  const uncounted = starts.filter(({ run }) => !counted.has(run.id));
  // Retried after a commit whose answer was lost: those attempts are there already.
  const written = new Set(
    uncounted.length > 0
      ? (
          await attemptsWritten(
            tx,
            uncounted.map(({ run, attempt }) => ({
              runId: run.id,
              organizationId: run.organizationId,
              number: attempt.number,
            })),
          )
        ).map((row) => row.runId)
      : [],
  );
  const writing = starts.filter(({ run }) => counted.has(run.id));
  if (writing.length > 0) {
    await insertAttempts(
      tx,
      writing.map(({ run, attempt }) => ({
        organizationId: run.organizationId,
        runId: run.id,
        batchId: run.batchId,
        number: attempt.number,
        stepId: attempt.stepId,
        startedAt: attempt.startedAt ?? now,
        fromNumber: attempt.fromNumber,
        toNumber: attempt.toNumber,
        dynamicVariables: attempt.dynamicVariables,
        consentId: attempt.consentId ?? null,
      })),
    );
  }
  return starts.map(({ run }) => counted.has(run.id) || written.has(run.id));
}

/** A call's end, to be recorded: attempt `number` of the run, at step `stepId`. */
export interface AttemptEndRequest {
  run: ClaimedRun;
  number: number;
  stepId: string;
  result: CallResult;
  /** The call is the run's last step: when the run would go on, it is FINISHED in the same transaction. */
  last: boolean;
}

/**
 * What follows an attempt's end: the run goes on with its next step, it
 * finished (its last step's call went on), or it ended otherwise (or waits
 * for a retry).
 */
export interface AttemptEndResult {
  next: 'continue' | 'finished' | 'ended';
  batchIds: string[];
}

/**
 * Closes each run's attempt `number` with its outcome and moves the run on by
 * its batch's retry policy, for many runs in one transaction (a few statements
 * whatever their number): the results in the order of `ends`. A run whose
 * call was its last step and goes on is FINISHED here (one transaction, not
 * two: the batch row is locked once).
 */
export async function endAttempts(
  tx: Tx,
  now: Date,
  owner: string,
  ends: AttemptEndRequest[],
): Promise<AttemptEndResult[]> {
  const batches = await lockRunBatches(
    tx,
    ends.map(({ run }) => run),
  );
  const closed = new Map(
    (
      await closeAttempts(
        tx,
        ends.map(({ run, number, result }) => ({
          runId: run.id,
          organizationId: run.organizationId,
          number,
          ...result,
          reason: result.reason ?? null,
        })),
        now,
      )
    ).map((row) => [row.runId, row]),
  );
  const held = new Set(
    (
      await runsLeasedBy(
        tx,
        ends.map(({ run }) => run.id),
        owner,
      )
    ).map((row) => row.id),
  );
  // Closed already (a retry after a lost answer) or taken back: whatever the first commit decided stands.
  const results = new Map<string, AttemptEndResult>(
    ends.map(({ run }) => [run.id, { next: held.has(run.id) ? 'continue' : 'ended', batchIds: [] }]),
  );
  const moving = ends.filter(({ run }) => closed.has(run.id) && held.has(run.id));
  const attemptsAtStep =
    moving.length > 0
      ? await attemptsAtSteps(
          tx,
          moving.map(({ run, stepId }) => ({ runId: run.id, organizationId: run.organizationId, stepId })),
        )
      : new Map<string, number>();
  const outbox = new Outbox();
  const continuing: { runId: string; organizationId: string; outcome: string }[] = [];
  const settling = new Map<string, AttemptSettlement[]>();
  for (const { run, number, result: dialed } of moving) {
    const { outcome, hasRecord, callbackAt } = closed.get(run.id)!;
    const result = { ...dialed, outcome };
    outbox.add('call.attempt_ended', run.organizationId, { kind: 'attempt', runId: run.id, number });
    // What the agent worker reported during the call is complete now; later parts send it again.
    if (hasRecord) outbox.add('call.record.completed', run.organizationId, { kind: 'record', runId: run.id, number });
    const batch = batches.get(run.batchId)!;
    const atStep = countedAttempts(attemptsAtStep.get(run.id) ?? 0, run.callbacks, batch.retry);
    // A callee who asked to be called back is, whatever the outcome and the retry policy.
    const callback = callbackOf(run, batch, callbackAt, atStep, now) ?? undefined;
    const decision = callback ? 'retry' : afterAttempt(result.outcome, batch.retry, atStep);
    if (decision === 'continue') {
      continuing.push({ runId: run.id, organizationId: run.organizationId, outcome: result.outcome });
      continue;
    }
    const error =
      decision === 'fail'
        ? `the call ended ${result.outcome}${result.reason ? ` (${result.reason})` : ''} after ${number} attempt${number > 1 ? 's' : ''}`
        : '';
    const batchSettling = settling.get(batch.id) ?? [];
    settling.set(batch.id, batchSettling);
    batchSettling.push({ runId: run.id, decision, outcome: result.outcome, error, callbackAt: callback });
    results.set(run.id, { next: 'ended', batchIds: [run.batchId] });
  }
  if (continuing.length > 0) await recordLastOutcomes(tx, continuing, now);
  const goingOn = new Set(continuing.map(({ runId }) => runId));
  const finishing = moving.filter(({ run, last }) => last && goingOn.has(run.id));
  if (finishing.length > 0) {
    const finishes = finishing.map(({ run }) => ({ run, outcome: 'FINISHED' as const, error: null }));
    const finished = await finishLocked(tx, now, owner, batches, finishes, outbox);
    for (const { run } of finishing) {
      results.set(
        run.id,
        finished.has(run.id) ? { next: 'finished', batchIds: [run.batchId] } : { next: 'ended', batchIds: [] },
      );
    }
  }
  for (const [batchId, runs] of settling) await settle(tx, now, batches.get(batchId)!, runs, outbox);
  await outbox.write(tx, now);
  return ends.map(({ run }) => results.get(run.id)!);
}
