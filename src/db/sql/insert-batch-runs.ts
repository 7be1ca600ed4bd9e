import { Prisma } from '../../generated/prisma/client.ts';
import type { SqlClient } from '../tx.ts';

export interface BatchRuns {
  organizationId: string;
  workflowId: string;
  workflowVersionId: string;
  batchId: string;
  /** When the runs are first due. */
  dueAt: Date;
  prospectIds: string[];
  /** A prospect list whose members get a run too (each prospect once), or null. */
  listId: string | null;
}

/** How many runs were written, and their lowest id (null when none). */
export interface BatchRunsWritten {
  total: number;
  firstRunId: string | null;
}

/**
 * Writes one PENDING run per prospect in one INSERT … SELECT, whatever their
 * number; returns how many, and the lowest id written, which the batch
 * records (batch-first-run.ts: its runs are read from it on). The
 * runs' key to their prospect, ("prospectId", "organizationId"), refuses an
 * id that is not one of the organization's.
 * Index: the list's members on "ProspectListMember_pkey" ("listId", …); the
 * key's checks on "Prospect_pkey".
 */
export async function insertBatchRuns(tx: SqlClient, runs: BatchRuns): Promise<BatchRunsWritten> {
  const members = runs.listId
    ? Prisma.sql`UNION SELECT m."prospectId" FROM "ProspectListMember" m WHERE m."listId" = ${runs.listId} AND m."organizationId" = ${runs.organizationId}`
    : Prisma.empty;
  const [written] = await tx.$queryRaw<{ total: number; first: string | null }[]>`
    WITH written AS (
      INSERT INTO "Run" ("organizationId", "workflowId", "workflowVersionId", "batchId", "prospectId", "updatedAt", "nextAttemptAt")
      SELECT ${runs.organizationId}, ${runs.workflowId}, ${runs.workflowVersionId}, ${runs.batchId}, source.id, now(), ${runs.dueAt}::timestamptz
      FROM (SELECT unnest(${runs.prospectIds}::text[]) AS id ${members}) AS source
      RETURNING id
    )
    SELECT count(*)::int AS total, min(id) AS first FROM written`;
  return { total: written!.total, firstRunId: written!.first };
}
