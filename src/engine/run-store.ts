// The run engine's moves, each one transaction that changes runs and the
// counters of their batches together, so `stats` always equals the runs'
// statuses, whatever else runs concurrently. Runs are claimed with FOR UPDATE
// SKIP LOCKED, so any number of instances share the work and none takes a run
// another holds. Every move of a run out of IN_PROGRESS is guarded by the
// lease: an instance whose lease was taken back changes nothing.
import type { PrismaClient } from '../generated/prisma/client.ts';
import { Prisma } from '../generated/prisma/client.ts';
import { counterColumn } from '../domain/batch-state.ts';
import type { RunStatusName } from '../domain/runs.ts';

type Tx = Parameters<Parameters<PrismaClient['$transaction']>[0]>[0];

export interface ClaimedRun {
  id: string;
  organizationId: string;
  batchId: string;
  workflowVersionId: string;
  prospectId: string;
  attempts: number;
}

const column = (status: RunStatusName) => Prisma.raw(`"${counterColumn[status]}"`);

/** Moves `count` runs of a batch from one status counter to another. */
function moveCounters(tx: Tx, batchId: string, from: RunStatusName, to: RunStatusName, count: number) {
  return tx.$executeRaw`
    UPDATE "Batch" SET ${column(from)} = ${column(from)} - ${count}, ${column(to)} = ${column(to)} + ${count}, "updatedAt" = now()
    WHERE id = ${batchId}`;
}

/**
 * Batches whose every run is final move to FINISHED, or FAILED when every
 * run failed; a client's CANCELLED stays. Returns the batches that moved.
 */
async function completeBatches(tx: Tx, batchIds: string[]): Promise<string[]> {
  if (batchIds.length === 0) return [];
  const rows = await tx.$queryRaw<{ id: string }[]>`
    UPDATE "Batch" SET status = (CASE WHEN "failedCount" = "totalProspects" THEN 'FAILED' ELSE 'FINISHED' END)::"BatchStatus",
      "updatedAt" = now()
    WHERE id = ANY(${batchIds}::text[]) AND status IN ('PENDING', 'IN_PROGRESS', 'PAUSED')
      AND "pendingCount" + "inProgressCount" + "pausedCount" = 0
    RETURNING id`;
  return rows.map((row) => row.id);
}

