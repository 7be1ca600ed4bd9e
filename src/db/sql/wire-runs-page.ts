import { Prisma } from '../../generated/prisma/client.ts';
import { workflowRun } from '../../records/workflows.ts';
import type { SqlQueryable } from '../database.ts';
import { RUN_ORDER_COLUMNS } from '../parts/run-orders.ts';
import type { SqlPart } from '../parts/sql-part.ts';
import { selectRows } from '../select-rows.ts';
import { shownRows } from './child-pages.ts';

/** One page of the runs under a workflow or a batch. */
export interface RunsPage {
  parent: 'workflowId' | 'batchId';
  parentId: string;
  /** Extra conditions on the runs `c` (AND-ed), or Prisma.empty. */
  where: SqlPart;
  orderBy: SqlPart;
  offset: number;
  limit: number;
}

/** The columns of a run's row its record and the page's orders read. */
export const RUN_COLUMNS = [...new Set([...workflowRun.columns, ...RUN_ORDER_COLUMNS])];

/**
 * A page of runs as the text of the runs listing's `data` members, comma-separated (empty
 * for no run): each run the JSON text JSON.stringify makes of its record
 * (src/records/workflows.ts, `workflowRun`), members in their declared order,
 * written by PostgreSQL so that Node.js neither parses nor walks it.
 * row_to_json escapes strings as JSON.stringify does (the two-character
 * escapes, other control characters as \u00xx), and writes no spaces.
 * Index: the list's (parent, order) index (child-pages.ts names them); the
 * workflow, batch and prospect of each run on their primary keys.
 */
export async function wireRunsPage(sql: SqlQueryable, page: RunsPage, organizationId: string): Promise<string> {
  const shown = shownRows(
    { ...page, table: 'Run', columns: RUN_COLUMNS },
    organizationId,
    Prisma.sql`${page.parentId}`,
  );
  const [row] = await selectRows<{ items: string }>(
    sql,
    Prisma.sql`
      SELECT coalesce(string_agg(row_to_json(${Prisma.raw(workflowRun.sqlRow('c'))})::text, ',' ORDER BY ${page.orderBy.sql}), '') AS items
      FROM (${shown}) AS c`,
  );
  return row!.items;
}
