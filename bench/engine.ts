// Scenario (g): the run engine's throughput, one instance. A batch of
// BENCH_ENGINE_RUNS runs of a one-step workflow (a `call` naming an agent; the
// prospects have E.164 phones) is worked through by the gateway as `npm start`
// runs it, with ENGINE_CONCURRENCY=1000 (lines: calls in flight) and simulated calls of 1 s that are
// all answered; beside it, bench/engine-raw.ts drives the engine's own
// RunStore statements with nothing else, on an identical batch in a database
// of its own. Everything is measured from the database afterwards (the
// attempts' timestamps, the runs and the batch counters), except the claim
// latency: the gateway's from its claim-duration histogram (GET /metrics),
// the raw loop's timed around each claim.
import { spawn } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { ms, type Report, ratio, rps, verdict } from './report.ts';
import { insertProspects, insertWorkflow, seedInTransaction, seedOrganization } from './seed-organization.ts';
import {
  BENCH_DIR,
  BENCH_METRICS_TOKEN,
  cpuMs,
  type createBenchDatabase,
  percentile,
  ROOT,
  scrapeMetrics,
  sleep,
  startGateway,
  withClient,
} from './support.ts';

export type BenchDatabase = Awaited<ReturnType<typeof createBenchDatabase>>;

const RUNS = Number(process.env.BENCH_ENGINE_RUNS ?? 20_000);
const ENGINE_BENCH = {
  runs: RUNS,
  concurrency: 1000,
  callMs: 1000,
  /** DATABASE_POOL_SIZE's default, on both sides. */
  poolSize: 10,
  /** Each side must end its batch within this (s): by default, at 20 attempts/s. */
  timeoutSeconds: Number(process.env.BENCH_ENGINE_TIMEOUT ?? Math.max(300, RUNS / 20)),
};
const STEADY = { from: 0.1, to: 0.9 };
const CLAIM_METRIC = 'gateway_engine_claim_duration_seconds';

interface Seeded {
  batchId: string;
}

/** Runs of the quiet organization's batch, created while the campaign holds every line. */
const QUIET_RUNS = 10;

/** Another organization, with its key, a one-step workflow and prospects, but no batch yet. */
interface Quiet {
  organizationId: string;
  apiKey: string;
  workflowId: string;
  prospectIds: string[];
}

async function seedQuiet(database: BenchDatabase): Promise<Quiet> {
  const { organizationId, apiKey, apiKeyId } = await seedOrganization(database.url, 'Quiet organization');
  return seedInTransaction(database.url, async (one, sql) => {
    const agentId = await one(
      `INSERT INTO "Agent" ("organizationId", name, "updatedAt") VALUES ($1, 'Quiet agent', now()) RETURNING id`,
      [organizationId],
    );
    const { workflowId } = await insertWorkflow(one, {
      organizationId,
      apiKeyId,
      name: 'Quiet',
      steps: [{ id: 'dial', type: 'call', agent_id: agentId }],
    });
    await insertProspects(sql, organizationId, QUIET_RUNS);
    const { rows } = await sql.query<{ id: string }>(`SELECT id FROM "Prospect" WHERE "organizationId" = $1`, [
      organizationId,
    ]);
    return { organizationId, apiKey, workflowId, prospectIds: rows.map((row) => row.id) };
  });
}

/** The quiet organization's batch: created through the API, read from the database afterwards. */
interface QuietBatch {
  /** Created (its row's created_at) to its first call placed (its first attempt's start), ms. */
  firstCallMs: number;
  /** Created to its last call ended, ms: the pace the lines allow is one call's length, plus the wait for lines. */
  doneMs: number;
  /** The campaign's runs ended when it was created. */
  campaignEndedBefore: number;
  finished: number;
}

async function createQuietBatch(url: string, quiet: Quiet): Promise<string> {
  const response = await fetch(`${url}/org/${quiet.organizationId}/workflows/${quiet.workflowId}/batches`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': quiet.apiKey },
    body: JSON.stringify({ name: 'Quiet batch', prospect_ids: quiet.prospectIds }),
  });
  if (response.status !== 201) throw new Error(`(g) the quiet batch was refused: ${await response.text()}`);
  return ((await response.json()) as { id: string }).id;
}