export class RunStore {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly owner: string,
    private readonly leaseMs: number,
  ) {}

  /**
   * Takes up to `limit` PENDING runs of due batches (PENDING or IN_PROGRESS,
   * scheduled_at passed), oldest first, moving them to IN_PROGRESS under this
   * instance's lease and their batches to IN_PROGRESS.
   */
  claim(limit: number): Promise<ClaimedRun[]> {
    return this.prisma.$transaction(async (tx) => {
      // An ordered walk of "Run_createdAt_id_idx", partial WHERE status = 'PENDING'
      // (prisma/migrations/20261121074812_run_write_cost): the condition and the
      // order below are the index's, so the walk stops at the limit, sorting nothing.
      const claimed = await tx.$queryRaw<ClaimedRun[]>`
        WITH claimable AS (
          SELECT r.id FROM "Run" r JOIN "Batch" b ON b.id = r."batchId"
          WHERE r.status = 'PENDING' AND b.status IN ('PENDING', 'IN_PROGRESS')
            AND (b."scheduledAt" IS NULL OR b."scheduledAt" <= now())
          ORDER BY r."createdAt", r.id
          LIMIT ${limit}
          FOR UPDATE OF r SKIP LOCKED
        )
        UPDATE "Run" r SET status = 'IN_PROGRESS', "startedAt" = now(), "updatedAt" = now(), "leaseOwner" = ${this.owner},
          "leaseExpiresAt" = now() + ${this.leaseMs} * interval '1 millisecond', attempts = r.attempts + 1
        FROM claimable WHERE r.id = claimable.id
        RETURNING r.id, r."organizationId", r."batchId", r."workflowVersionId", r."prospectId", r.attempts`;
      const perBatch = new Map<string, number>();
      for (const run of claimed) perBatch.set(run.batchId, (perBatch.get(run.batchId) ?? 0) + 1);
      for (const [batchId, count] of perBatch) {
        await tx.$executeRaw`
          UPDATE "Batch" SET "pendingCount" = "pendingCount" - ${count}, "inProgressCount" = "inProgressCount" + ${count},
            status = (CASE WHEN status = 'PENDING' THEN 'IN_PROGRESS' ELSE status::text END)::"BatchStatus", "updatedAt" = now()
          WHERE id = ${batchId}`;
      }
      return claimed;
    });
  }

  /** Records the step a run is at; false when the run is no longer this instance's. */
  async atStep(runId: string, stepId: string): Promise<boolean> {
    const count = await this.prisma.$executeRaw`
      UPDATE "Run" SET "currentStepId" = ${stepId}, "updatedAt" = now()
      WHERE id = ${runId} AND status = 'IN_PROGRESS' AND "leaseOwner" = ${this.owner}`;
    return count === 1;
  }

  /** Extends this instance's leases on the runs it holds. */
  renewLeases(runIds: string[]) {
    if (runIds.length === 0) return Promise.resolve(0);
    return this.prisma.$executeRaw`
      UPDATE "Run" SET "leaseExpiresAt" = now() + ${this.leaseMs} * interval '1 millisecond'
      WHERE id = ANY(${runIds}::text[]) AND status = 'IN_PROGRESS' AND "leaseOwner" = ${this.owner}`;
  }

  /** Ends a run FINISHED or FAILED; returns the batch ids that changed (none if the lease was lost). */
  finish(run: ClaimedRun, outcome: 'FINISHED' | 'FAILED', error: string | null): Promise<string[]> {
    return this.prisma.$transaction(async (tx) => {
      const ended = await tx.$executeRaw`
        UPDATE "Run" SET status = ${outcome}::"RunStatus", "endedAt" = now(), "updatedAt" = now(), error = ${error},
          "leaseOwner" = NULL, "leaseExpiresAt" = NULL, "trunkId" = NULL
        WHERE id = ${run.id} AND status = 'IN_PROGRESS' AND "leaseOwner" = ${this.owner}`;
      if (ended === 0) return [];
      await moveCounters(tx, run.batchId, 'IN_PROGRESS', outcome, 1);
      await completeBatches(tx, [run.batchId]);
      return [run.batchId];
    });
  }

  /**
   * Hands runs back (shutdown, or a lease lost to a crash): to PENDING, or
   * to PAUSED / CANCELLED when their batch was paused or cancelled meanwhile;
   * a run that used up its attempts FAILS instead. `onlyExpired` takes back
   * any instance's runs whose lease ran out; otherwise this instance's `runIds`.
   */
  release(select: { expiredBefore: 'now' } | { runIds: string[] }, maxAttempts: number): Promise<string[]> {
    return this.prisma.$transaction(async (tx) => {
      // Expired leases: "Run_leaseExpiresAt_idx", partial WHERE status = 'IN_PROGRESS'.
      const condition =
        'runIds' in select
          ? Prisma.sql`r.id = ANY(${select.runIds}::text[]) AND r."leaseOwner" = ${this.owner}`
          : Prisma.sql`r."leaseExpiresAt" < now()`;
      const runs = await tx.$queryRaw<{ id: string; batchId: string; attempts: number; batchStatus: string }[]>`
        SELECT r.id, r."batchId", r.attempts, b.status::text AS "batchStatus"
        FROM "Run" r JOIN "Batch" b ON b.id = r."batchId"
        WHERE r.status = 'IN_PROGRESS' AND ${condition}
        ORDER BY r.id LIMIT 500
        FOR UPDATE OF r SKIP LOCKED`;
      const moves = new Map<string, { batchId: string; to: RunStatusName; ids: string[] }>();
      for (const run of runs) {
        const to: RunStatusName =
          run.attempts >= maxAttempts
            ? 'FAILED'
            : run.batchStatus === 'PAUSED'
              ? 'PAUSED'
              : run.batchStatus === 'CANCELLED'
                ? 'CANCELLED'
                : 'PENDING';
        const key = `${run.batchId}|${to}`;
        const move = moves.get(key) ?? { batchId: run.batchId, to, ids: [] };
        move.ids.push(run.id);
        moves.set(key, move);
      }
      for (const { batchId, to, ids } of moves.values()) {
        const final = to === 'FAILED' || to === 'CANCELLED';
        await tx.$executeRaw`
          UPDATE "Run" SET status = ${to}::"RunStatus", "updatedAt" = now(), "leaseOwner" = NULL, "leaseExpiresAt" = NULL,
            "trunkId" = NULL, "currentStepId" = CASE WHEN ${final} THEN "currentStepId" ELSE NULL END,
            "startedAt" = CASE WHEN ${final} THEN "startedAt" ELSE NULL END,
            "endedAt" = CASE WHEN ${final} THEN now() ELSE NULL END,
            error = CASE WHEN ${to === 'FAILED'} THEN 'gave up after ' || attempts || ' attempts' ELSE error END
          WHERE id = ANY(${ids}::text[])`;
        await moveCounters(tx, batchId, 'IN_PROGRESS', to, ids.length);
      }
      const batchIds = [...new Set(runs.map((run) => run.batchId))];
      await completeBatches(tx, batchIds);
      return batchIds;
    });
  }

  /**
   * Takes a slot of an outbound trunk for a run's call, if the trunk has one
   * free: the calls holding its slots, on every instance, stay within its
   * max_concurrency. False when the trunk is full; null when it is not the
   * run organization's outbound trunk.
   */
  takeTrunkSlot(run: ClaimedRun, trunkId: string): Promise<boolean | null> {
    return this.prisma.$transaction(async (tx) => {
      // One taker per trunk at a time, across instances, for the count-then-take below.
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`trunk:${trunkId}`}))`;
      const [trunk] = await tx.$queryRaw<{ maxConcurrency: number }[]>`
        SELECT "maxConcurrency" FROM "SipTrunk"
        WHERE id = ${trunkId} AND "organizationId" = ${run.organizationId} AND direction = 'outbound'`;
      if (!trunk) return null;
      // Index-only on "Run_trunkId_status_idx", partial WHERE "trunkId" IS NOT NULL (implied by the =).
      const [busy] = await tx.$queryRaw<{ count: number }[]>`
        SELECT count(*)::int AS count FROM "Run" WHERE "trunkId" = ${trunkId} AND status = 'IN_PROGRESS'`;
      if (busy!.count >= trunk.maxConcurrency) return false;
      const taken = await tx.$executeRaw`
        UPDATE "Run" SET "trunkId" = ${trunkId} WHERE id = ${run.id} AND status = 'IN_PROGRESS' AND "leaseOwner" = ${this.owner}`;
      return taken === 1;
    });
  }

  releaseTrunkSlot(runId: string) {
    return this.prisma.$executeRaw`UPDATE "Run" SET "trunkId" = NULL WHERE id = ${runId} AND "leaseOwner" = ${this.owner}`;
  }

  definitionOf(workflowVersionId: string) {
    return this.prisma.workflowVersion.findUnique({ where: { id: workflowVersionId }, select: { definition: true } });
  }
}
