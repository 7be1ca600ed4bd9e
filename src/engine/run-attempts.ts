// A run's call attempts: written open before the call is placed (so a call in
// flight is known even if this instance dies), closed with its outcome after.
// Both are guarded by the lease, and closing only closes an open attempt, so a
// transaction retried after a commit whose answer was lost changes nothing.

import { attemptExists } from '../db/sql/attempt-exists.ts';
import { closeAttempt } from '../db/sql/close-attempt.ts';
import { countAttemptsAtStep } from '../db/sql/count-attempts-at-step.ts';
import { countRunAttempt } from '../db/sql/count-run-attempt.ts';
import { recordLastOutcome } from '../db/sql/record-last-outcome.ts';
import { runLeaseHeld } from '../db/sql/run-lease-held.ts';
import type { Tx } from '../db/tx.ts';
import { Outbox } from '../domain/webhook-events.ts';
import type { CallResult } from './dialer.ts';
import { lockRunBatches } from './run-batches.ts';
import type { ClaimedRun } from './run-claims.ts';
import { afterAttempt, settle } from './run-settlement.ts';

export interface AttemptStart {
  number: number;
  stepId: string;
  fromNumber: string | null;
  toNumber: string;
  dynamicVariables: unknown;
  /** A paced attempt's slot: when its call is placed (not before). */
  startedAt: Date | null;
}

/** Writes the attempt open; false when the run is no longer `owner`'s (nothing written). */
export async function startAttempt(
  tx: Tx,
  now: Date,
  owner: string,
  run: ClaimedRun,
  attempt: AttemptStart,
): Promise<boolean> {
  const held = await countRunAttempt(tx, run.id, attempt.number, owner, now);
  if (held === 0) {
    // Retried after a commit whose answer was lost: the attempt is there already.
    const [existing] = await attemptExists(tx, run.id, attempt.number);
    return existing !== undefined;
  }
  await tx.runAttempt.create({
    data: {
      organizationId: run.organizationId,
      runId: run.id,
      batchId: run.batchId,
      number: attempt.number,
      stepId: attempt.stepId,
      startedAt: attempt.startedAt ?? now,
      fromNumber: attempt.fromNumber,
      toNumber: attempt.toNumber,
      dynamicVariables: (attempt.dynamicVariables ?? undefined) as never,
    },
  });
  return true;
}

/** Closes attempt `number` with its outcome and moves the run on by its batch's retry policy. */
export async function endAttempt(
  tx: Tx,
  now: Date,
  owner: string,
  run: ClaimedRun,
  number: number,
  stepId: string,
  result: CallResult,
): Promise<{ next: 'continue' | 'ended'; batchIds: string[] }> {
  const batch = (await lockRunBatches(tx, [run.batchId])).get(run.batchId)!;
  const closed = await closeAttempt(tx, run.id, number, result, now);
  const [current] = await runLeaseHeld(tx, run.id, owner);
  // Closed already (a retry after a lost answer) or taken back: whatever the first commit decided stands.
  if (closed === 0 || !current?.held) return { next: current?.held ? 'continue' : 'ended', batchIds: [] };
  const outbox = new Outbox().add('call.attempt_ended', run.organizationId, { kind: 'attempt', runId: run.id, number });
  const decision = afterAttempt(result.outcome, batch.retry, await countAttemptsAtStep(tx, run.id, stepId));
  if (decision === 'continue') {
    await recordLastOutcome(tx, run.id, result.outcome, now);
    await outbox.write(tx, now);
    return { next: 'continue', batchIds: [] };
  }
  const error =
    decision === 'fail'
      ? `the call ended ${result.outcome}${result.reason ? ` (${result.reason})` : ''} after ${number} attempt${number > 1 ? 's' : ''}`
      : '';
  await settle(tx, now, batch, [{ runId: run.id, decision, outcome: result.outcome, error }], outbox);
  await outbox.write(tx, now);
  return { next: 'ended', batchIds: [run.batchId] };
}
