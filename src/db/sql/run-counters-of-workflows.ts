import { Prisma } from '../../generated/prisma/client.ts';
import type { SqlQueryable } from '../database.ts';
import { quoteIdentifier } from '../parts/identifiers.ts';
import { selectRows } from '../select-rows.ts';

/**
 * The sums of the batches' run counter `columns` of each workflow (workflows
 * with no batch are absent).
 * Index: "Batch_workflowId_createdAt_id_idx", each workflow's range.
 */
export function runCountersOfWorkflows<Column extends string>(
  sql: SqlQueryable,
  columns: readonly Column[],
  organizationId: string,
  workflowIds: readonly string[],
) {
  const sums = Prisma.raw(
    columns.map((column) => `sum(b.${quoteIdentifier(column)}) AS ${quoteIdentifier(column)}`).join(', '),
  );
  return selectRows<{ workflowId: string } & Record<Column, string | number | bigint>>(
    sql,
    Prisma.sql`
      SELECT b."workflowId", ${sums}
      FROM "Batch" AS b WHERE b."workflowId" = ANY(${[...workflowIds]}::text[]) AND b."organizationId" = ${organizationId}
      GROUP BY 1`,
  );
}