async function readQuietBatch(sql: pg.Client, batchId: string, campaignEndedBefore: number): Promise<QuietBatch> {
  const { rows } = await sql.query<{ first: number; done: number; finished: number }>(
    `SELECT (extract(epoch FROM min(a."startedAt") - b."createdAt") * 1000)::float8 AS first,
            (extract(epoch FROM max(a."endedAt") - b."createdAt") * 1000)::float8 AS done, b."finishedCount" AS finished
     FROM "Batch" b JOIN "RunAttempt" a ON a."batchId" = b.id WHERE b.id = $1 GROUP BY b.id, b."organizationId"`,
    [batchId],
  );
  const [row] = rows;
  return { firstCallMs: row!.first, doneMs: row!.done, campaignEndedBefore, finished: row!.finished };
}

/**
 * What the guarded side turns on (docs/consent.md, docs/contact-limits.md):
 * calls only with a live consent of the batch's scope, which every prospect
 * has, and at most 3 calls to one number in 24 hours, which no run reaches
 * (one call each): every check is made and none holds a call back.
 */
const GUARDS = { scope: 'bench', contactLimits: [{ max_calls: 3, per_hours: 24 }] };

/**
 * One organization, an agent, a one-step workflow calling it, and a batch of
 * `runs` runs, all due now; `guarded`, with consent required and contact caps on.
 */
async function seedBatch(database: BenchDatabase, guarded = false): Promise<Seeded> {
  const { organizationId, apiKeyId } = await seedOrganization(database.url, 'Engine bench');
  return seedInTransaction(database.url, async (one, sql) => {
    const agentId = await one(
      `INSERT INTO "Agent" ("organizationId", name, "updatedAt") VALUES ($1, 'Bench agent', now()) RETURNING id`,
      [organizationId],
    );
    const { workflowId, versionId } = await insertWorkflow(one, {
      organizationId,
      apiKeyId,
      name: 'Engine bench',
      steps: [{ id: 'dial', type: 'call', agent_id: agentId }],
    });
    await insertProspects(sql, organizationId, ENGINE_BENCH.runs);
    if (guarded) {
      await sql.query(`UPDATE "Organization" SET "requireConsent" = true, "contactLimits" = $2 WHERE id = $1`, [
        organizationId,
        JSON.stringify(GUARDS.contactLimits),
      ]);
      await sql.query(
        `INSERT INTO "Consent" ("organizationId", "prospectId", scope, source, "capturedAt", evidence)
         SELECT $1, id, $2, 'import', now() - interval '1 day', 'bench' FROM "Prospect" WHERE "organizationId" = $1`,
        [organizationId, GUARDS.scope],
      );
    }
    const batchId = await one(
      `INSERT INTO "Batch" ("organizationId", "workflowId", "workflowVersionId", name, "sourceType", "createdBy", "totalProspects", "pendingCount", "consentScope", "updatedAt")
       VALUES ($1, $2, $3, 'Engine bench', 'prospect_ids', $4, $5, $5, $6, now()) RETURNING id`,
      [organizationId, workflowId, versionId, apiKeyId, ENGINE_BENCH.runs, guarded ? GUARDS.scope : null],
    );
    await sql.query(
      `INSERT INTO "Run" ("organizationId", "workflowId", "workflowVersionId", "batchId", "prospectId", "updatedAt")
       SELECT $1, $2, $3, $4, id, now() FROM "Prospect" WHERE "organizationId" = $1`,
      [organizationId, workflowId, versionId, batchId],
    );
    return { batchId };
  });
}

/**
 * The database's PostgreSQL backends, sampled as they come and go: their CPU
 * time (one seen first mid-run counts from 0), and what each was doing at
 * each sample (state and wait event: where the time goes).
 */
