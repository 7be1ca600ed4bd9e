// (m) Retention: the cost of scrubbing the oldest tenth of the ended runs of
// the 1M-run dataset (bench/seed.ts; BENCH_SEED_RUNS smaller for a quick
// check), each with an attempt (number, pre-call variables) and a call record
// (transcript, summary), through the gateway's own job
// (src/engine/retention-job.ts, 1,000 runs a transaction), in process. While
// it runs, a probe does what the engine does to the same organization on
// every claim and run end (lock the organization's row, move a batch's
// counters) and times each: the job must not hold the engine up.
import pg from 'pg';
import { createOrganization } from '../src/domain/organizations.ts';
import { prepareDatabase } from '../src/domain/prepare-database.ts';
import { RetentionJob } from '../src/engine/retention-job.ts';
import type { BenchDatabase } from './engine.ts';
import { ms, type Report } from './report.ts';
import { seed } from './seed.ts';
import { percentile } from './support.ts';

const DAY_MS = 86_400_000;
/** How long the probe runs alone before the job starts, ms. */
const PROBE_ALONE_MS = 10_000;

export interface RetentionMeasured {
  endedRuns: number;
  scrubbedRuns: number;
  attempts: number;
  records: number;
  seconds: number;
  batches: number;
  /** The probe's statements while the job ran, ms each. */
  probe: number[];
  /** The same probe's, for PROBE_ALONE_MS before the job started. */
  probeAlone: number[];
}

