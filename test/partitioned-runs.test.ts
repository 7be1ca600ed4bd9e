// Run and RunAttempt are range-partitioned by month (docs/scaling.md#runs-partitioned-by-month),
// through the real server and its engine, on either database: rows land in
// their month's partition (or the default one, never failing), the months
// ahead are created on the clock the job is given, and RUN_RETENTION_MONTHS
// drops a month only once it is past and what summarises it is final, while
// the engine goes on calling.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SqlQueryable } from '../src/db/database.ts';
import { noCondition } from '../src/db/parts/child-orders.ts';
import { runMonth } from '../src/db/parts/run-months.ts';
import { createRunPartition } from '../src/db/sql/create-run-partition.ts';
import { dropRunPartition } from '../src/db/sql/drop-run-partition.ts';
import { runsListingPage } from '../src/db/sql/runs-listing-page.ts';
import { runOrderSql } from '../src/domain/runs.ts';
import { MONTHS_AHEAD, RunPartitions } from '../src/engine/run-partitions.ts';
import { eventually, flows } from './support/flows.ts';
import { ManualClock } from './support/manual-clock.ts';
import { restClient } from './support/rest.ts';
import { startTestServer, type TestServer } from './support/server.ts';

/** A run id created at `at` (the format of Run's default: run_ + 12 hex digits of milliseconds + 7 + 19 random). */
const runIdAt = (at: string) =>
  `run_${new Date(at).getTime().toString(16).padStart(12, '0')}7${randomBytes(10).toString('hex').slice(0, 19)}`;