export function postgresSampler(sql: pg.Client) {
  const first = new Map<number, number>();
  const last = new Map<number, number>();
  const states = new Map<string, number>();
  let sampled = false;
  return {
    async sample() {
      const { rows } = await sql.query<{ pid: number; state: string | null; wait: string | null }>(
        `SELECT pid, state, wait_event_type || ': ' || wait_event AS wait FROM pg_stat_activity
         WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend'`,
      );
      for (const { pid, state, wait } of rows) {
        const used = cpuMs(pid);
        if (!first.has(pid)) first.set(pid, sampled ? 0 : used);
        last.set(pid, used);
        if (sampled) {
          const what = `${state ?? '?'}${wait ? ` (${wait})` : ''}`;
          states.set(what, (states.get(what) ?? 0) + 1);
        }
      }
      sampled = true;
    },
    cpuMs: () => [...last].reduce((sum, [pid, used]) => sum + used - first.get(pid)!, 0),
    /** The most frequent states, with their share of all samples. */
    states(top = 5) {
      const total = [...states.values()].reduce((sum, count) => sum + count, 0);
      return [...states]
        .sort((a, b) => b[1] - a[1])
        .slice(0, top)
        .map(([what, count]) => `${what} ${((count / total) * 100).toFixed(0)}%`)
        .join(', ');
    },
  };
}

/** Polls the batch (and samples PostgreSQL's backends) until none of its runs is left to do, or `gaveUp()`. */
async function untilBatchEnds(
  sql: pg.Client,
  batchId: string,
  postgres: ReturnType<typeof postgresSampler>,
  label: string,
  log: (line: string) => void,
  gaveUp = () => false,
  progress: (ended: number) => void = () => {},
) {
  const deadline = Date.now() + ENGINE_BENCH.timeoutSeconds * 1000;
  let loggedAt = Date.now();
  for (;;) {
    await postgres.sample();
    const { rows } = await sql.query<{ status: string; ended: number }>(
      `SELECT status::text AS status, "finishedCount" + "failedCount" + "cancelledCount" AS ended FROM "Batch" WHERE id = $1`,
      [batchId],
    );
    const { status, ended } = rows[0]!;
    if (!['PENDING', 'IN_PROGRESS'].includes(status) || gaveUp()) return;
    progress(ended);
    if (Date.now() > deadline)
      throw new Error(
        `(g) ${label}: ${ended} of ${ENGINE_BENCH.runs} runs ended after ${ENGINE_BENCH.timeoutSeconds} s (BENCH_ENGINE_TIMEOUT)`,
      );
    if (Date.now() - loggedAt >= 5000) {
      log(`  ${label}: ${ended.toLocaleString('en')} of ${ENGINE_BENCH.runs.toLocaleString('en')} runs ended`);
      loggedAt = Date.now();
    }
    await sleep(250);
  }
}

/** Cumulative histogram buckets: `count` observations were <= `le` seconds. */
type Buckets = { le: number; count: number }[];

function parseHistogram(text: string, name: string): Buckets {
  const buckets: Buckets = [];
  for (const match of text.matchAll(new RegExp(`^${name}_bucket\\{le="([^"]+)"\\} (\\d+)$`, 'gm'))) {
    buckets.push({ le: match[1] === '+Inf' ? Infinity : Number(match[1]), count: Number(match[2]) });
  }
  if (buckets.length === 0) throw new Error(`GET /metrics has no ${name}`);
  return buckets;
}

function bucketsOf(seconds: number[], bounds: number[]): Buckets {
  return bounds.map((le) => ({ le, count: seconds.filter((value) => value <= le).length }));
}

/** A quantile (ms) from cumulative buckets, interpolated within its bucket as Prometheus's histogram_quantile does. */
function bucketQuantile(buckets: Buckets, q: number): number {
  const rank = q * buckets.at(-1)!.count;
  let previous = { le: 0, count: 0 };
  for (const bucket of buckets) {
    if (bucket.count >= rank) {
      if (!Number.isFinite(bucket.le)) return previous.le * 1000;
      const share = bucket.count === previous.count ? 1 : (rank - previous.count) / (bucket.count - previous.count);
      return (previous.le + (bucket.le - previous.le) * share) * 1000;
    }
    previous = bucket;
  }
  return NaN;
}

interface Attempts {
  attempts: number;
  /** Attempts ended per second between the 10th and the 90th percentile of the end times. */
  steadyPerSecond: number;
  /** All attempts over first start to last end. */
  overallPerSecond: number;
  seconds: number;
  /** The run claimed (Run.startedAt) to its attempt written open (RunAttempt.startedAt), ms. */
  claimToDial: number[];
  /** The attempt closed to the run ended, ms. */
  hangUpToEnd: number[];
  /** Stats == counts, every run FINISHED after exactly one attempt, none open. */
  consistent: boolean;
  consistency: string;
}

