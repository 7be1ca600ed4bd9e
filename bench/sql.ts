// The raw baseline's hand-written SQL (bench/baseline-raw.ts serves it; the
// report EXPLAINs it beside the gateway's statements).

/**
 * What the dashboard with records (bench/queries.ts) reads of each run's
 * latest record: one subquery per run, on "CallRecord_runId_idx".
 */
const LAST_RECORD = `,
              'lastRecord', (
                SELECT json_build_object(
                  'summary', c.summary, 'sentiment', c.sentiment, 'disposition', c.disposition,
                  'detection', CASE WHEN c.detection IS NOT NULL
                                 THEN json_build_object('result', c.detection->'result', 'confidence', c.detection->'confidence') END)
                FROM "CallRecord" AS c WHERE c."runId" = r.id AND c."organizationId" = $2
                ORDER BY c."attemptNumber" DESC LIMIT 1
              )`;

/**
 * The dashboard: the workflow, its 20 newest batches with their counters, and
 * each batch's 50 latest runs with their prospect (and, `withRecords`, each
 * run's latest call record). Each LATERAL stops at its LIMIT on the (parent,
 * order) index.
 */
export const dashboardSql = (withRecords: boolean) => `
SELECT json_build_object('data', json_build_object('workflow', (
  SELECT json_build_object(
    'name', w.name, 'version', w.version,
    'batches', json_build_object(
      'totalCount', (SELECT count(*) FROM "Batch" AS cb WHERE cb."workflowId" = w.id AND cb."organizationId" = $2),
      'nodes', COALESCE((
        SELECT json_agg(json_build_object(
          'name', b.name, 'status', b.status,
          'stats', json_build_object('pendingCount', b."pendingCount", 'pausedCount', b."pausedCount",
                                     'finishedCount', b."finishedCount",
                                     'totalCount', b."pendingCount" + b."inProgressCount" + b."pausedCount" + b."finishedCount" + b."cancelledCount" + b."failedCount"),
          'runs', json_build_object('nodes', COALESCE((
            SELECT json_agg(json_build_object(
              'status', r.status, 'startedAt', r."startedAt",
              'prospect', json_build_object('firstName', p."firstName", 'lastName', p."lastName", 'phone', p.phone)${withRecords ? LAST_RECORD : ''}
            ) ORDER BY r."startedAt" DESC, r.id DESC)
            FROM (
              SELECT r.id, r.status, r."startedAt", r."prospectId" FROM "Run" AS r
              WHERE r."batchId" = b.id AND r."organizationId" = $2
              ORDER BY r."startedAt" DESC, r.id DESC LIMIT 50
            ) AS r JOIN "Prospect" AS p ON p.id = r."prospectId"
          ), '[]'::json))
        ) ORDER BY b."createdAt" DESC, b.id DESC)
        FROM (
          SELECT * FROM "Batch" AS b WHERE b."workflowId" = w.id AND b."organizationId" = $2
          ORDER BY b."createdAt" DESC, b.id DESC LIMIT 20
        ) AS b
      ), '[]'::json)
    )
  )
  FROM "Workflow" AS w WHERE w.id = $1 AND w."organizationId" = $2
)))::text AS body`;
export const DASHBOARD_SQL = dashboardSql(false);

/**
 * E6 filtered by batch and status, written as someone who knows the schema
 * would. A batch's runs share its workflow and organization, so those are
 * checked once, on the batch row (`scope`). The page is an index-only walk of
 * (batchId, status, startedAt DESC, id) to the offset, joined back to the
 * runs for the rows shown. The total is the batch's counter for that status
 * (the gateway keeps it equal to the runs, in the same transactions), or,
 * with `counting`, an index-only count(*) of the rows.
 */
/** The runs listing's sorts (src/db/parts/run-orders.ts), as the raw SQL writes them. */
export const RAW_RUN_ORDERS = {
  started_desc: 'r."startedAt" DESC, r.id DESC',
  started_asc: 'r."startedAt" ASC, r.id ASC',
  status_asc: 'r.status ASC, r."startedAt" DESC, r.id DESC',
  status_desc: 'r.status DESC, r."startedAt" DESC, r.id DESC',
} as const;
export type RawRunOrder = keyof typeof RAW_RUN_ORDERS;

export function runsSql(order: RawRunOrder, counting: boolean) {
  const orderBy = RAW_RUN_ORDERS[order];
  const total = counting
    ? `SELECT count(*) AS n FROM "Run" AS r
  WHERE r."batchId" = $2 AND r.status = $3::"RunStatus" AND EXISTS (SELECT FROM scope)`
    : `SELECT CASE $3::"RunStatus" WHEN 'PENDING' THEN "pendingCount" WHEN 'IN_PROGRESS' THEN "inProgressCount"
    WHEN 'PAUSED' THEN "pausedCount" WHEN 'FINISHED' THEN "finishedCount" WHEN 'CANCELLED' THEN "cancelledCount"
    ELSE "failedCount" END AS n
  FROM scope`;
  return `
WITH scope AS (
  SELECT b.id, b.name AS batch_name, w.name AS workflow_name, b."pendingCount", b."inProgressCount", b."pausedCount",
         b."finishedCount", b."cancelledCount", b."failedCount"
  FROM "Batch" AS b JOIN "Workflow" AS w ON w.id = b."workflowId"
  WHERE b.id = $2 AND b."workflowId" = $1 AND b."organizationId" = $6
), page AS (
  SELECT r.id FROM "Run" AS r
  WHERE r."batchId" = $2 AND r.status = $3::"RunStatus" AND EXISTS (SELECT FROM scope)
  ORDER BY ${orderBy}
  LIMIT $5 OFFSET ($4 - 1) * $5
)
SELECT json_build_object(
  'data', COALESCE((
    SELECT json_agg(json_build_object(
      'id', r.id, 'workflow_id', r."workflowId", 'workflow_name', scope.workflow_name,
      'workflow_version_id', r."workflowVersionId", 'batch_id', r."batchId", 'batch_name', scope.batch_name,
      'current_step_id', r."currentStepId", 'prospect_id', r."prospectId", 'started_at', r."startedAt",
      'ended_at', r."endedAt", 'status', r.status,
      'prospect', json_build_object('first_name', p."firstName", 'last_name', p."lastName", 'email', p.email, 'phone', p.phone)
    ) ORDER BY ${orderBy})
    FROM page JOIN "Run" AS r ON r.id = page.id JOIN "Prospect" AS p ON p.id = r."prospectId" CROSS JOIN scope
  ), '[]'::json),
  'pagination', json_build_object('page', $4::int, 'limit', $5::int, 'total', COALESCE(total.n, 0),
                                  'total_pages', ceil(COALESCE(total.n, 0) / $5::numeric)::int)
)::text AS body
FROM (SELECT 1) AS one LEFT JOIN (
  ${total}
) AS total ON true`;
}

export const RUNS_SQL = runsSql('started_desc', false);
export const RUNS_COUNTING_SQL = runsSql('started_desc', true);
