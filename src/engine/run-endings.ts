// A run's end: FINISHED or FAILED after its steps, or FAILED / CANCELLED
// without a call (invalid_number, do_not_call, precall_skip). Each is guarded
// by the lease, and its batch ends with its last run.

import { endRunWithoutCall } from '../db/sql/end-run-without-call.ts';
import { finishRuns } from '../db/sql/finish-runs.ts';
import type { Tx } from '../db/tx.ts';
import { Outbox } from '../domain/webhook-events.ts';
import { batchOf, endFinishedBatches, type LockedBatch, lockRunBatches, moveCounters } from './run-batches.ts';
import type { ClaimedRun } from './run-claims.ts';

/** Counts the ended run and ends its batch if it was the last; the batch ids that changed. */
async function afterEnd(tx: Tx, now: Date, run: ClaimedRun, to: 'FINISHED' | 'FAILED' | 'CANCELLED') {
  await moveCounters(tx, batchOf(run), 'IN_PROGRESS', to, 1);
  const outbox = new Outbox().runMoved(run.organizationId, run.id, to);
  await endFinishedBatches(tx, [batchOf(run)], outbox);
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
  await lockRunBatches(tx, [run]);
  const ended = await endRunWithoutCall(tx, run.organizationId, run.id, owner, end, now);
  return ended === 0 ? [] : afterEnd(tx, now, run, end.to);
}

/** A run to end after its steps: FINISHED, or FAILED with its error. */
export interface FinishRequest {
  run: ClaimedRun;
  outcome: 'FINISHED' | 'FAILED';
  error: string | null;
}

/**
 * Ends runs FINISHED or FAILED after their steps, many in one transaction (a
 * few statements whatever their number): for each, in the order of
 * `finishes`, the batch ids that changed (none when the run is no longer
 * `owner`'s).
 */
export async function finishAll(tx: Tx, now: Date, owner: string, finishes: FinishRequest[]): Promise<string[][]> {
  const batches = await lockRunBatches(
    tx,
    finishes.map(({ run }) => run),
  );
  const outbox = new Outbox();
  const endedIds = await finishLocked(tx, now, owner, batches, finishes, outbox);
  await outbox.write(tx, now);
  return finishes.map(({ run }) => (endedIds.has(run.id) ? [run.batchId] : []));
}

/**
 * finishAll's moves, in a transaction that holds the runs' batches already
 * (closing a run's last attempt finishes it in the same one): the ids of the
 * runs that ended, their events in `outbox`.
 */
export async function finishLocked(
  tx: Tx,
  now: Date,
  owner: string,
  batches: Map<string, LockedBatch>,
  finishes: FinishRequest[],
  outbox: Outbox,
): Promise<Set<string>> {
  const ended = await finishRuns(
    tx,
    finishes.map(({ run, outcome, error }) => ({
      runId: run.id,
      organizationId: run.organizationId,
      status: outcome,
      error,
    })),
    owner,
    now,
  );
  const moves = new Map<string, { batchId: string; to: 'FINISHED' | 'FAILED'; count: number }>();
  for (const run of ended) {
    const key = `${run.batchId} ${run.status}`;
    moves.set(key, { batchId: run.batchId, to: run.status, count: (moves.get(key)?.count ?? 0) + 1 });
    outbox.runMoved(batches.get(run.batchId)!.organizationId, run.id, run.status);
  }
  for (const { batchId, to, count } of moves.values())
    await moveCounters(tx, batches.get(batchId)!, 'IN_PROGRESS', to, count);
  await endFinishedBatches(tx, [...new Set(ended.map((run) => batches.get(run.batchId)!))], outbox);
  return new Set(ended.map((run) => run.id));
}