async function readAttempts(sql: pg.Client, batchId: string): Promise<Attempts> {
  const { rows } = await sql.query<{ started: number; ended: number; claimed: number; run_ended: number }>(
    `SELECT (extract(epoch FROM a."startedAt") * 1000)::float8 AS started, (extract(epoch FROM a."endedAt") * 1000)::float8 AS ended,
            (extract(epoch FROM r."startedAt") * 1000)::float8 AS claimed, (extract(epoch FROM r."endedAt") * 1000)::float8 AS run_ended
     FROM "RunAttempt" a JOIN "Run" r ON r.id = a."runId" WHERE a."batchId" = $1`,
    [batchId],
  );
  const ends = rows
    .map((row) => row.ended)
    .filter((ended) => ended !== null)
    .sort((a, b) => a - b);
  const from = Math.floor(STEADY.from * ends.length);
  const to = Math.floor(STEADY.to * ends.length);
  const firstStart = rows.reduce((first, row) => Math.min(first, row.started), Infinity);
  const seconds = (ends.at(-1)! - firstStart) / 1000;

  const [batch] = (
    await sql.query<Record<string, number | string>>(
      `SELECT status::text AS status, "totalProspects" AS total, "pendingCount" AS "PENDING", "inProgressCount" AS "IN_PROGRESS",
              "pausedCount" AS "PAUSED", "finishedCount" AS "FINISHED", "cancelledCount" AS "CANCELLED", "failedCount" AS "FAILED"
       FROM "Batch" WHERE id = $1`,
      [batchId],
    )
  ).rows;
  const counts = Object.fromEntries(
    (
      await sql.query<{ status: string; count: number }>(
        `SELECT status::text AS status, count(*)::int AS count FROM "Run" WHERE "batchId" = $1 GROUP BY status`,
        [batchId],
      )
    ).rows.map((row) => [row.status, row.count]),
  );
  const [attempts] = (
    await sql.query<{ total: number; runs: number; open: number; answered: number }>(
      `SELECT count(*)::int AS total, count(DISTINCT "runId")::int AS runs, count(*) FILTER (WHERE "endedAt" IS NULL)::int AS open,
              count(*) FILTER (WHERE outcome = 'answered')::int AS answered
       FROM "RunAttempt" WHERE "batchId" = $1`,
      [batchId],
    )
  ).rows;
  const statuses = ['PENDING', 'IN_PROGRESS', 'PAUSED', 'FINISHED', 'CANCELLED', 'FAILED'];
  const statsEqualCounts =
    statuses.every((status) => batch![status] === (counts[status] ?? 0)) && batch!.total === ENGINE_BENCH.runs;
  const n = ENGINE_BENCH.runs;
  const allDone =
    batch!.status === 'FINISHED' &&
    counts.FINISHED === n &&
    attempts!.total === n &&
    attempts!.runs === n &&
    attempts!.open === 0 &&
    attempts!.answered === n;
  const consistency =
    `stats ${statsEqualCounts ? '==' : '≠'} counts (${statuses
      .filter((status) => counts[status])
      .map((status) => `${counts[status]} ${status}`)
      .join(', ')}); ` +
    `batch ${batch!.status}; ${attempts!.total} attempts over ${attempts!.runs} runs, ${attempts!.open} open`;
  return {
    attempts: ends.length,
    steadyPerSecond: (to - from) / ((ends[to]! - ends[from]!) / 1000),
    overallPerSecond: ends.length / seconds,
    seconds,
    claimToDial: rows.map((row) => row.started - row.claimed),
    hangUpToEnd: rows.map((row) => row.run_ended - row.ended),
    consistent: statsEqualCounts && allDone,
    consistency,
  };
}

export interface EngineSide extends Attempts {
  /** Claim transactions, as cumulative buckets of seconds (the gateway's histogram's bounds). */
  claims: Buckets;
  /** Exact claim durations (ms), where they are known (the raw loop). */
  claimMs?: number[];
  /** CPU time (ms) the gateway or raw loop process, and the database's PostgreSQL backends, used for the batch. */
  processCpuMs: number;
  postgresCpuMs: number;
  /** The PostgreSQL backends' states while the batch ran. */
  postgresStates: string;
  /** The machine's 1-minute load average when the side started (the machine is shared). */
  loadAtStart: number;
}

