// Seeds the benchmark database in bulk: a handful of INSERT … SELECT over
// generate_series, never row by row. Ids follow the gateway's format (type
// prefix and 32 hex digits) but are md5 of the row's number, so the seed can
// refer to rows it made without reading them back.
//
//   100,000 prospects
//   10 workflows, each at version 1
//   1,000 batches, 100 per workflow, one an hour (batch 1,000 the newest)
//   1,000,000 runs: batch 1,000 (workflow 10) has 100,000 (one per prospect,
//     as E4 makes), the other 999 batches about 900 each
//   a campaign: workflow 11, its 20 batches just created, 500 pending runs
//     each (10,000 more runs, none started: a dashboard of pending runs)
//   a fresh batch: workflow 2, one batch of pending runs (a 40th of the runs)
//     inserted after VACUUM ANALYZE, as E4 leaves a batch until autovacuum
//     comes: the planner has no statistics of it yet
//   call records: every started run of workflow 1 (the dashboard's) has one
//     attempt and its record (a summary, a disposition, a detection, a
//     sentiment, four turns), for the dashboard with records
//
// Batch states: the 40 newest and batch 1,000 are in progress (60% finished,
// 8% failed, 1% in progress, the rest pending), one in 25 of the others is
// paused (40% finished, 5% failed, the rest paused), the rest are finished
// (85% finished, 10% failed, 5% cancelled). Each batch's counters are set
// from its runs, as the gateway keeps them.
import type pg from 'pg';

export const SEED = {
  prospects: Number(process.env.BENCH_SEED_PROSPECTS ?? 100_000),
  runs: Number(process.env.BENCH_SEED_RUNS ?? 1_000_000),
  batches: 1000,
  workflows: 10,
};

export interface Seeded {
  /** Workflow 1: its 20 newest batches (about 900 runs each) make the dashboard. */
  dashboardWorkflowId: string;
  /** Workflow 10 and its big batch (100,000 runs): E6's filter. */
  bigWorkflowId: string;
  bigBatchId: string;
  /** Workflow 11: 20 batches of 500 pending runs. */
  campaignWorkflowId: string;
  /** Batch 999 (workflow 9), in progress: about 900 runs, a third of them pending. */
  smallBatchId: string;
  smallWorkflowId: string;
  /** Workflow 2: E4 creates its batches there. */
  e4WorkflowId: string;
  /** Workflow 2's newest batch, of pending runs inserted after the statistics were taken. */
  freshBatchId: string;
  counts: Record<string, number>;
  seconds: number;
}

const idOf = (prefix: string, kind: string, n: string) => `'${prefix}_' || md5('bench-${kind}-' || ${n})`;