export async function measureRetention(
  database: BenchDatabase,
  log: (line: string) => void,
): Promise<RetentionMeasured> {
  const db = await prepareDatabase({ kind: 'postgres', url: database.url, poolSize: 4 });
  const sql = new pg.Client({ connectionString: database.url });
  sql.on('error', (error) => log(`the benchmark's own connection: ${error.message}`));
  await sql.connect();
  const probeClient = new pg.Client({ connectionString: database.url });
  probeClient.on('error', () => {});
  await probeClient.connect();
  try {
    const { organization } = await createOrganization(db.prisma, 'Retention bench');
    const keyRow = await db.prisma.apiKey.findFirstOrThrow({ where: { organizationId: organization.id } });
    const seeded = await seed(sql, organization.id, keyRow.id, log);
    const agent = await db.prisma.agent.create({ data: { organizationId: organization.id, name: 'Bench agent' } });
    const at = performance.now();
    // One attempt a run that ended, with what a call leaves of the person; a record for each.
    await sql.query(
      `INSERT INTO "RunAttempt" ("organizationId", "runId", "batchId", number, "stepId", "startedAt", "endedAt", outcome,
         "toNumber", "dynamicVariables")
       SELECT r."organizationId", r.id, r."batchId", 1, 'dial', r."startedAt", r."endedAt", 'answered',
         '+1415' || lpad((row_number() OVER ())::text, 7, '0'), jsonb_build_object('caller_name', 'Caller ' || r.id)
       FROM "Run" r WHERE r."organizationId" = $1 AND r."endedAt" IS NOT NULL AND r."startedAt" IS NOT NULL`,
      [organization.id],
    );
    await sql.query(
      `INSERT INTO "CallRecord" ("organizationId", "attemptId", "runId", "attemptNumber", "batchId", "agentId",
         transcript, summary, "searchVector", "createdAt", "updatedAt")
       SELECT a."organizationId", a.id, a."runId", a.number, a."batchId", $2,
         jsonb_build_array(jsonb_build_object('role', 'callee', 'text', 'my name is ' || a."runId", 'started_ms', 0, 'ended_ms', 4000)),
         'a call with ' || a."runId", to_tsvector('simple', 'a call'), a."endedAt", a."endedAt"
       FROM "RunAttempt" a WHERE a."organizationId" = $1`,
      [organization.id, agent.id],
    );
    await sql.query('VACUUM ANALYZE "RunAttempt", "CallRecord"');
    log(`  attempts and records: ${((performance.now() - at) / 1000).toFixed(1)} s`);
    // Retention of one day, as of one day after the tenth percentile of the runs' ends: the oldest tenth is due.
    const {
      rows: [ends],
    } = await sql.query<{ ended: string; tenth: Date }>(
      `SELECT count(*)::text AS ended, percentile_disc(0.1) WITHIN GROUP (ORDER BY "endedAt") AS tenth
       FROM "Run" WHERE "organizationId" = $1 AND "endedAt" IS NOT NULL`,
      [organization.id],
    );
    await db.prisma.organization.update({ where: { id: organization.id }, data: { retentionDays: 1 } });
    const now = new Date(ends!.tenth.getTime() + DAY_MS);

    // What the engine does to the organization on a claim and a run's end, over and over until told to stop.
    const probing = (keepOn: () => boolean) =>
      (async () => {
        const took: number[] = [];
        while (keepOn()) {
          const started = performance.now();
          await probeClient.query('BEGIN');
          await probeClient.query('SELECT id FROM "Organization" WHERE id = $1 FOR NO KEY UPDATE', [organization.id]);
          await probeClient.query(
            `UPDATE "Batch" SET "finishedCount" = "finishedCount" + 0, "updatedAt" = now() WHERE id = $1`,
            [seeded.bigBatchId],
          );
          await probeClient.query('COMMIT');
          took.push(performance.now() - started);
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
        return took;
      })();
    // The same probe first without the job, for as long as the job will take at most here: what "not held up" compares with.
    const aloneUntil = performance.now() + PROBE_ALONE_MS;
    const probeAlone = await probing(() => performance.now() < aloneUntil);
    let jobRunning = true;
    const probed = probing(() => jobRunning);
    const job = new RetentionJob(db.prisma, { intervalMs: 0, log: { error: (_, message) => log(String(message)) } });
    const started = performance.now();
    const pass = await job.runOnce(now);
    const seconds = (performance.now() - started) / 1000;
    jobRunning = false;
    const probe = await probed;
    log(`  scrubbed ${pass.runs.toLocaleString('en')} runs in ${seconds.toFixed(1)} s`);
    return {
      endedRuns: Number(ends!.ended),
      scrubbedRuns: pass.runs,
      attempts: pass.attempts,
      records: pass.records,
      seconds,
      batches: pass.batches,
      probe,
      probeAlone,
    };
  } finally {
    await probeClient.end();
    await sql.end();
    await db.close();
  }
}

export function reportRetention(report: Report, measured: RetentionMeasured) {
  report.line('');
  report.line('## (m) Retention: scrubbing the oldest tenth of the ended runs');
  report.line(
    `${measured.scrubbedRuns.toLocaleString('en')} of ${measured.endedRuns.toLocaleString('en')} ended runs, with ` +
      `${measured.attempts.toLocaleString('en')} attempts and ${measured.records.toLocaleString('en')} call records, ` +
      `in ${measured.batches} transactions of at most 1,000 runs: ${measured.seconds.toFixed(1)} s, ` +
      `${(measured.scrubbedRuns / measured.seconds).toFixed(0)} runs/s ` +
      `(${((measured.scrubbedRuns + measured.attempts + measured.records) / measured.seconds).toFixed(0)} rows/s).`,
  );
  report.line(
    `Meanwhile an engine's statements on the same organization (its row locked, a batch's counters moved), ` +
      `${measured.probe.length} times: p50 ${ms(percentile(measured.probe, 50))}, p99 ${ms(percentile(measured.probe, 99))}, ` +
      `max ${ms(Math.max(...measured.probe))}; the same probe for ${PROBE_ALONE_MS / 1000} s before the job, ` +
      `${measured.probeAlone.length} times: p50 ${ms(percentile(measured.probeAlone, 50))}, p99 ${ms(percentile(measured.probeAlone, 99))}, ` +
      `max ${ms(Math.max(...measured.probeAlone))}.`,
  );
}
