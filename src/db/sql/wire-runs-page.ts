import { Prisma } from '../../generated/prisma/client.ts';
import type { SqlQueryable } from '../database.ts';
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

/** The columns a run's item reads of its row (the order reads startedAt, id and status, all among them). */
const RUN_COLUMNS = [
  'id',
  'workflowId',
  'workflowVersionId',
  'batchId',
  'currentStepId',
  'prospectId',
  'startedAt',
  'endedAt',
  'status',
];

/** An instant as JSON.stringify writes a JavaScript Date: RFC 3339 UTC with milliseconds (DECISIONS.md). */
const instant = (column: string) =>
  Prisma.raw(`to_char(c."${column}" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`);

/**
 * A page of runs as the text of E6's `data` members, comma-separated (empty
 * for no run): each run the JSON text JSON.stringify makes of SPEC.md's
 * WorkflowRun (src/rest/resources/workflows.ts, `runSchema`), members in that
 * order, written by PostgreSQL so that Node.js neither parses nor walks it.
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
      SELECT coalesce(string_agg(row_to_json(item)::text, ',' ORDER BY ${page.orderBy.sql}), '') AS items
      FROM (${shown}) AS c
      CROSS JOIN LATERAL (
        SELECT c.id, c."workflowId" AS workflow_id,
          (SELECT w.name FROM "Workflow" AS w WHERE w.id = c."workflowId" AND w."organizationId" = ${organizationId}) AS workflow_name,
          c."workflowVersionId" AS workflow_version_id, c."batchId" AS batch_id,
          (SELECT b.name FROM "Batch" AS b WHERE b.id = c."batchId" AND b."organizationId" = ${organizationId}) AS batch_name,
          c."currentStepId" AS current_step_id, c."prospectId" AS prospect_id,
          ${instant('startedAt')} AS started_at, ${instant('endedAt')} AS ended_at, c.status,
          (SELECT p FROM (
            SELECT p."firstName" AS first_name, p."lastName" AS last_name, p.email, p.phone
            FROM "Prospect" AS p WHERE p.id = c."prospectId" AND p."organizationId" = ${organizationId}
          ) AS p) AS prospect
      ) AS item`,
  );
  return row!.items;
}
