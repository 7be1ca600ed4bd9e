// Batches: one run per prospect, created all at once or not at all, and the
// client's status moves (pause, resume, cancel) with their effect on runs.
import { z } from 'zod';
import { counterColumn } from '../db/parts/counter-columns.ts';
import { type BatchRunsWritten, insertBatchRuns } from '../db/sql/insert-batch-runs.ts';
import { lockOrganizationBatch } from '../db/sql/lock-organization-batch.ts';
import { moveBatchRuns } from '../db/sql/move-batch-runs.ts';
import { reopenBatch } from '../db/sql/reopen-batch.ts';
import { requeueFailedRuns } from '../db/sql/requeue-failed-runs.ts';
import { rescheduleWaitingRuns } from '../db/sql/reschedule-waiting-runs.ts';
import { setBatchStatus } from '../db/sql/set-batch-status.ts';
import { unknownProspects } from '../db/sql/unknown-prospects.ts';
import { rowKey } from '../db/tenant.ts';
import type { SqlClient } from '../db/tx.ts';
import type { Prisma } from '../generated/prisma/client.ts';
import { tracing } from '../observability/tracing.ts';
import { type BatchSettingsInput, batchSettingsShape, settingsColumns } from './batch-settings.ts';
import { clientBatchStatuses, clientMove, type RunMove } from './batch-state.ts';
import { badInput, conflict, notFound } from './errors.ts';
import { limits } from './limits.ts';
import { actorOf, type Scope } from './scope.ts';
import { Outbox } from './webhook-events.ts';

export const batchCreate = z
  .strictObject({
    name: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .meta({ description: "the batch's name, by default the workflow's name and the creation time;" }),
    prospect_ids: z
      .array(z.string())
      .max(limits.batchProspects)
      .optional()
      .meta({ description: 'prospects to call (`prs_…`), one run each; this or `prospect_list_id` is required;' }),
    prospect_list_id: z.string().optional().meta({
      description: 'a prospect list (`pl_…`) whose members are called, with `prospect_ids` if both are given',
    }),
    scheduled_at: z.iso.datetime({ offset: true }).optional().meta({ description: 'RFC 3339; runs wait until then' }),
    ...batchSettingsShape,
  })
  .meta({
    id: 'BatchCreate',
    description:
      "E4's body: whom to call (the union of `prospect_ids` and the list's members, one run per prospect, duplicates once) and the campaign settings.",
  });
export type BatchCreate = z.output<typeof batchCreate>;

export const batchStatusUpdate = z
  .strictObject({ status: z.enum(clientBatchStatuses) })
  .meta({ id: 'BatchStatusUpdate' });
export type BatchStatusUpdate = z.output<typeof batchStatusUpdate>;

function sourceTypeOf(hasIds: boolean, hasList: boolean) {
  if (hasIds && hasList) return 'mixed';
  return hasList ? 'prospect_list' : 'prospect_ids';
}

/**
 * Creates a batch of the workflow's latest version with one PENDING run per
 * prospect (the union of `prospect_ids` and the list's members, without
 * duplicates). The batch and its runs commit in one transaction; the runs are
 * written by one INSERT … SELECT, whatever their number.
 *
 * The prospects are not looked up beforehand: the runs' key to their prospect,
 * ("prospectId", "organizationId"), refuses an id that is not one of the
 * organization's prospects, and the whole transaction with it. Only then are
 * the ids looked up, to name the unknown ones. (A pass over 100,000 ids before
 * the insert cost as much again as the key's checks.)
 */
export async function createBatch(scope: Scope, workflowId: string, data: BatchCreate) {
  const organizationId = scope.viewer.organizationId;
  const prospectIds = [...new Set(data.prospect_ids ?? [])];
  const listId = data.prospect_list_id;
  if (prospectIds.length === 0 && !listId) {
    throw badInput([{ path: 'prospect_ids', rule: 'required', message: 'or prospect_list_id is required' }]);
  }

  // Set when the INSERT of the runs is refused; any other failure is not about the prospects.
  let insertFailed = false;
  try {
    return await scope.prisma.$transaction(
      async (tx) => {
        const workflow = await tx.workflow.findUnique({ where: rowKey(organizationId, workflowId) });
        if (!workflow) throw notFound('workflow');
        if (!workflow.isActive) throw conflict('the workflow is inactive: activate it before creating a batch');
        const version = await tx.workflowVersion.findFirstOrThrow({ where: { workflowId, version: workflow.version } });
        if (
          listId &&
          !(await tx.prospectList.findUnique({ where: rowKey(organizationId, listId), select: { id: true } }))
        ) {
          throw badInput([
            { path: 'prospect_list_id', rule: 'exists', message: `prospect list ${listId} does not exist` },
          ]);
        }

        const batch = await tx.batch.create({
          data: {
            organizationId,
            workflowId,
            workflowVersionId: version.id,
            name: data.name ?? `${workflow.name} ${new Date().toISOString()}`,
            sourceType: sourceTypeOf(prospectIds.length > 0, Boolean(listId)),
            createdBy: actorOf(scope),
            scheduledAt: data.scheduled_at ? new Date(data.scheduled_at) : null,
            // Its runs' attempts and its events' deliveries, traced later, link to this request's trace.
            traceparent: tracing().traceparent(),
            ...settingsColumns(data),
          } as Prisma.BatchUncheckedCreateInput,
        });
        let written: BatchRunsWritten;
        try {
          written = await insertBatchRuns(tx, {
            organizationId,
            workflowId,
            workflowVersionId: version.id,
            batchId: batch.id,
            dueAt: batch.scheduledAt ?? new Date(),
            prospectIds,
            listId: listId ?? null,
          });
        } catch (error) {
          insertFailed = true;
          throw error;
        }
        const { total, firstRunId } = written;
        if (total === 0) {
          throw badInput([
            { path: 'prospect_list_id', rule: 'non-empty', message: 'the prospect list has no prospects' },
          ]);
        }
        return tx.batch.update({
          where: rowKey(organizationId, batch.id),
          data: { totalProspects: total, pendingCount: total, firstRunId },
        });
      },
      { timeout: 120_000, maxWait: 10_000 }, // 100,000 runs
    );
  } catch (error) {
    // Rolled back by now: name the ids the key refused, if that is what failed.
    const unknown =
      insertFailed && prospectIds.length > 0 ? await unknownProspects(scope.prisma, organizationId, prospectIds) : [];
    if (unknown.length > 0) {
      throw badInput(
        unknown.map(({ id }) => ({ path: 'prospect_ids', rule: 'exists', message: `prospect ${id} does not exist` })),
      );
    }
    throw error;
  }
}

