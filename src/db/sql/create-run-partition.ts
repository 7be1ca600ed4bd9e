import type { RunMonth } from '../parts/run-months.ts';
import type { SqlClient } from '../tx.ts';

/**
 * Creates a month's partitions of Run and RunAttempt (with the statistics
 * object the migration gives every Run partition: the planner reads a
 * partition's own when the claim scans it), unless they exist. The caller's
 * transaction holds them together. It fails (check_violation) when the default
 * partitions already hold rows of the month: those stay there.
 * Index: none; the new partitions get the parents' indexes.
 */
export async function createRunPartition(tx: SqlClient, month: RunMonth): Promise<void> {
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