export interface EngineMeasured {
  gateway: EngineSide;
  /** The gateway again, on a batch of its own, with consent required and contact caps on. */
  guarded: EngineSide;
  raw: EngineSide;
  quiet: QuietBatch;
}

async function runGateway(
  database: BenchDatabase,
  { batchId }: Seeded,
  quiet: Quiet | null,
  log: (line: string) => void,
): Promise<Omit<EngineSide, keyof Attempts> & { quiet: QuietBatch | null }> {
  const sql = new pg.Client({ connectionString: database.url });
  sql.on('error', () => {});
  await sql.connect();
  const gateway = await startGateway({
    name: 'gateway (engine)',
    databaseUrl: database.url,
    env: {
      ENGINE: 'on',
      DATABASE_POOL_SIZE: String(ENGINE_BENCH.poolSize),
      ENGINE_CONCURRENCY: String(ENGINE_BENCH.concurrency),
      SIMULATED_CALL_MS: String(ENGINE_BENCH.callMs),
      SIMULATED_CALL_OUTCOMES: 'answered=1',
      // Empty: unset, the default.
      RUN_LEASE_MS: '',
      METRICS_TOKEN: BENCH_METRICS_TOKEN,
    },
  });
  try {
    const loadAtStart = os.loadavg()[0]!;
    const postgres = postgresSampler(sql);
    await postgres.sample();
    const cpuAtStart = cpuMs(gateway.pid);
    // A tenth into the campaign (every line busy, runs claimed ahead), another organization's small batch arrives.
    let quietBatch: Promise<{ id: string; endedBefore: number }> | undefined;
    const arrive = (ended: number) => {
      if (!quiet || quietBatch || ended < ENGINE_BENCH.runs / 10) return;
      quietBatch = createQuietBatch(gateway.url, quiet).then((id) => ({ id, endedBefore: ended }));
    };
    await untilBatchEnds(sql, batchId, postgres, 'gateway', log, () => false, arrive);
    const processCpu = cpuMs(gateway.pid) - cpuAtStart;
    if (quiet && !quietBatch) throw new Error('(g) the campaign ended before the quiet batch was created');
    const created = await quietBatch;
    const metrics = await scrapeMetrics(gateway.url);
    return {
      claims: parseHistogram(metrics, CLAIM_METRIC),
      processCpuMs: processCpu,
      postgresCpuMs: postgres.cpuMs(),
      postgresStates: postgres.states(),
      loadAtStart,
      quiet: created ? await readQuietBatch(sql, created.id, created.endedBefore) : null,
    };
  } finally {
    await gateway.stop();
    await sql.end();
  }
}

async function runRaw(database: BenchDatabase, { batchId }: Seeded, log: (line: string) => void) {
  const sql = new pg.Client({ connectionString: database.url });
  sql.on('error', () => {});
  await sql.connect();
  const loadAtStart = os.loadavg()[0]!;
  const postgres = postgresSampler(sql);
  await postgres.sample();
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(BENCH_DIR, 'engine-raw.ts')], {
    cwd: ROOT,
    env: {
      ...process.env,
      DATABASE_URL: database.url,
      DATABASE_POOL_SIZE: String(ENGINE_BENCH.poolSize),
      BENCH_ENGINE_CONCURRENCY: String(ENGINE_BENCH.concurrency),
      BENCH_CALL_MS: String(ENGINE_BENCH.callMs),
    },
    // Its stdin stays open while this process lives: it ends when this one does.
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  let exitCode: number | null | undefined;
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      exitCode = code;
      resolve(code);
    }),
  );
  try {
    await untilBatchEnds(sql, batchId, postgres, 'raw loop', log, () => exitCode !== undefined);
    const code = await exited;
    if (code !== 0) throw new Error(`(g) the raw loop failed (exit ${code})`);
    await postgres.sample();
    const result = JSON.parse(output.trim()) as { claimMs: number[]; cpuMs: number };
    return {
      claimMs: result.claimMs,
      processCpuMs: result.cpuMs,
      postgresCpuMs: postgres.cpuMs(),
      postgresStates: postgres.states(),
      loadAtStart,
    };
  } finally {
    child.stdin!.end();
    await sql.end();
  }
}

/**
 * Seeds the three databases, then runs the gateway's engine, the gateway's
 * engine with consent and caps on, then the raw loop, each on its own batch.
 */
