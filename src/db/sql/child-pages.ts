import { Prisma } from '../../generated/prisma/client.ts';
import type { SqlQueryable } from '../database.ts';
import { columnList, identifier } from '../parts/identifiers.ts';
import type { SqlPart } from '../parts/sql-part.ts';
import { selectRows } from '../select-rows.ts';

/** A related row carried inside each row of a page under `name` (a run's prospect): its table, the column naming it. */
interface EmbeddedRow {
  name: string;
  table: string;
  column: string;
  /** The columns to read; every column when null. */
  columns: readonly string[] | null;
}

/** One page of a child table's rows under each of many parents. */
export interface ChildPage {
  table: string;
  /** The child's column naming its parent. */
  parent: string;
  /** Extra conditions on the child rows `c` (AND-ed), or Prisma.empty. */
  where: SqlPart;
  orderBy: SqlPart;
  offset: number;
  limit: number;
  /** The columns to read (with those the order uses); every column when null or absent. */
  columns?: readonly string[] | null;
  embeds: EmbeddedRow[];
}

/** What `shownRows` reads of a page: the list, its conditions and order, the window, the columns. */
type ShownPage = Pick<ChildPage, 'table' | 'parent' | 'where' | 'orderBy' | 'offset' | 'limit' | 'columns'> & {
  /**
   * A condition that only leaves out partitions holding none of the rows (a
   * batch's bound on its run ids, batch-first-run.ts), AND-ed where a deep
   * page walks the index to its offset and where it reads the rows shown.
   * Not on a first page: the planner, which does not know the bound's value,
   * estimates it keeps a third of the rows, and below the page's LIMIT it
   * reads and sorts all of the parent's rows instead of walking its index to
   * the LIMIT (a campaign's dashboard of 500-run batches used 3.7 times the
   * raw statement's PostgreSQL CPU on a 100,000-run dataset).
   */
  pruning?: Prisma.Sql;
};

/**
 * The rows of one page under the parent `parentId` (SQL: a column or a
 * parameter), in no order: the caller orders what it makes of them. The
 * indexes it walks are childPages' (below).
 */
export function shownRows(page: ShownPage, organizationId: string, parentId: Prisma.Sql) {
  const table = identifier(page.table);
  const parent = identifier(page.parent);
  return page.offset === 0
    ? Prisma.sql`
          SELECT ${columnList('c', page.columns)} FROM ${table} AS c
          WHERE c.${parent} = ${parentId} AND c."organizationId" = ${organizationId} ${page.where.sql}
          ORDER BY ${page.orderBy.sql}
          LIMIT ${page.limit}`
    : // A deep page walks the (parent, order) index alone to its offset, reading
      // no row it skips, then reads the rows shown. Children share their
      // parent's organization; it is checked on every row returned all the same.
      Prisma.sql`
          SELECT ${columnList('c', page.columns)} FROM (
            SELECT c.id FROM ${table} AS c
            WHERE c.${parent} = ${parentId} ${page.where.sql} ${page.pruning ?? Prisma.empty}
            ORDER BY ${page.orderBy.sql}
            LIMIT ${page.limit} OFFSET ${page.offset}
          ) AS shown JOIN ${table} AS c ON c.id = shown.id
          WHERE c."organizationId" = ${organizationId} ${page.pruning ?? Prisma.empty}`;
}

/**
 * The page of each parent as one JSON array, built by PostgreSQL, in one
 * statement for every parent: one LATERAL subquery per parent, each stopping
 * at its LIMIT. Embedded rows are looked up after the LIMIT, for the rows
 * returned only.
 * Index: the (parent, order) index of the list: "Run_workflowId_startedAt_id_idx",
 * "Run_batchId_startedAt_id_idx", "Run_prospectId_startedAt_idx" (with their
 * status variants, "Run_workflowId_status_startedAt_id_idx" and
 * "Run_batchId_status_startedAt_id_idx", when the status is filtered),
 * "Batch_workflowId_createdAt_id_idx", "WorkflowVersion_workflowId_version_organizationId_key",
 * "Evaluation_agentId_createdAt_idx"; embedded rows on their primary key.
 */
export function childPages(sql: SqlQueryable, page: ChildPage, organizationId: string, parentIds: string[]) {
  const embedded = page.embeds.map(
    ({ name, table: embeddedTable, column, columns }) => Prisma.sql`, (SELECT to_json(e) FROM (
          SELECT ${columnList('e', columns)} FROM ${identifier(embeddedTable)} AS e WHERE e.id = c.${identifier(column)} AND e."organizationId" = ${organizationId}
        ) AS e) AS ${identifier(name)}`,
  );
  return selectRows<{ parent: string; rows: Record<string, unknown>[] | null }>(
    sql,
    Prisma.sql`
      SELECT parent.id AS parent, page.rows FROM unnest(${parentIds}::text[]) AS parent(id)
      CROSS JOIN LATERAL (
        SELECT json_agg(to_json(c) ORDER BY ${page.orderBy.sql}) AS rows FROM (
          SELECT c.* ${embedded.length ? Prisma.join(embedded, ' ') : Prisma.empty} FROM (${shownRows(page, organizationId, Prisma.sql`parent.id`)}
          ) AS c
        ) AS c
      ) AS page`,
  );
}