/**
 * Moves the batch's runs in `move.from` statuses to `move.to` and their
 * counters by exactly the rows changed, and sets the batch's status. The
 * caller holds the batch row (the lock order: the batch, then its runs).
 */
async function moveBatch(
  tx: SqlClient,
  organizationId: string,
  batchId: string,
  move: RunMove,
  status: string,
  pausedReason: string | null,
) {
  const now = new Date();
  const movedFrom: { column: string; count: number }[] = [];
  for (const from of move.from) {
    movedFrom.push({
      column: counterColumn[from],
      count: await moveBatchRuns(tx, organizationId, batchId, from, move.to, now),
    });
  }
  await setBatchStatus(
    tx,
    organizationId,
    batchId,
    { status, pausedReason, movedFrom, movedTo: counterColumn[move.to] },
    now,
  );
}

/** The circuit breaker's move (the engine holds the batch row): a client's pause, with the reason shown. */
export const autoPauseBatch = (tx: SqlClient, organizationId: string, batchId: string, reason: string) =>
  moveBatch(tx, organizationId, batchId, clientMove('IN_PROGRESS', 'PAUSED')!, 'PAUSED', reason);

/** Locks the organization's batch for a change (the lock order: the batch first); 404 when it is not theirs. */
async function lockBatch(tx: SqlClient, scope: Scope, batchId: string) {
  const [locked] = await lockOrganizationBatch(tx, scope.viewer.organizationId, batchId);
  if (!locked) throw notFound('batch');
  return locked;
}

/**
 * A client's status move: PAUSED, PENDING (resume) or CANCELLED. The batch row
 * is locked for the move, its runs change status in the same transaction and
 * the counters move by exactly the rows changed, so `stats` stays equal to the
 * runs' statuses even while the run engine works on the batch. Resuming clears
 * the reason the circuit breaker paused it for. The move is one webhook event,
 * `batch.status_changed`, however many runs it moves (no event per run).
 */
export async function updateBatchStatus(scope: Scope, batchId: string, { status }: BatchStatusUpdate) {
  return scope.prisma.$transaction(async (tx) => {
    const locked = await lockBatch(tx, scope, batchId);
    const move = clientMove(locked.status, status);
    if (move) {
      await moveBatch(tx, scope.viewer.organizationId, batchId, move, status, null);
      await new Outbox().batchMoved(scope.viewer.organizationId, batchId, status).write(tx, new Date());
    }
    return tx.batch.findUniqueOrThrow({ where: rowKey(scope.viewer.organizationId, batchId) });
  });
}

/**
 * Changes a live batch's campaign settings. Runs put off by the old window or
 * retry delay are due again as the new settings say: the engine puts those
 * still outside the (new) window off again when it next looks at them.
 */
export async function updateBatchSettings(scope: Scope, batchId: string, data: BatchSettingsInput) {
  return scope.prisma.$transaction(async (tx) => {
    await lockBatch(tx, scope, batchId);
    const batch = await tx.batch.update({
      where: rowKey(scope.viewer.organizationId, batchId),
      data: settingsColumns(data),
    });
    if (data.calling_window !== undefined || data.retry !== undefined) {
      const delay = (batch.retry as { delay_seconds: number }).delay_seconds;
      await rescheduleWaitingRuns(tx, scope.viewer.organizationId, batchId, delay);
    }
    return batch;
  });
}

/**
 * Gives the batch's FAILED runs one more attempt each: back to PENDING (to
 * PAUSED in a paused batch), and a finished batch is PENDING again (its one
 * webhook event: `batch.status_changed`). 409 on a cancelled batch.
 */
export async function retryFailedRuns(scope: Scope, batchId: string) {
  return scope.prisma.$transaction(async (tx) => {
    const { status } = await lockBatch(tx, scope, batchId);
    if (status === 'CANCELLED') throw conflict('a CANCELLED batch cannot be retried', { current_status: status });
    const to = status === 'PAUSED' ? 'PAUSED' : 'PENDING';
    const count = await requeueFailedRuns(tx, scope.viewer.organizationId, batchId, to);
    await reopenBatch(tx, scope.viewer.organizationId, batchId, counterColumn.FAILED, counterColumn[to], count);
    if ((status === 'FINISHED' || status === 'FAILED') && count > 0) {
      await new Outbox().batchMoved(scope.viewer.organizationId, batchId, 'PENDING').write(tx, new Date());
    }
    return tx.batch.findUniqueOrThrow({ where: rowKey(scope.viewer.organizationId, batchId) });
  });
}