/** An engine round of bench (o): attempts/s in the batch's steady part, and CPU per attempt. */
export interface EngineRound {
  steadyPerSecond: number;
  serverCpu: number;
  postgresCpu: number;
  consistent: boolean;
}

/** The gateway's engine through a batch of its own on `database` (bench (o): partitioned and plain tables). */
export async function engineRound(database: BenchDatabase, log: (line: string) => void): Promise<EngineRound> {
  const seeded = await seedBatch(database);
  const run = await runGateway(database, seeded, null, log);
  const attempts = await withClient(database.url, (sql) => readAttempts(sql, seeded.batchId));
  return {
    steadyPerSecond: attempts.steadyPerSecond,
    serverCpu: run.processCpuMs / attempts.attempts,
    postgresCpu: run.postgresCpuMs / attempts.attempts,
    consistent: attempts.consistent,
  };
}

export async function measureEngine(
  databases: { gateway: BenchDatabase; guarded: BenchDatabase; raw: BenchDatabase },
  log: (line: string) => void,
): Promise<EngineMeasured> {
  log(`(g) seeding three batches of ${ENGINE_BENCH.runs.toLocaleString('en')} runs`);
  const seeded = {
    gateway: await seedBatch(databases.gateway),
    guarded: await seedBatch(databases.guarded, true),
    raw: await seedBatch(databases.raw),
  };
  const quiet = await seedQuiet(databases.gateway);
  log('(g) the gateway engine');
  const { quiet: quietBatch, ...gatewayRun } = await runGateway(databases.gateway, seeded.gateway, quiet, log);
  if (!quietBatch) throw new Error('(g) the quiet batch was not read');
  log('(g) the gateway engine, consent required and contact caps on');
  const { quiet: _none, ...guardedRun } = await runGateway(databases.guarded, seeded.guarded, null, log);
  log('(g) the raw RunStore loop');
  const rawRun = await runRaw(databases.raw, seeded.raw, log);
  const attemptsOf = (database: BenchDatabase, { batchId }: Seeded) =>
    withClient(database.url, (sql) => readAttempts(sql, batchId));
  const bounds = gatewayRun.claims.map((bucket) => bucket.le);
  const measured: EngineMeasured = {
    gateway: { ...gatewayRun, ...(await attemptsOf(databases.gateway, seeded.gateway)) },
    guarded: { ...guardedRun, ...(await attemptsOf(databases.guarded, seeded.guarded)) },
    raw: {
      ...rawRun,
      claims: bucketsOf(
        rawRun.claimMs.map((value) => value / 1000),
        bounds,
      ),
      ...(await attemptsOf(databases.raw, seeded.raw)),
    },
    quiet: quietBatch,
  };
  for (const name of ['gateway', 'guarded', 'raw'] as const) {
    const side = measured[name];
    log(
      `  ${name}: ${rps(side.steadyPerSecond)} attempts/s, claim p50 ${ms(bucketQuantile(side.claims, 0.5))} p99 ${ms(bucketQuantile(side.claims, 0.99))}; ${side.consistency}`,
    );
  }
  log(
    `  quiet organization: first call ${ms(quietBatch.firstCallMs)} after its batch was created, its ${QUIET_RUNS} runs done in ${ms(quietBatch.doneMs)}`,
  );
  return measured;
}

const pair = (values: number[]) => `${ms(percentile(values, 50))} / ${ms(percentile(values, 99))}`;

