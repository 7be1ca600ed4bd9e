import { Prisma } from '../../generated/prisma/client.ts';
import { runProspect, workflowRun } from '../../records/workflows.ts';
import type { SqlQueryable } from '../database.ts';
import { runsOfBatchBound } from '../parts/batch-first-run.ts';
import { counterColumn, type ListedBatch } from '../parts/counter-columns.ts';
import type { SqlPart } from '../parts/sql-part.ts';
import { selectRows } from '../select-rows.ts';
import { shownRows } from './child-pages.ts';
import { RUN_COLUMNS } from './wire-runs-page.ts';

/** A page of the runs listing (GET /workflows/{workflow_id}/runs): the workflow's runs, or those of the batch the filter names. */
export interface RunsListingPage {
  workflowId: string;
  /** The batch the filter names, if any: its runs are listed when it is the workflow's. */
  batchId: string | undefined;
  /** Extra conditions on the runs `c` (AND-ed), or Prisma.empty. */
  where: SqlPart;
  orderBy: SqlPart;
  offset: number;
  limit: number;
}

export interface RunsListingRead {
  workflowFound: boolean;
  /** The batch with the id the filter names, of any workflow (null when the organization has none, or none is named). */
  batch: ListedBatch | null;
  /** The page's runs as wire-runs-page.ts writes them; empty when the workflow or its batch is not found. */
  items: string;
  /**
   * How many runs of the page have no prospect row: the joined prospect
   * would show as an object of nulls where wire-runs-page.ts writes null, so
   * the caller writes such a page with it instead.
   */
  prospectsMissing: number;
}

/**
 * Whether the organization has the workflow, the batch the filter names (its
 * workflow and counters: what the listing needs of it, not its whole row),
 * and the page of runs, in one statement: the runs listing's whole read when
 * its total comes from counters. The page is wire-runs-page.ts's text, with the workflow's
 * and the batch's names taken from their rows and the prospect from a join
 * instead of a subquery per run; it is read only when the workflow is found
 * and the batch named, if any, is the workflow's.
 * A batch's runs are read from its first run id on, so not in the months
 * before its own (batch-first-run.ts).
 * Index: "Workflow_pkey", "Batch_pkey", the list's (parent, order) index
 * (child-pages.ts names them), and "Prospect_pkey" for each run shown.
 */
// The run's row with and without the batch's name, and the batch's bound on its runs: the same
// text for every request, so made once.
const RUN_ROW = Prisma.raw(workflowRun.sqlRow('c', { workflow_name: 'w.name', prospect: runProspect.sqlRow('p') }));
const BATCH_RUN_ROW = Prisma.raw(
  workflowRun.sqlRow('c', { workflow_name: 'w.name', batch_name: 'b.name', prospect: runProspect.sqlRow('p') }),
);
const BATCH_BOUND = runsOfBatchBound('c', 'b');
const BATCH_OF_WORKFLOW = Prisma.sql`AND b."workflowId" = w.id`;
const BATCH_COUNTED = Prisma.raw(
  ['id', 'workflowId', ...Object.values(counterColumn)].map((column) => `b."${column}"`).join(', '),
);

export async function runsListingPage(
  sql: SqlQueryable,
  page: RunsListingPage,
  organizationId: string,
): Promise<RunsListingRead> {
  const { workflowId, batchId } = page;
  const shown = shownRows(
    {
      ...page,
      table: 'Run',
      parent: batchId ? 'batchId' : 'workflowId',
      columns: RUN_COLUMNS,
      // A batch's deep pages are bounded by its first run id (the row b below): the months before it are not read.
      pruning: batchId ? BATCH_BOUND : undefined,
    },
    organizationId,
    Prisma.sql`${batchId ?? workflowId}`,
  );
  const [row] = await selectRows<ListedBatch & { workflow_found: boolean; items: string; prospects_missing: number }>(
    sql,
    Prisma.sql`
      SELECT w.id IS NOT NULL AS workflow_found, ${BATCH_COUNTED}, page.items, page.prospects_missing FROM (SELECT) AS one
      LEFT JOIN "Workflow" AS w ON w.id = ${workflowId} AND w."organizationId" = ${organizationId}
      LEFT JOIN "Batch" AS b ON b.id = ${batchId ?? null} AND b."organizationId" = ${organizationId}
      CROSS JOIN LATERAL (
        SELECT coalesce(string_agg(row_to_json(${batchId ? BATCH_RUN_ROW : RUN_ROW})::text, ',' ORDER BY ${page.orderBy.sql}), '') AS items,
          (count(*) FILTER (WHERE p.id IS NULL))::int AS prospects_missing
        FROM (${shown}) AS c
        LEFT JOIN "Prospect" AS p ON p.id = c."prospectId" AND p."organizationId" = ${organizationId}
        WHERE w.id IS NOT NULL ${batchId ? BATCH_OF_WORKFLOW : Prisma.empty}
      ) AS page`,
  );
  const { workflow_found: workflowFound, items, prospects_missing: prospectsMissing, ...batch } = row!;
  return { workflowFound, batch: batch.id === null ? null : batch, items, prospectsMissing };
}
