import type { RunMonth } from '../parts/run-months.ts';
import type { SqlClient } from '../tx.ts';

/**
 * Creates a month's partitions of Run and RunAttempt (with the statistics
 * object the migration gives every Run partition: the planner reads a
 * partition's own when the claim scans it), unless they exist. The caller's
 * transaction holds them together. It fails (check_violation) when the default
 * partitions already hold rows of the month: those stay there.
 * Creating a partition takes its parent's ACCESS EXCLUSIVE lock: both parents
 * are locked first, in the engine's order (a run, then its attempts), as a
 * drop does (drop-run-partition.ts); one after the other, the attempts' lock
 * could wait on an engine transaction waiting on this one. lock_timeout bounds
 * how long the engine's statements queue behind it: on a timeout (55P03)
 * nothing is created.
 * Index: none; the new partitions get the parents' indexes.
 */
export async function createRunPartition(tx: SqlClient, month: RunMonth, lockTimeoutMs: number): Promise<void> {
  await tx.$queryRaw`SELECT set_config('lock_timeout', ${`${lockTimeoutMs}ms`}, true)`;
  await tx.$executeRawUnsafe(`LOCK TABLE "Run", "RunAttempt" IN ACCESS EXCLUSIVE MODE`);
  // DDL takes no parameters: the names and bounds are made by runMonth (digits only), never given by a caller.
  await tx.$executeRawUnsafe(
    `CREATE TABLE IF NOT EXISTS "${month.runs}" PARTITION OF "Run" FOR VALUES FROM ('${month.from}') TO ('${month.to}')`,
  );
  await tx.$executeRawUnsafe(
    `CREATE STATISTICS IF NOT EXISTS "${month.runs}_dependencies_stat" (dependencies)
     ON "batchId", "workflowVersionId", "workflowId", "organizationId" FROM "${month.runs}"`,
  );
  await tx.$executeRawUnsafe(
    `CREATE TABLE IF NOT EXISTS "${month.attempts}" PARTITION OF "RunAttempt" FOR VALUES FROM ('${month.from}') TO ('${month.to}')`,
  );
}
