// A run's end: FINISHED or FAILED after its steps, or FAILED / CANCELLED
// without a call (invalid_number, do_not_call, precall_skip). Each is guarded
// by the lease, and its batch ends with its last run.

import { endRunWithoutCall } from '../db/sql/end-run-without-call.ts';
import { finishRun } from '../db/sql/finish-run.ts';
import type { Tx } from '../db/tx.ts';
import { Outbox } from '../domain/webhook-events.ts';
import { endFinishedBatches, lockRunBatches, moveCounters } from './run-batches.ts';
import type { ClaimedRun } from './run-claims.ts';

/** Counts the ended run and ends its batch if it was the last; the batch ids that changed. */
async function afterEnd(tx: Tx, now: Date, run: ClaimedRun, to: 'FINISHED' | 'FAILED' | 'CANCELLED') {
  await moveCounters(tx, run.batchId, 'IN_PROGRESS', to, 1);
  const outbox = new Outbox().runMoved(run.organizationId, run.id, to);
  await endFinishedBatches(tx, [run.batchId], outbox);
  await outbox.write(tx, now);
  return [run.batchId];
}

/** Ends a run without a call; no batch ids when it is no longer `owner`'s. */
export async function endWithoutCall(
  tx: Tx,
  now: Date,
  owner: string,
  run: ClaimedRun,
  end: { to: 'FAILED' | 'CANCELLED'; reason: string; error: string | null },
): Promise<string[]> {
  await lockRunBatches(tx, [run.batchId]);
  const ended = await endRunWithoutCall(tx, run.id, owner, end, now);
  return ended === 0 ? [] : afterEnd(tx, now, run, end.to);
}

/** Ends a run FINISHED or FAILED after its steps; no batch ids when it is no longer `owner`'s. */
export async function finish(
  tx: Tx,
  now: Date,
  owner: string,
  run: ClaimedRun,
  outcome: 'FINISHED' | 'FAILED',
  error: string | null,
): Promise<string[]> {
  await lockRunBatches(tx, [run.batchId]);
  const ended = await finishRun(tx, run.id, owner, outcome, error, now);
  return ended === 0 ? [] : afterEnd(tx, now, run, outcome);
}