export function reportEngine(report: Report, { gateway, guarded, raw, quiet }: EngineMeasured) {
  const claims = (side: EngineSide) => side.claims.at(-1)!.count;
  report.line('');
  report.line(
    `## (g) Run engine, one instance: ENGINE_CONCURRENCY=${ENGINE_BENCH.concurrency}, calls of ${ENGINE_BENCH.callMs / 1000} s`,
  );
  report.line(
    `A batch of ${ENGINE_BENCH.runs.toLocaleString('en')} runs of a one-step workflow (\`call\` naming an agent; prospects +1415…, E.164), ` +
      `seeded in bulk on a fresh database. The gateway as \`npm start\` runs it (\`SIMULATED_CALL_OUTCOMES=answered=1\`, \`RUN_LEASE_MS\` default, ` +
      `a pool of ${ENGINE_BENCH.poolSize} connections). Beside it, on an identical batch in a database of its own, the raw loop (bench/engine-raw.ts): ` +
      `the engine's own RunStore (the same SQL) driven by the same policy: ${ENGINE_BENCH.concurrency} lines (calls in flight) and runs claimed ahead, ` +
      `up to ${2 * ENGINE_BENCH.concurrency} held, each run claim → (a free line) → startAttempt → ${ENGINE_BENCH.callMs / 1000} s → (line freed) → endAttempt, which finishes the run in the same transaction as the engine does (the call is the last step), ` +
      `without the engine's per-run work (definition read, step record, do-not-call and pre-call webhook look-ups, ` +
      `progress announcements, lease renewals). Measured from the database afterwards; the ceiling is ${ENGINE_BENCH.concurrency.toLocaleString('en')} lines ÷ ${ENGINE_BENCH.callMs / 1000} s = ` +
      `${rps((ENGINE_BENCH.concurrency * 1000) / ENGINE_BENCH.callMs)} attempts/s, less each line's time between calls (the attempt written open, the line handed on).`,
  );
  report.table(
    ['', 'gateway engine', 'raw RunStore loop', 'gateway ÷ raw'],
    [
      [
        `completed attempts/s, steady (ends between the ${STEADY.from * 100}th and ${STEADY.to * 100}th percentile)`,
        rps(gateway.steadyPerSecond),
        rps(raw.steadyPerSecond),
        ratio(gateway.steadyPerSecond / raw.steadyPerSecond),
      ],
      [
        'completed attempts/s, whole batch (first start to last end)',
        rps(gateway.overallPerSecond),
        rps(raw.overallPerSecond),
        ratio(gateway.overallPerSecond / raw.overallPerSecond),
      ],
      ['whole batch', `${gateway.seconds.toFixed(1)} s`, `${raw.seconds.toFixed(1)} s`, ''],
      ['load average (1 min) at the start', gateway.loadAtStart.toFixed(2), raw.loadAtStart.toFixed(2), ''],
      [
        'claim transactions (runs per claim, mean)',
        `${claims(gateway)} (${(gateway.attempts / claims(gateway)).toFixed(1)})`,
        `${claims(raw)} (${(raw.attempts / claims(raw)).toFixed(1)})`,
        '',
      ],
      ['claim latency p50', ms(bucketQuantile(gateway.claims, 0.5)), ms(bucketQuantile(raw.claims, 0.5)), ''],
      ['claim latency p99', ms(bucketQuantile(gateway.claims, 0.99)), ms(bucketQuantile(raw.claims, 0.99)), ''],
      ['run claimed → attempt started, p50 / p99', pair(gateway.claimToDial), pair(raw.claimToDial), ''],
      ['attempt ended → run ended, p50 / p99', pair(gateway.hangUpToEnd), pair(raw.hangUpToEnd), ''],
      ['process CPU / attempt', ms(gateway.processCpuMs / gateway.attempts), ms(raw.processCpuMs / raw.attempts), ''],
      [
        'PostgreSQL CPU / attempt',
        ms(gateway.postgresCpuMs / gateway.attempts),
        ms(raw.postgresCpuMs / raw.attempts),
        '',
      ],
      ['PostgreSQL connections, sampled every 250 ms', gateway.postgresStates, raw.postgresStates, ''],
      ['after', gateway.consistency, raw.consistency, ''],
    ],
  );
  report.line('');
  report.line(
    `Claim latency: the claim transaction (\`RunStore.claim\`), from the call to its commit, so waiting for a pool connection included, ` +
      `and empty claims too; the gateway's from its \`${CLAIM_METRIC}\` histogram, ` +
      `the raw loop's timed around each call and put in the same buckets, both interpolated within the bucket as histogram_quantile does ` +
      `(the raw loop's exact p50 / p99: ${pair(raw.claimMs ?? [])}). Timestamps are stored to the millisecond. ` +
      `"Run claimed → attempt started" includes the wait for a line: runs are claimed ahead (up to ${2 * ENGINE_BENCH.concurrency} held for ${ENGINE_BENCH.concurrency} lines); ` +
      `"attempt ended → run ended" is 0 when the run is finished in the transaction that closes its attempt (the call is its last step).`,
  );
  report.line('');
  report.line(
    `**Two organizations.** A tenth into the gateway's campaign (${quiet.campaignEndedBefore.toLocaleString('en')} of its runs ended, ` +
      `every line busy and ${ENGINE_BENCH.concurrency.toLocaleString('en')} more runs claimed ahead), another organization creates a batch of ${QUIET_RUNS} runs ` +
      `through \`POST /org/{org}/workflows/{id}/batches\`. The engine shares each claim between organizations, the least loaded first, ` +
      `and gives a freed line to the organization holding the fewest (src/engine/fair-shares.ts, src/engine/lines.ts).`,
  );
  report.table(
    ['quiet organization, 10-run batch', 'measured'],
    [
      ['its batch created → its first call placed', ms(quiet.firstCallMs)],
      [`its batch created → its last call ended (one call is ${ENGINE_BENCH.callMs / 1000} s)`, ms(quiet.doneMs)],
      ['its runs finished', `${quiet.finished} of ${QUIET_RUNS}`],
    ],
  );
  report.line('');
  report.line(
    `**Consent and contact caps on.** The same batch once more, in a database of its own, its organization requiring consent ` +
      `(\`require_consent\`, every prospect holding a live consent of the batch's \`consent_scope\`) and capping calls to one number ` +
      `(\`contact_limits\` ${JSON.stringify(GUARDS.contactLimits)}, which no run reaches): every check is made, none holds a call back.`,
  );
  report.table(
    ['', 'gateway engine', 'consent and caps on', 'on ÷ off'],
    [
      [
        'completed attempts/s, steady',
        rps(gateway.steadyPerSecond),
        rps(guarded.steadyPerSecond),
        ratio(guarded.steadyPerSecond / gateway.steadyPerSecond),
      ],
      [
        'completed attempts/s, whole batch',
        rps(gateway.overallPerSecond),
        rps(guarded.overallPerSecond),
        ratio(guarded.overallPerSecond / gateway.overallPerSecond),
      ],
      ['load average (1 min) at the start', gateway.loadAtStart.toFixed(2), guarded.loadAtStart.toFixed(2), ''],
      [
        'process CPU / attempt',
        ms(gateway.processCpuMs / gateway.attempts),
        ms(guarded.processCpuMs / guarded.attempts),
        ratio(guarded.processCpuMs / guarded.attempts / (gateway.processCpuMs / gateway.attempts)),
      ],
      [
        'PostgreSQL CPU / attempt',
        ms(gateway.postgresCpuMs / gateway.attempts),
        ms(guarded.postgresCpuMs / guarded.attempts),
        ratio(guarded.postgresCpuMs / guarded.attempts / (gateway.postgresCpuMs / gateway.attempts)),
      ],
      ['after', gateway.consistency, guarded.consistency, ''],
    ],
  );
}

