import type { SqlClient } from '../tx.ts';

/** A run as a claim takes it. */
export interface DueRun {
  id: string;
  organizationId: string;
  batchId: string;
  workflowVersionId: string;
  prospectId: string;
  /** Call attempts made so far. */
  attempts: number;
  /** Call-backs granted so far. */
  callbacks: number;
  /** The step to resume at (a retried call), or null to start at the first. */
  currentStepId: string | null;
}

/** A due run with its prospect's columns. */
export interface DueRunRow extends DueRun {
  firstName: string;
  lastName: string;
  email: string;
  phone: string;
  timezone: string | null;
  attributes: Record<string, unknown>;
}

/**
 * Locks up to `limit` due PENDING runs of a batch, oldest due first, with
 * their prospects; runs another instance holds are skipped.
 * Index: an ordered walk of "Run_batchId_nextAttemptAt_id_idx", partial WHERE
 * status = 'PENDING' (prisma/migrations/…_campaign_batches): the walk stops at
 * the limit or at the first run not yet due.
 */
export function lockDueRuns(tx: SqlClient, organizationId: string, batchId: string, now: Date, limit: number) {
  return tx.$queryRaw<DueRunRow[]>`
    SELECT r.id, r."organizationId", r."batchId", r."workflowVersionId", r."prospectId", r.attempts, r.callbacks, r."currentStepId",
      p."firstName", p."lastName", p.email, p.phone, p.timezone, p.attributes
    FROM "Run" r JOIN "Prospect" p ON p.id = r."prospectId" AND p."organizationId" = r."organizationId"
    WHERE r."organizationId" = ${organizationId} AND r."batchId" = ${batchId} AND r.status = 'PENDING' AND r."nextAttemptAt" <= ${now}
    ORDER BY r."nextAttemptAt", r.id
    LIMIT ${limit}
    FOR UPDATE OF r SKIP LOCKED`;
}
