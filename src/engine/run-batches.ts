// What every move of the run engine does to the batches of the runs it moves:
// lock them first (the lock order, src/engine/run-store.ts), keep their status
// counters equal to their runs' statuses, and end them when their last run ends.

import { counterColumn } from '../db/parts/counter-columns.ts';
import { completeBatches } from '../db/sql/complete-batches.ts';
import { lockBatches } from '../db/sql/lock-batches.ts';
import { moveBatchCounters } from '../db/sql/move-batch-counters.ts';
import type { TenantKey } from '../db/tenant-key.ts';
import type { Tx } from '../db/tx.ts';
import { settingsOf } from '../domain/batch-settings.ts';
import type { RunStatusName } from '../domain/runs.ts';
import type { Outbox } from '../domain/webhook-events.ts';
import type { CallingWindow, RetryPolicy } from '../records/campaign-settings.ts';

export interface LockedBatch {
  id: string;
  organizationId: string;
  status: string;
  retry: RetryPolicy;
  /** Where a call-back's slot is found. */
  callingWindow: CallingWindow | null;
  autoPause: { failure_rate: number; window: number } | null;
}

/** A run's batch, as its key. */
export const batchOf = (run: { batchId: string; organizationId: string }): TenantKey => ({
  id: run.batchId,
  organizationId: run.organizationId,
});

/** Locks the runs' batches (in id order: the lock order) and reads what deciding a run's next move needs. */
export async function lockRunBatches(
  tx: Tx,
  runs: { batchId: string; organizationId: string }[],
): Promise<Map<string, LockedBatch>> {
  const batches = new Map(runs.map((run) => [run.batchId, batchOf(run)]));
  const rows = await lockBatches(tx, [...batches.values()]);
  return new Map(
    rows.map((row) => [
      row.id,
      { id: row.id, organizationId: row.organizationId, status: row.status, ...settingsOf(row) },
    ]),
  );
}

/** Moves `count` runs of a batch from one status counter to another. */
export const moveCounters = (tx: Tx, batch: TenantKey, from: RunStatusName, to: RunStatusName, count: number) =>
  moveBatchCounters(tx, batch, counterColumn[from], counterColumn[to], count);

/**
 * Batches whose every run is final move to FINISHED, or FAILED when every
 * run failed; a client's CANCELLED stays. Their events go to `outbox`.
 * Returns the batches that moved.
 */
export async function endFinishedBatches(tx: Tx, batches: TenantKey[], outbox: Outbox): Promise<string[]> {
  if (batches.length === 0) return [];
  const rows = await completeBatches(tx, batches);
  for (const row of rows) outbox.batchMoved(row.organizationId, row.id, row.status);
  return rows.map((row) => row.id);
}