export function engineTargets({ gateway, guarded, raw, quiet }: EngineMeasured): string[][] {
  return [
    [
      "(g) another organization's 10-run batch: first call within 2 s during the campaign",
      `${ms(quiet.firstCallMs)}; its runs done in ${ms(quiet.doneMs)}`,
      verdict(quiet.firstCallMs <= 2000 && quiet.finished === QUIET_RUNS),
    ],
    [
      '(g) ≥ 1,000 completed attempts/s',
      `${rps(gateway.steadyPerSecond)} (steady)`,
      verdict(gateway.steadyPerSecond >= 1000),
    ],
    [
      '(g) ≥ 0.8× the raw loop',
      `${rps(gateway.steadyPerSecond)} vs ${rps(raw.steadyPerSecond)} (${ratio(gateway.steadyPerSecond / raw.steadyPerSecond)})`,
      verdict(gateway.steadyPerSecond >= 0.8 * raw.steadyPerSecond),
    ],
    [
      '(g) consent and caps on: within 10% of off',
      `${rps(guarded.steadyPerSecond)} vs ${rps(gateway.steadyPerSecond)} (${ratio(guarded.steadyPerSecond / gateway.steadyPerSecond)})`,
      verdict(guarded.steadyPerSecond >= 0.9 * gateway.steadyPerSecond),
    ],
    ['(g) stats == counts after', gateway.consistency, verdict(gateway.consistent)],
    ['(g) consent and caps on: stats == counts after', guarded.consistency, verdict(guarded.consistent)],
  ];
}
