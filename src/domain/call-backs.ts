// A call-back a callee asked for, reported after the call ended (a call
// record's later part with `callback_at`): the run waits for it at the call's
// step, as one asked for during the call does (src/engine/run-settlement.ts's
// callbackOf), whether it was waiting for a retry or had ended; an ended batch
// is open again. Not granted for a run the engine is working on (it has gone
// on to its next steps), in a cancelled batch, past the run's call-backs, or
// when the batch counts call-backs as attempts and none is left.
import { counterColumn } from '../db/parts/counter-columns.ts';
import { callBackRun, lockCallbackRun } from '../db/sql/callback-run.ts';
import { lockBatches } from '../db/sql/lock-batches.ts';
import { reopenBatch } from '../db/sql/reopen-batch.ts';
import type { SqlClient } from '../db/tx.ts';
import { settingsOf } from './batch-settings.ts';
import { callbackSlot } from './calling-window.ts';
import { MAX_CALLBACKS_PER_RUN } from './limits.ts';
import type { RunStatusName } from './runs.ts';
import { Outbox } from './webhook-events.ts';

const ENDED = new Set(['FINISHED', 'FAILED', 'CANCELLED']);

/** Grants the call-back, if it may be; answers its slot, or null. */
export async function callBackAfterCall(
  tx: SqlClient,
  organizationId: string,
  call: { runId: string; batchId: string; stepId: string },
  callbackAt: Date,
  now: Date,
): Promise<Date | null> {
  const [batch] = await lockBatches(tx, [{ id: call.batchId, organizationId }]);
  const run = await lockCallbackRun(tx, organizationId, call.runId, call.stepId);
  if (!batch || !run || batch.status === 'CANCELLED' || run.status === 'IN_PROGRESS') return null;
  if (run.callbacks >= MAX_CALLBACKS_PER_RUN) return null;
  const { callingWindow, retry } = settingsOf(batch);
  if (retry.count_callbacks && run.attemptsAtStep >= retry.max_attempts) return null;
  const at = callbackSlot(callingWindow, run, callbackAt < now ? now : callbackAt);
  const to: RunStatusName = batch.status === 'PAUSED' ? 'PAUSED' : 'PENDING';
  await callBackRun(tx, organizationId, run.id, to, call.stepId, at, now);
  const outbox = new Outbox();
  if (ENDED.has(run.status)) {
    await reopenBatch(tx, organizationId, batch.id, counterColumn[run.status as RunStatusName], counterColumn[to], 1);
    outbox.runMoved(organizationId, run.id, to);
    if (batch.status === 'FINISHED' || batch.status === 'FAILED')
      outbox.batchMoved(organizationId, batch.id, 'PENDING');
  } else if (run.status !== to) {
    await reopenBatch(tx, organizationId, batch.id, counterColumn[run.status as RunStatusName], counterColumn[to], 1);
    outbox.runMoved(organizationId, run.id, to);
  }
  await outbox.write(tx, now);
  return at;
}
