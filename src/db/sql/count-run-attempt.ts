import type { SqlClient } from '../tx.ts';

/**
 * Counts attempt `number` on the run, while it is `owner`'s and that attempt
 * is the next one; 0 when not (lost, or counted already).
 * Index: "Run_pkey".
 */
export function countRunAttempt(tx: SqlClient, runId: string, number: number, owner: string, now: Date) {
  return tx.$executeRaw`
    UPDATE "Run" SET attempts = ${number}, "updatedAt" = ${now}
    WHERE id = ${runId} AND status = 'IN_PROGRESS' AND "leaseOwner" = ${owner} AND attempts = ${number - 1}`;
}
