import type { RunMonth } from '../parts/run-months.ts';
import type { SqlClient } from '../tx.ts';

/**
 * Drops a month's partitions of RunAttempt and Run, in that order (the
 * attempts point at the runs; a detached partition keeps its foreign key), in
 * the caller's transaction. Detaching takes the parents' ACCESS EXCLUSIVE lock
 * for a moment: DETACH ... CONCURRENTLY would not, but PostgreSQL refuses it
 * while a default partition exists (docs/scaling.md#runs-partitioned-by-month).
 * lock_timeout bounds how long the engine's statements can queue behind it: on
 * a timeout (55P03) nothing is dropped, and the next pass tries again.
 * Index: none; detaching Run's partition checks that no attempt points at it,
 * by "RunAttempt_runId_number_organizationId_key".
 */
export async function dropRunPartition(tx: SqlClient, month: RunMonth, lockTimeoutMs: number): Promise<void> {
  await tx.$queryRaw`SELECT set_config('lock_timeout', ${`${lockTimeoutMs}ms`}, true)`;
  // Both parents at once, in the engine's order (a run, then its attempts): detaching the attempts'
  // partition first and then waiting for Run's lock would wait on the engine while it waits on us.
  await tx.$executeRawUnsafe(`LOCK TABLE "Run", "RunAttempt" IN ACCESS EXCLUSIVE MODE`);
  // DDL takes no parameters: the names are made by runMonth (digits only).
  await tx.$executeRawUnsafe(`ALTER TABLE "RunAttempt" DETACH PARTITION "${month.attempts}"`);
  await tx.$executeRawUnsafe(`DROP TABLE "${month.attempts}"`);
  await tx.$executeRawUnsafe(`ALTER TABLE "Run" DETACH PARTITION "${month.runs}"`);
  await tx.$executeRawUnsafe(`DROP TABLE "${month.runs}"`);
}