describe('runs partitioned by month', () => {
  let server: TestServer;
  let api: ReturnType<typeof flows>;
  let organizationId: string;
  let batchId: string;
  let runIds: string[];
  const warnings: unknown[] = [];
  const log = { error: () => {}, warn: (details: unknown) => void warnings.push(details) };

  const query = async <T>(text: string, values: unknown[] = []) =>
    (await server.db.sql.query<T & Record<string, unknown>>(text, values)).rows;
  const partitionOf = async (table: 'Run' | 'RunAttempt', column: string, id: string) =>
    (
      await query<{ name: string }>(`SELECT tableoid::regclass::text AS name FROM "${table}" WHERE "${column}" = $1`, [
        id,
      ])
    ).map((row) => row.name.replaceAll('"', ''));
  const partitions = async () =>
    (
      await query<{ name: string }>(
        `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
         WHERE i.inhparent = '"Run"'::regclass ORDER BY c.relname`,
      )
    ).map((row) => row.name);
  /** A copy of run `from` (one of the batch's) with id `id`, its attempts ended at `endedAt`, each with a record. */
  async function copyRun(from: string, id: string, endedAt: string | null) {
    await query(
      `INSERT INTO "Run" (id, "organizationId", "workflowId", "workflowVersionId", "batchId", "prospectId", status,
         "startedAt", "endedAt", attempts, "createdAt", "updatedAt")
       SELECT $1, "organizationId", "workflowId", "workflowVersionId", "batchId", "prospectId",
         CASE WHEN $2::timestamptz IS NULL THEN 'PAUSED' ELSE 'FINISHED' END::"RunStatus",
         $2, $2, attempts, coalesce($2, now()), coalesce($2, now()) FROM "Run" WHERE id = $3`,
      [id, endedAt, from],
    );
    if (!endedAt) return;
    await query(
      `INSERT INTO "RunAttempt" ("organizationId", "runId", "batchId", number, "stepId", "startedAt", "endedAt", outcome, "toNumber")
       SELECT "organizationId", $1, "batchId", number, "stepId", $2, $2, outcome, "toNumber" FROM "RunAttempt" WHERE "runId" = $3`,
      [id, endedAt, from],
    );
    await query(
      `INSERT INTO "CallRecord" ("organizationId", "attemptId", "runId", "attemptNumber", "batchId", "agentId", "updatedAt")
       SELECT "organizationId", id, "runId", number, "batchId", 'agent', now() FROM "RunAttempt" WHERE "runId" = $1`,
      [id],
    );
  }

  beforeAll(async () => {
    server = await startTestServer({ engine: { concurrency: 5, callMs: 5 } });
    let apiKey: string;
    ({ organizationId, apiKey } = await server.createOrganization('Monthly'));
    api = flows(server, apiKey);
    batchId = await api.batch(await api.workflow([{ id: 'dial', type: 'call' }]), await api.prospects(2));
    runIds = await eventually(async () => {
      const runs = await server.db.prisma.run.findMany({ where: { batchId }, orderBy: { id: 'asc' } });
      return runs.length === 2 && runs.every((run) => run.status === 'FINISHED')
        ? runs.map((run) => run.id)
        : undefined;
    });
    const rest = restClient(server, organizationId, apiKey);
    const reported = await rest('POST', `/org/{org}/runs/${runIds[0]}/attempts/1/record`, {
      body: { summary: 'Interested.', disposition: { label: 'interested', category: 'success' } },
    });
    expect(reported.status).toBe(200);
  });
  afterAll(() => server.close());

  it("puts a run and its attempts in their month's partition, and a run of a month without one in the default", async () => {
    const { key } = runMonth(new Date());
    for (const runId of runIds) {
      expect(await partitionOf('Run', 'id', runId)).toEqual([`Run_${key}`]);
      expect(await partitionOf('RunAttempt', 'runId', runId)).toEqual([`RunAttempt_${key}`]);
    }
    // Read by id through the API's key (id, organizationId).
    expect(await server.db.prisma.run.findFirst({ where: { id: runIds[0] } })).toMatchObject({ batchId });
    // A month nobody created (year 2999): the insert does not fail.
    const stray = runIdAt('2999-01-01T00:00:00Z');
    await copyRun(runIds[0]!, stray, '2999-01-01T00:00:00Z');
    expect(await partitionOf('Run', 'id', stray)).toEqual(['Run_default']);
    expect(await partitionOf('RunAttempt', 'runId', stray)).toEqual(['RunAttempt_default']);
  });

  it("reads a batch's deep pages from its first run id on: the months before its own are not scanned", async () => {
    // The batch recorded its lowest run id when its runs were written.
    const batch = await server.db.prisma.batch.findFirstOrThrow({ where: { id: batchId } });
    expect(batch.firstRunId).toBe(runIds[0]);
    // A month long past, holding a run of another batch of the organization.
    const past = runMonth(new Date('2020-03-10T00:00:00Z'));
    await server.db.prisma.$transaction((tx) => createRunPartition(tx, past, 5000));
    try {
      const other = await api.batch(batch.workflowId, await api.prospects(1));
      const [otherRun] = await query<{ id: string }>(`SELECT id FROM "Run" WHERE "batchId" = $1`, [other]);
      await copyRun(otherRun!.id, runIdAt('2020-03-15T00:00:00Z'), null);
      // E6's statement for a deep page of the batch, explained as it runs: the old month is planned but not read.
      let plan = '';
      const explaining: SqlQueryable = {
        async query<Row>(text: string, values?: unknown[]) {
          const { rows } = await server.db.sql.query<{ 'QUERY PLAN': string }>(
            `EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ${text}`,
            values,
          );
          plan = rows.map((row) => row['QUERY PLAN']).join('\n');
          return { rows: [{ workflow_found: false, id: null, items: '', prospects_missing: 0 }] as Row[] };
        },
        exec: () => Promise.resolve(),
      };
      const page = { where: noCondition, orderBy: runOrderSql(), offset: 1, limit: 10 };
      await runsListingPage(explaining, { ...page, workflowId: batch.workflowId, batchId }, organizationId);
      const lines = (partition: string) => plan.split('\n').filter((line) => line.includes(`"${partition}"`));
      expect(lines(past.runs).length).toBeGreaterThan(0);
      for (const line of lines(past.runs)) expect(line).toContain('never executed');
      expect(lines(runMonth(new Date()).runs).some((line) => !line.includes('never executed'))).toBe(true);
      // Dropped once the engine is done with the other batch: its writes lock the tables the drop does.
      await eventually(async () =>
        (await server.db.prisma.batch.findFirstOrThrow({ where: { id: other } })).status === 'FINISHED'
          ? true
          : undefined,
      );
    } finally {
      await server.db.prisma.$transaction((tx) => dropRunPartition(tx, past, 5000));
    }
  });

  it('creates this month and the next ones ahead, on the clock it is given, once', async () => {
    const clock = new ManualClock('2031-05-10T08:00:00Z');
    const job = new RunPartitions(server.db.prisma, { retentionMonths: null, clock, log });
    const ahead = Array.from({ length: MONTHS_AHEAD + 1 }, (_, offset) => runMonth(clock.now(), offset).key);
    expect(ahead).toEqual(['2031_05', '2031_06', '2031_07', '2031_08']);
    expect(await job.runOnce()).toEqual({ created: ahead, dropped: [], kept: [] });
    expect(await job.runOnce()).toEqual({ created: [], dropped: [], kept: [] });
    const [bound] = await query<{ bound: string }>(
      `SELECT pg_get_expr(relpartbound, oid) AS bound FROM pg_class WHERE relname = 'RunAttempt_2031_06'`,
    );
    const hex = (at: number) => `run_${at.toString(16).padStart(12, '0')}`;
    expect(bound!.bound).toBe(`FOR VALUES FROM ('${hex(Date.UTC(2031, 5, 1))}') TO ('${hex(Date.UTC(2031, 6, 1))}')`);
    const june = runIdAt('2031-06-30T23:59:59.999Z');
    await copyRun(runIds[0]!, june, '2031-06-30T23:59:59.999Z');
    expect(await partitionOf('Run', 'id', june)).toEqual(['Run_2031_06']);
    expect(await partitionOf('RunAttempt', 'runId', june)).toEqual(['RunAttempt_2031_06']);
    await query(`DELETE FROM "Run" WHERE id = $1`, [june]);

    // Runs of a month that landed in the default partition keep it there: that month is not created, the others are.
    const stray = runIdAt('2032-01-20T00:00:00Z');
    await copyRun(runIds[0]!, stray, null);
    clock.advance(183 * 86_400_000); // 2031-11-09
    expect((await job.runOnce()).created).toEqual(['2031_11', '2031_12', '2032_02']);
    expect(await partitionOf('Run', 'id', stray)).toEqual(['Run_default']);
    expect(warnings).toHaveLength(1);
    await query(`DELETE FROM "Run" WHERE id = $1`, [stray]);
  });

  // PostgreSQL only: the embedded database has one connection, nothing else to hold a lock.
  it.runIf(process.env.TEST_DATABASE_URL)(
    "tries a month's creation again when the tables' lock is not had in time, the engine's statements not queued for long",
    async () => {
      // Another transaction holds the attempts' table (as an engine's write does) until the creation has waited twice.
      const holder = new pg.Client({ connectionString: (server.storage!.storage as { url: string }).url });
      await holder.connect();
      const month = runMonth(new Date('2033-03-03T00:00:00Z'));
      try {
        await holder.query(`BEGIN; LOCK TABLE "RunAttempt" IN ROW EXCLUSIVE MODE`);
        const job = new RunPartitions(server.db.prisma, {
          retentionMonths: null,
          clock: new ManualClock('2033-03-03'),
          log,
        });
        const pass = job.runOnce();
        const waiting = () =>
          query<{ pid: number; started: string }>(
            `SELECT pid, xact_start::text AS started FROM pg_stat_activity
           WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE 'LOCK TABLE "Run", "RunAttempt"%'`,
          );
        const first = await eventually(async () => (await waiting())[0], 10_000, 'the creation waiting');
        // Its lock_timeout passed: the same month is tried again, in a new transaction.
        await eventually(
          async () => ((await waiting()).some((row) => row.started !== first.started) ? true : undefined),
          10_000,
          'the creation waiting again',
        );
        await holder.query('COMMIT');
        const warned = warnings.length;
        expect((await pass).created).toContain(month.key);
        expect(warnings).toHaveLength(warned);
        expect(await partitions()).toContain(month.runs);
      } finally {
        await holder.end();
      }
    },
  );

  it('drops a month past RUN_RETENTION_MONTHS once its runs ended and its insights are final, the engine calling meanwhile', async () => {
    await new RunPartitions(server.db.prisma, {
      retentionMonths: null,
      clock: new ManualClock('2025-01-05'),
      log,
    }).runOnce();
    const ended = runIdAt('2025-01-10T09:00:00Z');
    const open = runIdAt('2025-01-10T09:00:01Z');
    await copyRun(runIds[0]!, ended, '2025-01-10T12:00:00Z');
    await copyRun(runIds[1]!, open, null);
    const batchBefore = await server.db.prisma.batch.findFirstOrThrow({ where: { id: batchId } });
    const now = new ManualClock('2026-11-28T12:00:00Z');

    // Within retention (100 months): kept, not even looked at.
    const keepAll = new RunPartitions(server.db.prisma, { retentionMonths: 100, clock: now, log });
    expect(await keepAll.runOnce()).toMatchObject({ dropped: [], kept: [] });

    // Past it (1 month), but a run of January is not ended: January stays; the empty months go.
    const job = new RunPartitions(server.db.prisma, { retentionMonths: 1, clock: now, log });
    expect(await job.runOnce()).toEqual({
      created: [],
      dropped: ['2025_02', '2025_03', '2025_04'],
      kept: [{ month: '2025_01', reason: '1 runs not ended' }],
    });
    expect(await partitions()).toContain('Run_2025_01');

    // Once it ended, January goes: its insight is made first, while the engine works a new batch through.
    await query(`UPDATE "Run" SET status = 'FINISHED', "endedAt" = '2025-01-11T00:00:00Z' WHERE id = $1`, [open]);
    expect(await server.db.prisma.insight.count({ where: { organizationId } })).toBe(0);
    const busy = await api.batch(await api.workflow([{ id: 'dial', type: 'call' }]), await api.prospects(20));
    expect(await job.runOnce()).toMatchObject({ dropped: ['2025_01'], kept: [] });
    expect(await partitions()).not.toContain('Run_2025_01');
    expect(await partitions()).not.toContain('RunAttempt_2025_01');
    expect(await query(`SELECT 1 FROM "CallRecord" WHERE "runId" IN ($1, $2)`, [ended, open])).toEqual([]);
    const insight = await server.db.prisma.insight.findFirstOrThrow({ where: { organizationId } });
    expect(insight).toMatchObject({
      periodStart: new Date('2025-01-10'),
      periodEnd: new Date('2025-01-10'),
      totalCalls: 1,
    });
    // The batch's counters are on its row: unchanged.
    expect(await server.db.prisma.batch.findFirstOrThrow({ where: { id: batchId } })).toEqual(batchBefore);
    await eventually(async () =>
      (await server.db.prisma.run.count({ where: { batchId: busy, status: 'FINISHED' } })) === 20 ? true : undefined,
    );
    // This month's runs are untouched.
    expect(await server.db.prisma.run.count({ where: { id: { in: runIds } } })).toBe(2);
  });
});