export async function seed(
  client: pg.ClientBase,
  organizationId: string,
  apiKeyId: string,
  log: (line: string) => void,
): Promise<Seeded> {
  const started = performance.now();
  const { prospects, runs, batches, workflows } = SEED;
  const bigBatch = batches;
  const bigRuns = Math.min(prospects, runs);
  const step = async (label: string, sql: string, params: unknown[] = []) => {
    const at = performance.now();
    const result = await client.query(sql, params);
    log(
      `  ${label}: ${((performance.now() - at) / 1000).toFixed(1)} s${result.rowCount ? ` (${result.rowCount.toLocaleString('en')} rows)` : ''}`,
    );
  };
  // The rows are consistent by construction: skip the foreign-key triggers
  // while loading (the checks would cost more than the inserts).
  await client.query(`SET session_replication_role = replica`);
  await client.query(`SET maintenance_work_mem = '256MB'`);

  await step(
    'prospects',
    `INSERT INTO "Prospect" (id, "organizationId", "firstName", "lastName", email, phone, "createdAt", "updatedAt")
     SELECT 'prs_' || md5('bench-prospect-' || n), $1, 'First' || n, 'Last' || n, 'prospect' || n || '@example.com',
            '+1415' || lpad(n::text, 7, '0'), now() - make_interval(secs => n), now() - make_interval(secs => n)
     FROM generate_series(1, $2::int) AS n`,
    [organizationId, prospects],
  );
  await step(
    'workflows',
    `INSERT INTO "Workflow" (id, "organizationId", name, version, "createdAt", "updatedAt", "publishedAt")
     SELECT ${idOf('wf', 'workflow', 'w')}, $1, 'Workflow ' || w, 1, now() - interval '60 days', now(), now() - interval '60 days'
     FROM generate_series(1, $2::int) AS w`,
    [organizationId, workflows],
  );
  await step(
    'workflow versions',
    `INSERT INTO "WorkflowVersion" (id, "organizationId", "workflowId", version, definition, "createdBy", "createdAt")
     SELECT ${idOf('wfv', 'version', 'w')}, $1, ${idOf('wf', 'workflow', 'w')}, 1,
            '{"steps":[{"id":"dial","type":"call"}]}'::jsonb, $3, now() - interval '60 days'
     FROM generate_series(1, $2::int) AS w`,
    [organizationId, workflows, apiKeyId],
  );
  // A batch's kind: 'active' (in progress), 'paused' or 'done'.
  const kind = (b: string) =>
    `CASE WHEN ${b} = ${bigBatch} OR ${b} > ${batches - 40} THEN 'active' WHEN ${b} % 25 = 0 THEN 'paused' ELSE 'done' END`;
  const workflowOf = (b: string) => `((${b} - 1) % ${workflows}) + 1`;
  const batchCreatedAt = (b: string) => `(now() - make_interval(hours => ${batches} - ${b} + 2))`;
  await step(
    'batches',
    `INSERT INTO "Batch" (id, "organizationId", "workflowId", "workflowVersionId", name, "sourceType", "createdBy", status, "createdAt", "updatedAt")
     SELECT ${idOf('bat', 'batch', 'b')}, $1, ${idOf('wf', 'workflow', workflowOf('b'))}, ${idOf('wfv', 'version', workflowOf('b'))},
            'Batch ' || b, 'prospect_ids', $3,
            (CASE ${kind('b')} WHEN 'active' THEN 'IN_PROGRESS' WHEN 'paused' THEN 'PAUSED' ELSE 'FINISHED' END)::"BatchStatus",
            ${batchCreatedAt('b')}, ${batchCreatedAt('b')}
     FROM generate_series(1, $2::int) AS b`,
    [organizationId, batches, apiKeyId],
  );
  // Runs: n < bigRuns belong to the big batch (prospect n + 1), the others
  // are dealt round-robin to batches 1 … batches - 1.
  await step(
    'runs',
    `INSERT INTO "Run" ("organizationId", "workflowId", "workflowVersionId", "batchId", "prospectId", status,
                        "startedAt", "endedAt", attempts, "createdAt", "updatedAt")
     SELECT $1, ${idOf('wf', 'workflow', workflowOf('b'))}, ${idOf('wfv', 'version', workflowOf('b'))}, ${idOf('bat', 'batch', 'b')},
            'prs_' || md5('bench-prospect-' || p), status::"RunStatus",
            started, CASE WHEN status IN ('FINISHED', 'FAILED') THEN started + make_interval(secs => 30 + 300 * r3)
                          WHEN status = 'CANCELLED' THEN created + interval '1 hour' END,
            CASE WHEN started IS NULL THEN 0 ELSE 1 END, created,
            COALESCE(started + make_interval(secs => 30 + 300 * r3), created)
     FROM (
       SELECT b, p, r3, status, created,
              CASE WHEN status IN ('FINISHED', 'FAILED', 'IN_PROGRESS') THEN created + make_interval(secs => 3600 * r2) END AS started
       FROM (
         SELECT b, p, r2, r3, ${batchCreatedAt('b')} AS created,
                CASE ${kind('b')}
                  WHEN 'active' THEN CASE WHEN r < 0.60 THEN 'FINISHED' WHEN r < 0.68 THEN 'FAILED' WHEN r < 0.69 THEN 'IN_PROGRESS' ELSE 'PENDING' END
                  WHEN 'paused' THEN CASE WHEN r < 0.40 THEN 'FINISHED' WHEN r < 0.45 THEN 'FAILED' ELSE 'PAUSED' END
                  ELSE CASE WHEN r < 0.85 THEN 'FINISHED' WHEN r < 0.95 THEN 'FAILED' ELSE 'CANCELLED' END
                END AS status
         FROM (
           SELECT CASE WHEN n < $3 THEN $4 ELSE ((n - $3) % ($4 - 1)) + 1 END AS b,
                  CASE WHEN n < $3 THEN n + 1 ELSE (n % $5) + 1 END AS p,
                  random() AS r, random() AS r2, random() AS r3
           FROM generate_series(0, $2::int - 1) AS n
         ) AS numbered
       ) AS with_status
     ) AS with_times`,
    [organizationId, runs, bigRuns, bigBatch, prospects],
  );
  await step(
    'campaign',
    `WITH workflow AS (
       INSERT INTO "Workflow" (id, "organizationId", name, version, "createdAt", "updatedAt", "publishedAt")
       VALUES (${idOf('wf', 'workflow', '0')}, $1, 'Campaign', 1, now() - interval '1 day', now(), now() - interval '1 day')
       RETURNING id
     ), version AS (
       INSERT INTO "WorkflowVersion" (id, "organizationId", "workflowId", version, definition, "createdBy", "createdAt")
       SELECT ${idOf('wfv', 'version', '0')}, $1, id, 1, '{"steps":[{"id":"dial","type":"call"}]}'::jsonb, $2, now() - interval '1 day'
       FROM workflow RETURNING id, "workflowId"
     ), batch AS (
       INSERT INTO "Batch" (id, "organizationId", "workflowId", "workflowVersionId", name, "sourceType", "createdBy", status, "createdAt", "updatedAt")
       SELECT ${idOf('bat', 'campaign', 'b')}, $1, version."workflowId", version.id, 'Campaign ' || b, 'prospect_ids', $2,
              'PENDING'::"BatchStatus", now() - make_interval(mins => 21 - b), now() - make_interval(mins => 21 - b)
       FROM version CROSS JOIN generate_series(1, 20) AS b RETURNING id, "workflowId", "workflowVersionId", "createdAt"
     )
     INSERT INTO "Run" ("organizationId", "workflowId", "workflowVersionId", "batchId", "prospectId", status, "createdAt", "updatedAt")
     SELECT $1, batch."workflowId", batch."workflowVersionId", batch.id, 'prs_' || md5('bench-prospect-' || p), 'PENDING'::"RunStatus",
            batch."createdAt", batch."createdAt"
     FROM batch CROSS JOIN generate_series(1, 500) AS p`,
    [organizationId, apiKeyId],
  );
  // Workflow 1's started runs (its 100 batches, about 80,000 runs): an attempt
  // each, and the record its agent worker reported, varied by the run's number.
  await step(
    'call records',
    `WITH started AS (
       SELECT r.id, r."organizationId", r."batchId", r."startedAt", r."endedAt", r.status, p.phone,
              row_number() OVER () AS n
       FROM "Run" AS r JOIN "Prospect" AS p ON p.id = r."prospectId" AND p."organizationId" = r."organizationId"
       WHERE r."workflowId" = ${idOf('wf', 'workflow', '1')} AND r."startedAt" IS NOT NULL
     ), attempt AS (
       INSERT INTO "RunAttempt" ("organizationId", "runId", "batchId", number, "stepId", "startedAt", "endedAt", outcome,
                                 "toNumber", "durationSeconds", "callEndedAt")
       SELECT "organizationId", id, "batchId", 1, 'dial', "startedAt", "endedAt",
              (CASE WHEN status = 'FAILED' THEN 'failed' WHEN n % 5 = 0 THEN 'voicemail' ELSE 'answered' END)::"CallOutcome",
              phone, extract(epoch FROM "endedAt" - "startedAt"), "endedAt"
       FROM started
       RETURNING id, "runId", "batchId", "organizationId", "startedAt", "endedAt"
     )
     INSERT INTO "CallRecord" ("organizationId", "attemptId", "runId", "attemptNumber", "batchId", "agentId", transcript,
                               detection, "detectionResult", summary, disposition, "dispositionLabel", "dispositionCategory",
                               sentiment, "endedBy", "createdAt", "updatedAt")
     SELECT a."organizationId", a.id, a."runId", 1, a."batchId", 'agt_bench', jsonb_build_array(
              jsonb_build_object('role', 'agent', 'text', 'Hello, this is the clinic calling about your appointment.', 'started_ms', 0, 'ended_ms', 3200),
              jsonb_build_object('role', 'callee', 'text', 'Oh yes, hello.', 'started_ms', 3400, 'ended_ms', 4300),
              jsonb_build_object('role', 'agent', 'text', 'Would Tuesday at ten suit you?', 'started_ms', 4500, 'ended_ms', 6100),
              jsonb_build_object('role', 'callee', 'text', 'Tuesday is fine, thanks.', 'started_ms', 6300, 'ended_ms', 7600)),
            jsonb_build_object('result', detection, 'confidence', 0.9, 'detected_ms', 1200), detection,
            'Call ' || s.n || ': ' || label, jsonb_build_object('label', label, 'category', category), label, category,
            round(((s.n % 21) - 10) / 10.0, 1), 'callee', COALESCE(a."endedAt", a."startedAt"), COALESCE(a."endedAt", a."startedAt")
     FROM attempt AS a JOIN (
       SELECT id, n, CASE WHEN n % 5 = 0 THEN 'voicemail' ELSE 'human' END AS detection,
              (ARRAY['booked', 'call back later', 'not interested', 'wrong number'])[1 + n % 4] AS label,
              (ARRAY['success', 'neutral', 'neutral', 'issue'])[1 + n % 4] AS category
       FROM started
     ) AS s ON s.id = a."runId"`,
  );
  await step(
    'batch counters',
    `UPDATE "Batch" AS b SET
       "totalProspects" = s.total, "pendingCount" = s.pending, "inProgressCount" = s.in_progress, "pausedCount" = s.paused,
       "finishedCount" = s.finished, "cancelledCount" = s.cancelled, "failedCount" = s.failed,
       "firstRunId" = s.first
     FROM (
       SELECT "batchId", count(*) AS total, min(id) AS first,
              count(*) FILTER (WHERE status = 'PENDING') AS pending, count(*) FILTER (WHERE status = 'IN_PROGRESS') AS in_progress,
              count(*) FILTER (WHERE status = 'PAUSED') AS paused, count(*) FILTER (WHERE status = 'FINISHED') AS finished,
              count(*) FILTER (WHERE status = 'CANCELLED') AS cancelled, count(*) FILTER (WHERE status = 'FAILED') AS failed
       FROM "Run" GROUP BY "batchId"
     ) AS s
     WHERE s."batchId" = b.id`,
  );
  await client.query(`RESET session_replication_role`);
  // ANALYZE for the planner; VACUUM sets the visibility map, as autovacuum
  // would on a table that has settled, so index-only scans are possible.
  await step('VACUUM ANALYZE', 'VACUUM ANALYZE');
  await client.query(`RESET maintenance_work_mem`);
  // Below autovacuum's analyze threshold (10% of the table), so it stays unknown to the planner.
  const freshRuns = Math.min(prospects, Math.floor(runs / 40));
  await step(
    'fresh batch (after ANALYZE)',
    `WITH batch AS (
       INSERT INTO "Batch" (id, "organizationId", "workflowId", "workflowVersionId", name, "sourceType", "createdBy", status,
                            "totalProspects", "pendingCount", "createdAt", "updatedAt")
       VALUES (${idOf('bat', 'fresh', '1')}, $1, ${idOf('wf', 'workflow', '2')}, ${idOf('wfv', 'version', '2')}, 'Fresh', 'prospect_ids', $2,
               'IN_PROGRESS', $3, $3, now(), now())
       RETURNING id, "workflowId", "workflowVersionId", "createdAt"
     )
     INSERT INTO "Run" ("organizationId", "workflowId", "workflowVersionId", "batchId", "prospectId", status, "createdAt", "updatedAt")
     SELECT $1, batch."workflowId", batch."workflowVersionId", batch.id, 'prs_' || md5('bench-prospect-' || p), 'PENDING'::"RunStatus",
            batch."createdAt", batch."createdAt"
     FROM batch CROSS JOIN generate_series(1, $3::int) AS p`,
    [organizationId, apiKeyId, freshRuns],
  );
  // Its first run id, as the gateway records it when it creates a batch.
  await step(
    'fresh batch first run id',
    `UPDATE "Batch" SET "firstRunId" = (SELECT min(r.id) FROM "Run" AS r WHERE r."batchId" = "Batch".id)
     WHERE id = ${idOf('bat', 'fresh', '1')} AND "organizationId" = $1`,
    [organizationId],
  );

  const ids = (
    await client.query<Record<string, string>>(
      `SELECT ${idOf('wf', 'workflow', '1')} AS dashboard, ${idOf('wf', 'workflow', String(workflows))} AS big_workflow,
              ${idOf('bat', 'batch', String(bigBatch))} AS big_batch, ${idOf('wf', 'workflow', '2')} AS e4_workflow, ${idOf('bat', 'fresh', '1')} AS fresh_batch,
              ${idOf('wf', 'workflow', '0')} AS campaign, ${idOf('bat', 'batch', String(bigBatch - 1))} AS small_batch,
              ${idOf('wf', 'workflow', workflowOf(String(bigBatch - 1)))} AS small_workflow`,
    )
  ).rows[0]!;
  const counts = Object.fromEntries(
    (
      await client.query<{ table: string; count: string }>(
        `SELECT 'runs' AS table, count(*) FROM "Run" UNION ALL SELECT 'prospects', count(*) FROM "Prospect"
         UNION ALL SELECT 'batches', count(*) FROM "Batch" UNION ALL SELECT 'workflows', count(*) FROM "Workflow"`,
      )
    ).rows.map((row) => [row.table, Number(row.count)]),
  );
  return {
    dashboardWorkflowId: ids.dashboard!,
    bigWorkflowId: ids.big_workflow!,
    bigBatchId: ids.big_batch!,
    e4WorkflowId: ids.e4_workflow!,
    freshBatchId: ids.fresh_batch!,
    campaignWorkflowId: ids.campaign!,
    smallBatchId: ids.small_batch!,
    smallWorkflowId: ids.small_workflow!,
    counts,
    seconds: (performance.now() - started) / 1000,
  };
}
