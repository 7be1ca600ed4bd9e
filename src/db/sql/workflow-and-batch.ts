import { type Batch, Prisma } from '../../generated/prisma/client.ts';
import type { SqlQueryable } from '../database.ts';
import { selectRows } from '../select-rows.ts';

/**
 * Whether the organization has the workflow, and its batch row with that id
 * (null when it has none), in one statement: what the runs listing (GET /workflows/{workflow_id}/runs) checks before listing a
 * batch's runs. The batch row is read as rows-by-id.ts reads it (`b.*`, the
 * same columns parsed the same way), so it can stand for the batch loader's.
 * Index: "Workflow_pkey" and "Batch_pkey".
 */
export async function workflowAndBatch(
  sql: SqlQueryable,
  organizationId: string,
  workflowId: string,
  batchId: string,
): Promise<{ workflowFound: boolean; batch: Batch | null }> {
  const [row] = await selectRows<Batch & { workflow_found: boolean }>(
    sql,
    Prisma.sql`
      SELECT w.id IS NOT NULL AS workflow_found, b.* FROM (SELECT) AS one
      LEFT JOIN "Workflow" AS w ON w.id = ${workflowId} AND w."organizationId" = ${organizationId}
      LEFT JOIN "Batch" AS b ON b.id = ${batchId} AND b."organizationId" = ${organizationId}`,
  );
  const { workflow_found: workflowFound, ...batch } = row!;
  return { workflowFound, batch: batch.id === null ? null : batch };
}
