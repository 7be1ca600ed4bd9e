// A run whose call attempt reached nobody: by its batch's retry policy it
// waits for another attempt (held while its batch is paused) or fails; and a
// batch whose latest attempts failed too often is paused (the circuit breaker).

import { latestAttemptsFailed } from '../db/sql/latest-attempts-failed.ts';
import { settleAttemptedRuns } from '../db/sql/settle-attempted-runs.ts';
import type { Tx } from '../db/tx.ts';
import { autoPauseBatch } from '../domain/batches.ts';
import { callbackSlot } from '../domain/calling-window.ts';
import { MAX_CALLBACK_DAYS, MAX_CALLBACKS_PER_RUN } from '../domain/limits.ts';
import type { RunStatusName } from '../domain/runs.ts';
import type { Outbox } from '../domain/webhook-events.ts';
import { type CallOutcomeName, machineOutcomes, type RetryPolicy } from '../records/campaign-settings.ts';
import { endFinishedBatches, type LockedBatch, moveCounters } from './run-batches.ts';

/** What follows an attempt: the run goes on with its next step, is tried again later, or fails. */
export function afterAttempt(
  outcome: CallOutcomeName,
  retry: RetryPolicy,
  attemptsAtStep: number,
): 'continue' | 'retry' | 'fail' {
  const retried = retry.on.includes(outcome) && attemptsAtStep < retry.max_attempts;
  if (retried) return 'retry';
  // Someone or something answered: the call step is done.
  if (outcome === 'answered' || (machineOutcomes as readonly string[]).includes(outcome)) return 'continue';
  return 'fail';
}

/** A run whose attempt reached nobody: tried again after the delay (held while its batch is paused), or failed. */
export interface AttemptSettlement {
  runId: string;
  decision: 'retry' | 'fail';
  outcome: CallOutcomeName;
  error: string;
  /** A call-back the callee asked for: the next attempt then, not after the retry delay. */
  callbackAt?: Date;
}

const DAY_MS = 86_400_000;

/**
 * When a call-back the callee asked for during the call (its record's
 * `callback_at`) is made: at that time (now, if it has passed) or the batch's
 * calling window's next opening in the prospect's zone; null when it is not
 * granted (the batch is cancelled, the run had its call-backs, it is too far
 * ahead, or the batch counts call-backs as attempts and none is left).
 */
export function callbackOf(
  run: { callbacks: number; prospect: { timezone: string | null; phone: string } },
  batch: LockedBatch,
  callbackAt: Date | null,
  attemptsAtStep: number,
  now: Date,
): Date | null {
  if (!callbackAt || batch.status === 'CANCELLED' || run.callbacks >= MAX_CALLBACKS_PER_RUN) return null;
  if (callbackAt.getTime() > now.getTime() + MAX_CALLBACK_DAYS * DAY_MS) return null;
  if (batch.retry.count_callbacks && attemptsAtStep >= batch.retry.max_attempts) return null;
  return callbackSlot(batch.callingWindow, run.prospect, callbackAt < now ? now : callbackAt);
}

/** Attempts at a step that count against `max_attempts`: call-backs only when the batch says so. */
export const countedAttempts = (attemptsAtStep: number, callbacks: number, retry: RetryPolicy) =>
  retry.count_callbacks ? attemptsAtStep : Math.max(0, attemptsAtStep - callbacks);

/** Where a run that waits for another attempt goes, by its batch's status. */
export const waitingStatus = (batchStatus: string): RunStatusName =>
  batchStatus === 'PAUSED' ? 'PAUSED' : batchStatus === 'CANCELLED' ? 'CANCELLED' : 'PENDING';

/** The circuit breaker: pauses the batch when its latest attempts failed as often as its auto_pause says. */
async function tripBreaker(tx: Tx, batch: LockedBatch, outbox: Outbox) {
  if (!batch.autoPause || !['PENDING', 'IN_PROGRESS'].includes(batch.status)) return;
  const { failed, total } = await latestAttemptsFailed(tx, batch.organizationId, batch.id, batch.autoPause.window);
  if (total < batch.autoPause.window || failed < batch.autoPause.failure_rate * total) return;
  await autoPauseBatch(tx, batch.organizationId, batch.id, `auto_pause: ${failed} of ${total} attempts failed`);
  batch.status = 'PAUSED';
  outbox.batchMoved(batch.organizationId, batch.id, 'PAUSED');
}

/** Moves runs of one locked batch whose attempt reached nobody: to wait for a retry, or to FAILED. */
export async function settle(tx: Tx, now: Date, batch: LockedBatch, runs: AttemptSettlement[], outbox: Outbox) {
  const retryAt = (run: AttemptSettlement) =>
    run.callbackAt ?? new Date(now.getTime() + (batch.retry.delays?.[run.outcome] ?? batch.retry.delay_seconds) * 1000);
  const waiting = waitingStatus(batch.status);
  for (const to of new Set(runs.map((run) => (run.decision === 'retry' ? waiting : 'FAILED')))) {
    const moving = runs.filter((run) => (run.decision === 'retry' ? waiting : 'FAILED') === to);
    await settleAttemptedRuns(
      tx,
      batch.organizationId,
      moving.map((run) => ({ ...run, retryAt: retryAt(run), callback: run.callbackAt !== undefined })),
      to,
      now,
    );
    await moveCounters(tx, batch, 'IN_PROGRESS', to, moving.length);
    for (const run of moving) outbox.runMoved(batch.organizationId, run.runId, to);
  }
  // A batch these runs ended is over: the breaker has nothing left to pause.
  const ended = (await endFinishedBatches(tx, [batch], outbox)).length > 0;
  if (!ended && runs.some((run) => run.outcome === 'failed')) await tripBreaker(tx, batch, outbox);
}
