// Runs taken back: an instance's own when it stops, or any instance's whose
// lease ran out (it died). A run with a call in flight has that attempt
// recorded `failed` and follows its batch's retry policy like any failed
// attempt: it is never re-run at once. A run with no call in flight resumes
// at its step, and fails once taken back too many times.

import { attemptsAtSteps } from '../db/sql/attempts-at-steps.ts';
import { batchesOfLeasedRuns } from '../db/sql/batches-of-leased-runs.ts';
import { failOpenAttempts } from '../db/sql/fail-open-attempts.ts';
import type { LeasedRuns } from '../db/sql/leased-runs.ts';
import { type LeasedRunRow, lockLeasedRuns } from '../db/sql/lock-leased-runs.ts';
import { recoverIdleRuns } from '../db/sql/recover-idle-runs.ts';
import type { Tx } from '../db/tx.ts';
import { Outbox } from '../domain/webhook-events.ts';
import { endFinishedBatches, type LockedBatch, lockRunBatches, moveCounters } from './run-batches.ts';
import { type AttemptSettlement, afterAttempt, settle, waitingStatus } from './run-settlement.ts';

/** Settles the batch's runs whose call was in flight, as a failed attempt each. */
async function settleInFlight(
  tx: Tx,
  now: Date,
  batch: LockedBatch,
  inFlight: LeasedRunRow[],
  reason: string,
  outbox: Outbox,
) {
  const runs = inFlight.filter((candidate) => candidate.batchId === batch.id);
  if (runs.length === 0) return;
  const attemptsAtStep = await attemptsAtSteps(
    tx,
    runs.map((run) => ({ runId: run.id, organizationId: run.organizationId, stepId: run.stepId! })),
  );
  const settlements: AttemptSettlement[] = [];
  for (const run of runs) {
    const decision = afterAttempt('failed', batch.retry, attemptsAtStep.get(run.id) ?? 0);
    const error = `the call was ${reason}: its instance stopped before it ended (attempt ${run.openAttempt})`;
    settlements.push({ runId: run.id, decision: decision === 'retry' ? 'retry' : 'fail', outcome: 'failed', error });
  }
  await settle(tx, now, batch, settlements, outbox);
}

/** Resumes the batch's runs with no call in flight, or fails those taken back `maxRecoveries` times. */
async function recoverIdle(
  tx: Tx,
  now: Date,
  batch: LockedBatch,
  idle: LeasedRunRow[],
  maxRecoveries: number,
  outbox: Outbox,
) {
  for (const to of [waitingStatus(batch.status), 'FAILED' as const]) {
    const ids = idle
      .filter((run) => (run.recoveries + 1 >= maxRecoveries ? 'FAILED' : waitingStatus(batch.status)) === to)
      .map((run) => run.id);
    if (ids.length === 0) continue;
    await recoverIdleRuns(tx, batch.organizationId, ids, to, now);
    await moveCounters(tx, batch, 'IN_PROGRESS', to, ids.length);
    for (const id of ids) outbox.runMoved(batch.organizationId, id, to);
  }
}

/** Takes the runs back (`reason`: interrupted, lost); returns the batch ids that changed. */
export async function releaseRuns(
  tx: Tx,
  now: Date,
  select: LeasedRuns,
  reason: 'lost' | 'interrupted',
  maxRecoveries: number,
): Promise<string[]> {
  const found = await batchesOfLeasedRuns(tx, select);
  if (found.length === 0) return [];
  const batches = await lockRunBatches(tx, found);
  const runs = await lockLeasedRuns(tx, select, [...batches.values()]);
  const inFlight = runs.filter((run) => run.openAttempt !== null);
  const outbox = new Outbox();
  if (inFlight.length > 0) {
    await failOpenAttempts(tx, inFlight, reason, now);
    for (const run of inFlight) {
      outbox.add('call.attempt_ended', batches.get(run.batchId)!.organizationId, {
        kind: 'attempt',
        runId: run.id,
        number: run.openAttempt!,
      });
    }
  }
  for (const batch of batches.values()) {
    await settleInFlight(tx, now, batch, inFlight, reason, outbox);
    const idle = runs.filter((run) => run.batchId === batch.id && run.openAttempt === null);
    await recoverIdle(tx, now, batch, idle, maxRecoveries, outbox);
  }
  const batchIds = [...new Set(runs.map((run) => run.batchId))];
  await endFinishedBatches(
    tx,
    batchIds.map((id) => batches.get(id)!),
    outbox,
  );
  await outbox.write(tx, now);
  return batchIds;
}
