// Batches: one run per prospect, created all at once or not at all, and the
// client's status moves (pause, resume, cancel) with their effect on runs.
import { z } from 'zod';
import { Prisma } from '../generated/prisma/client.ts';
import { type ClientBatchStatus, clientBatchStatuses, clientMove, counterColumn } from './batch-state.ts';
import { badInput, conflict, notFound } from './errors.ts';
import { limits } from './limits.ts';
import { actorOf, type Scope } from './scope.ts';
import { parseOrThrow } from './validation.ts';

export const batchCreate = z
  .strictObject({
    name: z.string().min(1).max(200).optional(),
    prospect_ids: z.array(z.string()).max(limits.batchProspects).optional(),
    prospect_list_id: z.string().optional(),
    scheduled_at: z.iso
      .datetime({ offset: true })
      .optional()
      .meta({ description: 'RFC 3339; runs wait until then' }),
  })
  .meta({ id: 'BatchCreate' });

export const batchStatusUpdate = z
  .strictObject({ status: z.enum(clientBatchStatuses) })
  .meta({ id: 'BatchStatusUpdate' });

function sourceTypeOf(hasIds: boolean, hasList: boolean) {
  if (hasIds && hasList) return 'mixed';
  return hasList ? 'prospect_list' : 'prospect_ids';
}

/** Up to 20 of `ids` that are not prospects of the organization. */
function unknownProspects(scope: Scope, ids: string[]) {
  return scope.prisma.$queryRaw<{ id: string }[]>(Prisma.sql`
    SELECT given.id FROM unnest(${ids}::text[]) AS given(id)
    WHERE NOT EXISTS (SELECT 1 FROM "Prospect" p WHERE p.id = given.id AND p."organizationId" = ${scope.viewer.organizationId})
    LIMIT 20`);
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
export async function createBatch(scope: Scope, workflowId: string, input: unknown) {
  const data = parseOrThrow(batchCreate, input);
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
        const workflow = await tx.workflow.findUnique({ where: { id: workflowId } });
        if (!workflow) throw notFound('workflow');
        if (!workflow.isActive) throw conflict('the workflow is inactive: activate it before creating a batch');
        const version = await tx.workflowVersion.findFirstOrThrow({ where: { workflowId, version: workflow.version } });
        if (listId && !(await tx.prospectList.findUnique({ where: { id: listId }, select: { id: true } }))) {
          throw badInput([{ path: 'prospect_list_id', rule: 'exists', message: `prospect list ${listId} does not exist` }]);
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
          },
        });
        const members = listId
          ? Prisma.sql`UNION SELECT m."prospectId" FROM "ProspectListMember" m WHERE m."listId" = ${listId}`
          : Prisma.empty;
        let total: number;
        try {
          total = await tx.$executeRaw(Prisma.sql`
            INSERT INTO "Run" ("organizationId", "workflowId", "workflowVersionId", "batchId", "prospectId", "updatedAt")
            SELECT ${organizationId}, ${workflowId}, ${version.id}, ${batch.id}, source.id, now()
            FROM (SELECT unnest(${prospectIds}::text[]) AS id ${members}) AS source`);
        } catch (error) {
          insertFailed = true;
          throw error;
        }
        if (total === 0) {
          throw badInput([{ path: 'prospect_list_id', rule: 'non-empty', message: 'the prospect list has no prospects' }]);
        }
        return tx.batch.update({ where: { id: batch.id }, data: { totalProspects: total, pendingCount: total } });
      },
      { timeout: 120_000, maxWait: 10_000 }, // 100,000 runs
    );
  } catch (error) {
    // Rolled back by now: name the ids the key refused, if that is what failed.
    const unknown = insertFailed && prospectIds.length > 0 ? await unknownProspects(scope, prospectIds) : [];
    if (unknown.length > 0) {
      throw badInput(
        unknown.map(({ id }) => ({ path: 'prospect_ids', rule: 'exists', message: `prospect ${id} does not exist` })),
      );
    }
    throw error;
  }
}

/**
 * A client's status move: PAUSED, PENDING (resume) or CANCELLED. The batch row
 * is locked for the move, its runs change status in the same transaction and
 * the counters move by exactly the rows changed, so `stats` stays equal to the
 * runs' statuses even while the run engine works on the batch.
 */
export async function updateBatchStatus(scope: Scope, batchId: string, input: unknown) {
  const { status } = parseOrThrow(batchStatusUpdate, input);
  return scope.prisma.$transaction(async (tx) => {
    const [locked] = await tx.$queryRaw<{ status: string }[]>(Prisma.sql`
      SELECT status FROM "Batch" WHERE id = ${batchId} AND "organizationId" = ${scope.viewer.organizationId} FOR UPDATE`);
    if (!locked) throw notFound('batch');
    const move = clientMove(locked.status as ClientBatchStatus, status);
    if (!move) return tx.batch.findUniqueOrThrow({ where: { id: batchId } });
    const now = new Date();
    const counters: Record<string, { increment: number } | { decrement: number }> = {};
    let moved = 0;
    for (const from of move.from) {
      const { count } = await tx.run.updateMany({
        where: { batchId, status: from },
        data: { status: move.to, ...(move.to === 'CANCELLED' ? { endedAt: now } : {}) },
      });
      counters[counterColumn[from]] = { decrement: count };
      moved += count;
    }
    counters[counterColumn[move.to]] = { increment: moved };
    return tx.batch.update({ where: { id: batchId }, data: { status, ...counters } });
  });
}
