// `npm run bench`: the gateway measured beside the best alternatives, on the
// machine's PostgreSQL (BENCH_DATABASE_URL, default the local server's `test`
// database), in a database of its own seeded in bulk (bench/seed.ts) and
// dropped at the end. Every server under test runs as its own process; the
// load comes from another (autocannon, bench/load.ts). Never run by tests.
//
//   (a) the dashboard query at 32 connections: gateway, PostGraphile 4 and 5,
//       raw SQL; then other dashboards (bench/shapes.ts), gateway and raw SQL;
//       then one dashboard polled by 200 clients, all four servers
//   (b) E6, a deep page of one status of one batch: the same four; then
//       pending and finished runs, small and big batches, every sort
//       (bench/shapes.ts), gateway and raw SQL
//   (c) E4, a batch of 100,000 prospects: gateway, raw INSERT … SELECT
//   (d) one batch change reaching 1,000 WebSocket subscribers
//   (e) a trivial query: gateway, plain graphql-yoga
//   (f) the gateway process's resident memory, idle and under load
//   (g) the run engine, one instance, 1,000 calls of 1 s in flight: gateway,
//       a raw loop of the same RunStore statements (bench/engine.ts), each on
//       a database of its own
//   (h) a 100,000-row CSV file imported in one request (bench/csv-import.ts)
//   (i) the trivial query and E6, tracing off and on (bench/tracing.ts)
//   (j) one batch change reaching 10,000 WebSocket subscribers over two
//       instances sharing Redis, and memory per idle subscriber (bench/fanout.ts)
//   (k) the dashboard query with the response cache off, in memory and in
//       Redis, and one batch change reaching 500 live queries (bench/cache.ts)
//   (l) call records: 40-turn records ingested, full-text search over
//       1,000,000 records (bench/records.ts)
//   (m) retention: the oldest tenth of the 1M-run dataset's ended runs
//       scrubbed, and an engine's statements meanwhile (bench/retention.ts)
//   (n) 1,000 live dashboards over two instances sharing Redis, one batch
//       changing 20 times; 200 clients polling one dashboard, cached and not
//       (bench/cache.ts; `--only cache-scale` runs it alone)
//   (o) the dashboard, E6, E4 and the run engine on partitioned runs beside
//       plain tables (bench/partitions.ts; `--only partitions` runs it alone)
//
// `npm run bench -- --only engine` (or BENCH_ONLY=engine) runs (g) alone,
// without the 1M-run dataset; `--only csv` runs (h) alone, `--only tracing`
// (i), `--only subscribers` (j), `--only cache` (k), `--only records` (l): call
// records ingested and searched over 1,000,000 (bench/records.ts), `--only
// retention` (m), on a dataset of its own (BENCH_SEED_RUNS runs). `--only
// reads` runs (a), (b) and their profiles on the 1M-run dataset, nothing else.
// The Markdown report is printed and saved to BENCH_REPORT (default
// bench-report.md in the system's temporary directory).
import { execFileSync, spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import pg from 'pg';
import { createOrganization } from '../src/domain/organizations.ts';
import { prepareDatabase } from '../src/domain/prepare-database.ts';
import { measureCache, measureCacheScale, reportCache, reportCacheScale } from './cache.ts';
import { type ProfileSummary, summarizeProfile } from './cpuprofile.ts';
import { csvImportTargets, measureCsvImport, reportCsvImport } from './csv-import.ts';
import { type BenchDatabase, engineTargets, measureEngine, reportEngine } from './engine.ts';
import { fanoutTargets, measureFanout, reportFanout } from './fanout.ts';
import { measurePartitions, reportPartitions } from './partitions.ts';
import {
  digestDashboardRecords,
  digestGatewayDashboard,
  digestPostGraphile5Runs,
  digestPostGraphileDashboard,
  digestPostGraphileRuns,
  digestRestRuns,
  E6,
  GATEWAY_DASHBOARD,
  GATEWAY_DASHBOARD_WITH_RECORDS,
  POSTGRAPHILE_DASHBOARD,
  POSTGRAPHILE_RUNS,
  POSTGRAPHILE5_DASHBOARD,
  POSTGRAPHILE5_RUNS,
  TRIVIAL,
} from './queries.ts';
import { measureRecords, recordsTargets, reportRecords } from './records.ts';
import { mib, ms, Report, ratio, rps, verdict } from './report.ts';
import { measureRetention, reportRetention } from './retention.ts';
import { SEED, seed } from './seed.ts';
import { dashboardShapes, runsQueryOf, runsShapes, shapeRows, shapeTargets } from './shapes.ts';
import { DASHBOARD_SQL, RUNS_COUNTING_SQL, RUNS_SQL, runsSql } from './sql.ts';
import { type CapturedRequest, captureStatements, explain } from './statements.ts';
import {
  BENCH_DIR,
  cpuMs,
  createBenchDatabase,
  freePort,
  installPostGraphile5,
  type LoadOptions,
  type LoadResult,
  median,
  percentile,
  postgresCpu,
  postgresQuiet,
  ROOT,
  rssMiB,
  runLoad,
  type ServerProcess,
  sampleRss,
  sleep,
  startGateway,
  startServer,
  stopAll,
} from './support.ts';
import { measureTracing, reportTracing } from './tracing.ts';

const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 3);
const CONNECTIONS = 32;
/** (a) polled by this many clients at once. */
const POLLERS = Number(process.env.BENCH_POLLERS ?? 200);
const SUBSCRIBERS = Number(process.env.BENCH_SUBSCRIBERS ?? 1000);
const CHANGES = Number(process.env.BENCH_CHANGES ?? 20);
const E4_ROUNDS = 3;
/** The turns each server of a row is measured in, its DURATION split between them (measureInTurns). */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const POOL_SIZE = 10;
const REPORT_FILE = process.env.BENCH_REPORT ?? path.join(os.tmpdir(), 'bench-report.md');

const report = new Report();
const log = (text: string) => process.stderr.write(`${text}\n`);
const startedAt = performance.now();
const loadAtStart = os.loadavg();
const elapsed = () => `${((performance.now() - startedAt) / 1000).toFixed(0)} s`;

const onlyArgument = process.argv.indexOf('--only');
const only = process.env.BENCH_ONLY || (onlyArgument >= 0 ? (process.argv[onlyArgument + 1] ?? '') : undefined);
const ALONE = [
  'engine',
  'csv',
  'tracing',
  'subscribers',
  'cache',
  'cache-scale',
  'records',
  'retention',
  'partitions',
] as const;
const readsOnly = only === 'reads';
if (only !== undefined && !readsOnly && !(ALONE as readonly string[]).includes(only)) {
  log(
    `--only ${only}: the scenarios that run alone are "engine", "csv", "tracing", "subscribers", "cache", "cache-scale", "records", "retention", "partitions" and "reads"`,
  );
  process.exit(2);
}

const databases: BenchDatabase[] = [];
const newDatabase = async (template?: string) => {
  const created = await createBenchDatabase(template);
  databases.push(created);
  return created;
};
let cleanedUp = false;
async function cleanUp() {
  if (cleanedUp) return;
  cleanedUp = true;
  await stopAll().catch((error) => log(`stopping the servers: ${(error as Error).message}`));
  for (const database of databases)
    await database.drop().catch((error) => log(`dropping ${database.name}: ${(error as Error).message}`));
}
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    log(`${signal}: cleaning up`);
    void cleanUp().then(() => process.exit(130));
  });
}
for (const event of ['uncaughtException', 'unhandledRejection'] as const) {
  process.once(event, (error) => {
    log(`${event}: ${(error as Error)?.stack ?? String(error)}`);
    void cleanUp().then(() => process.exit(1));
  });
}

/** One side's measured round: what the load generator saw, and the CPU the server and PostgreSQL used meanwhile. */
interface Round {
  result: LoadResult;
  serverCpu: number;
  postgresCpu: number;
  peakRss: number;
}

/** A side's rounds as one measurement: their requests over their seconds, their latencies merged, their CPU per request. */
function together(rounds: Round[]): Measured {
  const sum = (of: (round: Round) => number) => rounds.reduce((total, round) => total + of(round), 0);
  const requests = sum((round) => round.result.requests);
  const seconds = sum((round) => (round.result.rps > 0 ? round.result.requests / round.result.rps : 0));
  const latencies = rounds.flatMap((round) => round.result.latencies ?? []);
  return {
    requests,
    rps: seconds > 0 ? requests / seconds : 0,
    p50: latencies.length ? percentile(latencies, 50) : NaN,
    p99: latencies.length ? percentile(latencies, 99) : NaN,
    mean: latencies.reduce((total, value) => total + value, 0) / Math.max(1, latencies.length),
    max: latencies.length ? latencies.reduce((most, value) => Math.max(most, value)) : Number.NaN,
    errors: sum((round) => round.result.errors),
    non2xx: sum((round) => round.result.non2xx),
    peakRss: Math.max(...rounds.map((round) => round.peakRss)),
    serverCpuPerRequest: sum((round) => round.serverCpu) / Math.max(1, requests),
    postgresCpuPerRequest: sum((round) => round.postgresCpu) / Math.max(1, requests),
  };
}

/** The commit measured, and whether src/ differs from it (other work in the same tree). */
function codeVersion(): string {
  try {
    const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
    const changed = execFileSync('git', ['status', '--porcelain', '--', 'src', 'prisma'], {
      cwd: ROOT,
      encoding: 'utf8',
    }).trim();
    return changed ? `${commit} with uncommitted changes in src/ or prisma/` : commit;
  } catch {
    return 'unknown (not a git checkout)';
  }
}

const versionOf = async (name: string) =>
  (JSON.parse(await readFile(path.join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version: string })
    .version;

/** PostGraphile 5's version, when bench/postgraphile5 is installed (the scenarios that run alone do not install it). */
const postgraphile5Version = () =>
  readFile(path.join(BENCH_DIR, 'postgraphile5', 'node_modules', 'postgraphile', 'package.json'), 'utf8').then(
    (text) => (JSON.parse(text) as { version: string }).version,
    () => 'not installed',
  );

/** The report's title and the machine measured on (PostgreSQL's settings read from `database`). */
async function machineSection(database: BenchDatabase) {
  const sql = new pg.Client({ connectionString: database.url });
  sql.on('error', () => {});
  await sql.connect();
  const pgSettings = Object.fromEntries(
    (
      await sql
        .query<{ name: string; setting: string; unit: string | null }>(
          `SELECT name, setting, unit FROM pg_settings WHERE name IN ('shared_buffers', 'work_mem', 'random_page_cost', 'max_parallel_workers_per_gather', 'jit')`,
        )
        .finally(() => sql.end())
    ).rows.map((row) => [
      row.name,
      row.unit === '8kB' ? `${(Number(row.setting) * 8) / 1024} MB` : `${row.setting}${row.unit ?? ''}`,
    ]),
  );
  const cpus = os.cpus();
  report.line(`# Benchmark run, ${new Date().toISOString()}`);
  report.line('');
  report.line('## Machine');
  report.table(
    ['', ''],
    [
      ['CPU', `${cpus[0]?.model ?? '?'}, ${os.availableParallelism()} cores (nproc)`],
      ['memory', `${(os.totalmem() / 2 ** 30).toFixed(1)} GiB`],
      [
        'PostgreSQL',
        `${database.serverVersion} (${Object.entries(pgSettings)
          .map(([key, value]) => `${key} ${value}`)
          .join(', ')})`,
      ],
      ['Node.js', process.version],
      ['gateway code', codeVersion()],
      ['load average at the start (1, 5, 15 min)', loadAtStart.map((value) => value.toFixed(2)).join(', ')],
      [
        'packages',
        `autocannon ${await versionOf('autocannon')}, postgraphile ${await versionOf('postgraphile')} and ${await postgraphile5Version()} (bench/postgraphile5), graphql-yoga ${await versionOf('graphql-yoga')}, fastify ${await versionOf('fastify')}, @prisma/client ${await versionOf('@prisma/client')}`,
      ],
    ],
  );
}

/** The last line of the report, and the file. */
function closeReport() {
  report.line('');
  report.line(
    `Whole run: ${elapsed()}. Load average at the end (1, 5, 15 min): ${os
      .loadavg()
      .map((value) => value.toFixed(2))
      .join(', ')} (the machine is shared: anything else running competes for its cores).`,
  );
  report.save(REPORT_FILE);
  log(`report saved to ${REPORT_FILE}`);
}

/** (g) runs on two fresh databases of its own: the gateway's and the raw loop's. */
const engineDatabases = async () => ({
  gateway: await newDatabase(),
  guarded: await newDatabase(),
  raw: await newDatabase(),
});

/** The report's targets section of a scenario run alone. */
function targetsSection(rows: string[][]) {
  report.line('');
  report.line('## Targets');
  report.table(['target', 'measured', 'verdict'], rows);
}

/** The scenarios that run alone (`--only <name>`), each on fresh databases of its own, with the machine section. */
const aloneScenarios: Record<(typeof ALONE)[number], () => Promise<void>> = {
  engine: async () => {
    const databases = await engineDatabases();
    await machineSection(databases.gateway);
    const engine = await measureEngine(databases, log);
    reportEngine(report, engine);
    targetsSection(engineTargets(engine));
  },
  csv: async () => {
    const database = await newDatabase();
    await machineSection(database);
    const csv = await measureCsvImport(database, log);
    reportCsvImport(report, csv);
    targetsSection(csvImportTargets(csv));
  },
  tracing: async () => {
    const database = await newDatabase();
    await machineSection(database);
    reportTracing(report, await measureTracing(database, log, { duration: DURATION, warmup: WARMUP }));
  },
  records: async () => {
    const database = await newDatabase();
    await machineSection(database);
    const records = await measureRecords(database, log);
    reportRecords(report, records);
    targetsSection(recordsTargets(records));
  },
  subscribers: async () => {
    const database = await newDatabase();
    await machineSection(database);
    const fanout = await measureFanout(database, log);
    reportFanout(report, fanout);
    targetsSection(fanoutTargets(fanout));
  },
  retention: async () => {
    const database = await newDatabase();
    await machineSection(database);
    reportRetention(report, await measureRetention(database, log));
  },
  cache: async () => {
    const database = await newDatabase();
    await machineSection(database);
    reportCache(report, await measureCache(database, log, { duration: DURATION, warmup: WARMUP }));
  },
  partitions: async () => {
    const measured = await measurePartitions(newDatabase, log, { duration: DURATION, warmup: WARMUP });
    await machineSection(databases[0]!);
    reportPartitions(report, measured);
  },
  'cache-scale': async () => {
    const database = await newDatabase();
    await machineSection(database);
    reportCacheScale(report, await measureCacheScale(database, log, { duration: DURATION, warmup: WARMUP }));
  },
};

if (only !== undefined && !readsOnly) {
  try {
    await aloneScenarios[only as (typeof ALONE)[number]]();
    closeReport();
  } finally {
    await cleanUp();
  }
  process.exit(0);
}

interface Measured extends LoadResult {
  /** Peak RSS of the server during the measured load, MiB. */
  peakRss: number;
  /** CPU ms the server process used per answered request. */
  serverCpuPerRequest: number;
  /** CPU ms the bench database's PostgreSQL backends used per answered request. */
  postgresCpuPerRequest: number;
}

interface Servers {
  gateway?: ServerProcess;
  raw?: ServerProcess;
  postgraphile?: ServerProcess;
  postgraphile5?: ServerProcess;
  yoga?: ServerProcess;
}
const servers: Servers = {};

const database = await newDatabase();
try {
  // ---------------------------------------------------------------- set-up
  installPostGraphile5(log);
  log(`database ${database.name}: migrating and seeding (a few minutes)`);
  const db = await prepareDatabase({ kind: 'postgres', url: database.url, poolSize: 4 });
  const { organization, apiKey } = await createOrganization(db.prisma, 'Bench');
  const keyRow = await db.prisma.apiKey.findFirstOrThrow({ where: { organizationId: organization.id } });
  const sql = new pg.Client({ connectionString: database.url });
  // A lost connection fails the next query (and the run, cleanly), not the process.
  sql.on('error', (error) => log(`the benchmark's own connection: ${error.message}`));
  await sql.connect();
  const seeded = await seed(sql, organization.id, keyRow.id, log);
  await machineSection(database);
  report.line('');
  report.line('## Dataset');
  report.line(
    `${seeded.counts.runs!.toLocaleString('en')} runs, ${seeded.counts.prospects!.toLocaleString('en')} prospects, ` +
      `${seeded.counts.batches!.toLocaleString('en')} batches, ${seeded.counts.workflows} workflows in one organization, ` +
      `seeded with INSERT … SELECT over generate_series in ${seeded.seconds.toFixed(0)} s, then VACUUM ANALYZE. ` +
      `The big batch (workflow 10) has ${Math.min(SEED.prospects, SEED.runs).toLocaleString('en')} runs; the other batches about ${Math.round((SEED.runs - Math.min(SEED.prospects, SEED.runs)) / (SEED.batches - 1))} each.`,
  );
  report.line(
    `Load: autocannon in its own process, ${WARMUP} s of warm-up then ${DURATION} s measured per server and row, in ${ROUNDS} turns the row's servers take in alternation (A B, B A, …), 1 s of warm-up before each later turn; every server has a pool of ${POOL_SIZE} PostgreSQL connections.`,
  );

  // --------------------------------------- what the gateway sends, from inside
  const keyHeaders = { 'x-api-key': apiKey };
  const jsonHeaders = { 'content-type': 'application/json', 'x-api-key': apiKey };
  // The response cache is on by default (src/graphql/use-response-cache.ts): the
  // dashboard rows compared with the other servers execute (`Cache-Control:
  // no-cache` skips the cache both ways); the cached row says what a hit costs.
  const noCacheHeaders = { ...jsonHeaders, 'cache-control': 'no-cache' };
  const dashboardBody = JSON.stringify({ query: GATEWAY_DASHBOARD, variables: { id: seeded.dashboardWorkflowId } });
  const recordsBody = JSON.stringify({
    query: GATEWAY_DASHBOARD_WITH_RECORDS,
    variables: { id: seeded.dashboardWorkflowId },
  });
  const e6Path =
    `/org/${organization.id}/workflows/${seeded.bigWorkflowId}/runs?status=${E6.status}&batch_id=${seeded.bigBatchId}` +
    `&sort=started_desc&page=${E6.page}&limit=${E6.limit}`;
  log(`${elapsed()}: the gateway's statements, counted in-process`);
  // E6's pending shapes (bench/shapes.ts: the big batch's, and the fresh batch
  // the planner has no statistics of) are EXPLAINed beside the main one.
  const pendingShapes = runsShapes(seeded).filter(
    (shape, index) => index === 0 || shape.batchId === seeded.freshBatchId,
  );
  const [dashboardStatements, e6Statements, recordsStatements, ...pendingStatements] = await captureStatements(db, [
    { method: 'POST', url: '/graphql', headers: noCacheHeaders, body: dashboardBody },
    { method: 'GET', url: e6Path, headers: keyHeaders },
    { method: 'POST', url: '/graphql', headers: noCacheHeaders, body: recordsBody },
    ...pendingShapes.map((shape) => ({
      method: 'GET' as const,
      url: `/org/${organization.id}/workflows/${shape.workflowId}/runs?${runsQueryOf(shape)}`,
      headers: keyHeaders,
    })),
  ]);
  const rawParams = {
    dashboard: [seeded.dashboardWorkflowId, organization.id],
    runs: [seeded.bigWorkflowId, seeded.bigBatchId, E6.status, E6.page, E6.limit, organization.id],
  };
  const plans = async (captured: CapturedRequest) => {
    const explained = [];
    for (const statement of captured.statements)
      explained.push({ statement, plan: await explain(sql, statement.sql, statement.params) });
    return explained;
  };
  const dashboardPlans = await plans(dashboardStatements!);
  const e6Plans = await plans(e6Statements!);
  const pendingPlans = [];
  for (const [index, shape] of pendingShapes.entries()) {
    pendingPlans.push({
      shape,
      gateway: await plans(pendingStatements[index]!),
      raw: await explain(sql, runsSql(shape.sort, false), [
        shape.workflowId,
        shape.batchId,
        shape.status,
        shape.page,
        shape.limit,
        organization.id,
      ]),
    });
  }
  const recordsPlans = await plans(recordsStatements!);
  const rawPlans = {
    dashboard: await explain(sql, DASHBOARD_SQL, rawParams.dashboard),
    runs: await explain(sql, RUNS_SQL, rawParams.runs),
    runsCounting: await explain(sql, RUNS_COUNTING_SQL, rawParams.runs),
  };
  await db.close();

  // ------------------------------------------------------------ the servers
  // What `npm start` runs (the compiled build), an API-only instance: no run
  // engine working through the seeded runs, no line per request (none of the
  // servers compared logs requests).
  const startBenchGateway = (nodeArgs: string[] = []) =>
    startGateway({
      name: 'gateway',
      databaseUrl: database.url,
      nodeArgs,
      env: { DATABASE_POOL_SIZE: String(POOL_SIZE) },
    });
  const startBenchServer = async (name: string, file: string, env: Record<string, string> = {}) => {
    const port = await freePort();
    return startServer({
      name,
      script: path.join(BENCH_DIR, file),
      args: [String(port)],
      env: { DATABASE_URL: database.url, DATABASE_POOL_SIZE: String(POOL_SIZE), ...env },
      port,
      readyPath: '/health',
    });
  };

  log(`${elapsed()}: starting the servers`);
  servers.gateway = await startBenchGateway();
  await sleep(2000);
  const gatewayIdleAtStart = rssMiB(servers.gateway.pid);
  servers.raw = await startBenchServer('raw', 'baseline-raw.ts', { BENCH_ORGANIZATION_ID: organization.id });
  servers.postgraphile = await startBenchServer('postgraphile', 'postgraphile.ts');
  servers.postgraphile5 = await startBenchServer('postgraphile5', 'postgraphile5/server.js');
  servers.yoga = await startBenchServer('plain-yoga', 'plain-yoga.ts');
  const { gateway, raw, postgraphile, postgraphile5, yoga } = servers as Required<Servers>;

  const load = {
    /** A GraphQL request to the gateway: executed (no-cache) unless `cached`, when the response cache may answer it. */
    gatewayGraphql: (body: string, cached = false): Omit<LoadOptions, 'connections'> => ({
      url: `${gateway.url}/graphql`,
      method: 'POST',
      headers: cached ? jsonHeaders : noCacheHeaders,
      body,
      duration: DURATION,
      warmup: WARMUP,
    }),
    graphql: (server: ServerProcess, body: string): Omit<LoadOptions, 'connections'> => ({
      url: `${server.url}/graphql`,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
      duration: DURATION,
      warmup: WARMUP,
    }),
    get: (url: string, headers: Record<string, string> = {}): Omit<LoadOptions, 'connections'> => ({
      url,
      headers,
      duration: DURATION,
      warmup: WARMUP,
    }),
  };
  const fetchJson = async (options: Omit<LoadOptions, 'connections'>) => {
    const response = await fetch(options.url, {
      method: options.method ?? 'GET',
      headers: options.headers,
      body: options.body,
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${options.url}: ${response.status} ${text.slice(0, 500)}`);
    const body = JSON.parse(text) as { errors?: unknown };
    if (body.errors) throw new Error(`${options.url}: ${JSON.stringify(body.errors).slice(0, 500)}`);
    return { body: body as any, bytes: Buffer.byteLength(text) };
  };
  const same = (what: string, a: unknown, b: unknown) => {
    if (JSON.stringify(a) !== JSON.stringify(b))
      throw new Error(`${what}: the servers disagree:\n${JSON.stringify(a)}\n${JSON.stringify(b)}`);
  };

  const targets = {
    dashboard: {
      gateway: load.gatewayGraphql(dashboardBody),
      gatewayCached: load.gatewayGraphql(dashboardBody, true),
      postgraphile: load.graphql(
        postgraphile,
        JSON.stringify({
          query: POSTGRAPHILE_DASHBOARD,
          variables: { id: seeded.dashboardWorkflowId, organizationId: organization.id },
        }),
      ),
      postgraphile5: load.graphql(
        postgraphile5,
        JSON.stringify({
          query: POSTGRAPHILE5_DASHBOARD,
          variables: { id: seeded.dashboardWorkflowId, organizationId: organization.id },
        }),
      ),
      raw: load.get(`${raw.url}/dashboard?id=${seeded.dashboardWorkflowId}`),
    },
    runs: {
      gateway: load.get(`${gateway.url}${e6Path}`, keyHeaders),
      postgraphile: load.graphql(
        postgraphile,
        JSON.stringify({
          query: POSTGRAPHILE_RUNS,
          variables: {
            workflowId: seeded.bigWorkflowId,
            batchId: seeded.bigBatchId,
            status: E6.status,
            organizationId: organization.id,
            first: E6.limit,
            offset: (E6.page - 1) * E6.limit,
          },
        }),
      ),
      postgraphile5: load.graphql(
        postgraphile5,
        JSON.stringify({
          query: POSTGRAPHILE5_RUNS,
          variables: {
            workflowId: seeded.bigWorkflowId,
            batchId: seeded.bigBatchId,
            status: E6.status,
            organizationId: organization.id,
            first: E6.limit,
            offset: (E6.page - 1) * E6.limit,
          },
        }),
      ),
      raw: load.get(
        `${raw.url}/runs?workflow_id=${seeded.bigWorkflowId}&batch_id=${seeded.bigBatchId}&status=${E6.status}&page=${E6.page}&limit=${E6.limit}`,
      ),
      rawCounting: load.get(
        `${raw.url}/runs?workflow_id=${seeded.bigWorkflowId}&batch_id=${seeded.bigBatchId}&status=${E6.status}&page=${E6.page}&limit=${E6.limit}&count=rows`,
      ),
    },
    trivial: {
      gateway: load.gatewayGraphql(JSON.stringify({ query: TRIVIAL })),
      yoga: load.graphql(yoga, JSON.stringify({ query: TRIVIAL })),
    },
  };

  // Every server answers the same rows before any is timed.
  const answers = {
    dashboard: {
      gateway: await fetchJson(targets.dashboard.gateway),
      gatewayCached: await fetchJson(targets.dashboard.gatewayCached),
      postgraphile: await fetchJson(targets.dashboard.postgraphile),
      postgraphile5: await fetchJson(targets.dashboard.postgraphile5),
      raw: await fetchJson(targets.dashboard.raw),
    },
    runs: {
      gateway: await fetchJson(targets.runs.gateway),
      postgraphile: await fetchJson(targets.runs.postgraphile),
      postgraphile5: await fetchJson(targets.runs.postgraphile5),
      raw: await fetchJson(targets.runs.raw),
      rawCounting: await fetchJson(targets.runs.rawCounting),
    },
  };
  const dashboardDigest = digestGatewayDashboard(answers.dashboard.gateway.body);
  same('dashboard, cached', dashboardDigest, digestGatewayDashboard(answers.dashboard.gatewayCached.body));
  same('dashboard, PostGraphile', dashboardDigest, digestPostGraphileDashboard(answers.dashboard.postgraphile.body));
  same('dashboard, PostGraphile 5', dashboardDigest, digestGatewayDashboard(answers.dashboard.postgraphile5.body));
  same('dashboard, raw', dashboardDigest, digestGatewayDashboard(answers.dashboard.raw.body));
  if (dashboardDigest.batches.length !== 20 || dashboardDigest.runsPerBatch.some((count) => count !== 50)) {
    throw new Error(`the dashboard should hold 20 batches of 50 runs: ${JSON.stringify(dashboardDigest.runsPerBatch)}`);
  }
  const runsDigest = digestRestRuns(answers.runs.gateway.body);
  same('E6, PostGraphile', runsDigest, digestPostGraphileRuns(answers.runs.postgraphile.body));
  same('E6, PostGraphile 5', runsDigest, digestPostGraphile5Runs(answers.runs.postgraphile5.body));
  same('E6, raw', runsDigest, digestRestRuns(answers.runs.raw.body));
  same('E6, raw counting', runsDigest, digestRestRuns(answers.runs.rawCounting.body));
  if (runsDigest.ids.length !== E6.limit)
    throw new Error(`E6 should answer ${E6.limit} runs, not ${runsDigest.ids.length}`);

  const measureRound = async (options: LoadOptions, server: ServerProcess): Promise<Round> => {
    let sampler: ReturnType<typeof sampleRss> | undefined;
    let serverCpuAtStart = 0;
    let postgresAtStart = new Map<number, number>();
    const result = await runLoad(options, async () => {
      sampler = sampleRss(server.pid);
      serverCpuAtStart = cpuMs(server.pid);
      postgresAtStart = await postgresCpu(sql);
    });
    const serverCpu = cpuMs(server.pid) - serverCpuAtStart;
    let postgres = 0;
    for (const [pid, used] of await postgresCpu(sql)) postgres += used - (postgresAtStart.get(pid) ?? 0);
    // A server slower than the load (PostGraphile's) still has statements running when the load stops:
    // the next turn starts once they are done, or they would be charged to it and slow it.
    await postgresQuiet(sql);
    return { result, serverCpu, postgresCpu: postgres, peakRss: sampler?.stop().peak ?? NaN };
  };
  /**
   * The servers of one row, each loaded for DURATION seconds in ROUNDS turns
   * (A B, then B A, …) rather than one after the other: the machine's speed
   * drifts over minutes, and in turns every side meets the same drift. A
   * side's figures are its rounds' together (its latencies merged, its CPU
   * summed over all its requests).
   */
  const measureInTurns = async <Side extends string>(
    label: string,
    sides: Record<Side, { options: Omit<LoadOptions, 'connections'>; server: ServerProcess }>,
    connections: number,
  ): Promise<Record<Side, Measured>> => {
    const names = Object.keys(sides) as Side[];
    const rounds = new Map<Side, Round[]>(names.map((name) => [name, []]));
    for (let round = 0; round < ROUNDS; round++) {
      for (const name of round % 2 ? [...names].reverse() : names) {
        const { options, server } = sides[name];
        // The first turn warms the server up; the later ones only open the load's connections again.
        const warmup = round === 0 ? options.warmup : Math.min(options.warmup, 1);
        rounds
          .get(name)!
          .push(
            await measureRound(
              { ...options, connections, duration: options.duration / ROUNDS, warmup, latencies: true },
              server,
            ),
          );
      }
    }
    const measured = {} as Record<Side, Measured>;
    for (const name of names) {
      measured[name] = together(rounds.get(name)!);
      log(
        `${elapsed()}: ${label}, ${name}, ${connections} connection(s): ${rps(measured[name].rps)} req/s, ` +
          `p50 ${ms(measured[name].p50)}, p99 ${ms(measured[name].p99)}; CPU per request: server ` +
          `${ms(measured[name].serverCpuPerRequest)}, PostgreSQL ${ms(measured[name].postgresCpuPerRequest)}`,
      );
    }
    return measured;
  };

  // -------------------------------------------------------- (e) trivial query
  const trivialSides = {
    yoga: { options: targets.trivial.yoga, server: yoga },
    gateway: { options: targets.trivial.gateway, server: gateway },
  };
  const trivialAt1 = await measureInTurns('(e) trivial query', trivialSides, 1);
  const trivialAt32 = await measureInTurns('(e) trivial query', trivialSides, CONNECTIONS);
  const trivial = {
    yoga1: trivialAt1.yoga,
    gateway1: trivialAt1.gateway,
    yoga32: trivialAt32.yoga,
    gateway32: trivialAt32.gateway,
  };

  // ------------------------------------------------------------ (a) dashboard
  const dashboardServers = { gateway, gatewayCached: gateway, postgraphile, postgraphile5, raw };
  const sidesOf = <Name extends keyof typeof dashboardServers>(names: Name[]) =>
    Object.fromEntries(
      names.map((name) => [name, { options: targets.dashboard[name], server: dashboardServers[name] }]),
    ) as Record<Name, { options: Omit<LoadOptions, 'connections'>; server: ServerProcess }>;
  const dashboard = await measureInTurns(
    '(a) dashboard',
    sidesOf(['gateway', 'gatewayCached', 'postgraphile', 'postgraphile5', 'raw']),
    CONNECTIONS,
  );

  // What operators do during a campaign: one workflow's dashboard polled by many clients at once.
  const polled: Record<string, Measured> = await measureInTurns(
    `(a) dashboard, ${POLLERS} clients`,
    sidesOf(['gateway', 'gatewayCached', 'postgraphile5', 'postgraphile', 'raw']),
    POLLERS,
  );
  /** One data shape, gateway and raw baseline at 32 connections, once both answer the same (`digest`). */
  const measureShape = async (
    what: string,
    label: string,
    shapeTargets: Record<'gateway' | 'raw', Omit<LoadOptions, 'connections'>>,
    digest: (body: any) => unknown,
  ) => {
    same(
      `${what}, ${label}, raw`,
      digest((await fetchJson(shapeTargets.gateway)).body),
      digest((await fetchJson(shapeTargets.raw)).body),
    );
    const measured = await measureInTurns(
      `${what}, ${label}`,
      { gateway: { options: shapeTargets.gateway, server: gateway }, raw: { options: shapeTargets.raw, server: raw } },
      CONNECTIONS,
    );
    return { label, ...measured };
  };
  // The dashboard with records: (a)'s workflow, each run with its latest call record.
  const recordsDigest = digestDashboardRecords((await fetchJson(load.gatewayGraphql(recordsBody))).body);
  if (!recordsDigest.records.some((record) => record[0] !== null))
    throw new Error('the dashboard with records shows no record: the seed gives each started run of workflow 1 one');
  const dashboardShapeResults = [
    await measureShape(
      '(a) dashboard',
      "workflow 1 with each run's latest call record",
      {
        gateway: load.gatewayGraphql(recordsBody),
        raw: load.get(`${raw.url}/dashboard?id=${seeded.dashboardWorkflowId}&records=1`),
      },
      digestDashboardRecords,
    ),
  ];
  for (const shape of dashboardShapes(seeded)) {
    const body = JSON.stringify({ query: GATEWAY_DASHBOARD, variables: { id: shape.workflowId } });
    dashboardShapeResults.push(
      await measureShape(
        '(a) dashboard',
        shape.label,
        { gateway: load.gatewayGraphql(body), raw: load.get(`${raw.url}/dashboard?id=${shape.workflowId}`) },
        digestGatewayDashboard,
      ),
    );
  }
  // ------------------------------------------------------------------ (b) E6
  const runsServers = { gateway, postgraphile, postgraphile5, raw, rawCounting: raw };
  const runsSides = Object.fromEntries(
    Object.entries(runsServers).map(([name, server]) => [
      name,
      { options: targets.runs[name as keyof typeof runsServers], server },
    ]),
  );
  const runsAt1 = await measureInTurns('(b) E6', runsSides, 1);
  const runsAt32 = await measureInTurns('(b) E6', runsSides, CONNECTIONS);
  const runs: Record<string, Record<'c1' | 'c32', Measured>> = Object.fromEntries(
    Object.keys(runsServers).map((name) => [name, { c1: runsAt1[name]!, c32: runsAt32[name]! }]),
  );
  const runsShapeResults = [];
  for (const shape of runsShapes(seeded)) {
    const query = runsQueryOf(shape);
    const shapeTargets = {
      gateway: load.get(
        `${gateway.url}/org/${organization.id}/workflows/${shape.workflowId}/runs?${query}`,
        keyHeaders,
      ),
      raw: load.get(`${raw.url}/runs?workflow_id=${shape.workflowId}&${query}`),
    };
    runsShapeResults.push(await measureShape('(b) E6', shape.label, shapeTargets, digestRestRuns));
  }
  await sleep(5000);
  const gatewayIdleAfterLoad = rssMiB(gateway.pid);
  const otherRss = { raw: rssMiB(raw.pid), postgraphile: rssMiB(postgraphile.pid), yoga: rssMiB(yoga.pid) };
  await gateway.stop();

  // ------------------------------------------------------------- profiles
  const profile = async (label: string, options: Omit<LoadOptions, 'connections'>): Promise<ProfileSummary> => {
    const directory = await mkdtemp(path.join(os.tmpdir(), 'gateway-profile-'));
    try {
      const spawnedAt = performance.now();
      const profiled = await startBenchGateway(['--cpu-prof', `--cpu-prof-dir=${directory}`]);
      servers.gateway = profiled;
      const target = { ...options, url: options.url.replace(gateway.url, profiled.url) };
      log(`${elapsed()}: profiling the gateway: ${label}`);
      let measuringAfter = 0;
      await runLoad({ ...target, connections: CONNECTIONS }, () => {
        measuringAfter = performance.now() - spawnedAt;
      });
      await profiled.stop();
      // CPU.<date>.<time>.<pid>.<thread>.<seq>.cpuprofile: thread 0 is the main thread.
      const file = (await readdir(directory)).find(
        (name) => name.split('.')[4] === '0' && name.endsWith('.cpuprofile'),
      );
      if (!file) throw new Error('the gateway wrote no CPU profile');
      // The start and the warm-up are left out: only the measured seconds count.
      return summarizeProfile(path.join(directory, file), 12, measuringAfter);
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  };
  const profiles = {
    dashboard: await profile('(a) dashboard', targets.dashboard.gateway),
    runs: await profile('(b) E6', targets.runs.gateway),
  };
  await raw.stop();
  await postgraphile.stop();
  await postgraphile5.stop();
  await yoga.stop();

  // ----------------------------------------------------------------- report
  const loadHeader = [
    'server',
    'req/s',
    'median',
    'p99',
    'gateway req/s ÷ this',
    'server CPU / req',
    'PostgreSQL CPU / req',
  ];
  const loadRow = (name: string, result: Measured, gatewayRps: number, isGateway = false) => [
    name,
    rps(result.rps),
    ms(result.p50),
    ms(result.p99),
    isGateway ? '1.00×' : ratio(gatewayRps / result.rps),
    ms(result.serverCpuPerRequest),
    ms(result.postgresCpuPerRequest),
  ];
  report.line('');
  report.line(`## (a) Dashboard query, ${CONNECTIONS} connections`);
  report.line(
    `Workflow, its 20 newest batches with stats, 50 runs of each with their prospect (1,000 runs). Answer sizes: gateway ${(answers.dashboard.gateway.bytes / 1024).toFixed(0)} KiB, ` +
      `PostGraphile 4 ${(answers.dashboard.postgraphile.bytes / 1024).toFixed(0)} KiB, PostGraphile 5 ${(answers.dashboard.postgraphile5.bytes / 1024).toFixed(0)} KiB (instants as \`+00:00\`), ` +
      `raw ${(answers.dashboard.raw.bytes / 1024).toFixed(0)} KiB; the four answers hold the same batches, runs and instants (checked).`,
  );
  report.line(
    'The gateway twice: **no-cache** (`Cache-Control: no-cache`: every request executed, the row compared with the others) ' +
      'and **cached** (the response cache, on by default, answering the same dashboard from memory).',
  );
  report.table(loadHeader, [
    loadRow('gateway, no-cache (POST /graphql)', dashboard.gateway, dashboard.gateway.rps, true),
    loadRow('gateway, cached (response cache hits)', dashboard.gatewayCached, dashboard.gateway.rps),
    loadRow('PostGraphile 4', dashboard.postgraphile, dashboard.gateway.rps),
    loadRow('PostGraphile 5', dashboard.postgraphile5, dashboard.gateway.rps),
    loadRow('raw SQL + node:http', dashboard.raw, dashboard.gateway.rps),
  ]);
  report.line('');
  report.line(
    `Gateway SQL statements for one dashboard request, no-cache (counted by Database.onStatement, warm): **${dashboardStatements!.count}**; ` +
      `with each run's latest call record: **${recordsStatements!.count}**.`,
  );
  statementTable(dashboardPlans);
  report.line('');
  report.line("With each run's latest call record:");
  statementTable(recordsPlans);
  report.line('');
  report.line(
    `### (a) polled by ${POLLERS} clients at once: one workflow's dashboard, ${POLLERS} connections, each asking again as soon as answered`,
  );
  report.table(loadHeader, [
    loadRow('gateway, no-cache (POST /graphql)', polled.gateway!, polled.gateway!.rps, true),
    loadRow('gateway, cached (response cache hits)', polled.gatewayCached!, polled.gateway!.rps),
    loadRow('PostGraphile 4', polled.postgraphile!, polled.gateway!.rps),
    loadRow('PostGraphile 5', polled.postgraphile5!, polled.gateway!.rps),
    loadRow('raw SQL + node:http', polled.raw!, polled.gateway!.rps),
  ]);
  report.line('');
  report.line(
    `### (a) on other data shapes, ${CONNECTIONS} connections (the same query; raw SQL answers the same rows, checked)`,
  );
  const dashboardShapeTable = shapeRows(dashboardShapeResults);
  report.table(dashboardShapeTable.header, dashboardShapeTable.rows);

  report.line('');
  report.line(
    `## (b) E6: runs by status and batch, started_desc, page ${E6.page} of ${E6.limit} (offset ${(E6.page - 1) * E6.limit})`,
  );
  report.line(
    `\`GET ${e6Path.replace(organization.id, '{org}').replace(seeded.bigWorkflowId, '{workflow 10}').replace(seeded.bigBatchId, '{big batch}')}\`: ` +
      `${runsDigest.total.toLocaleString('en')} matching runs among ${seeded.counts.runs!.toLocaleString('en')}; all five answer the same 100 ids and total (checked).`,
  );
  for (const level of ['c1', 'c32'] as const) {
    report.line('');
    report.line(`${level === 'c1' ? 1 : CONNECTIONS} connection(s):`);
    const base = runs.gateway![level].rps;
    report.table(loadHeader, [
      loadRow('gateway (REST E6)', runs.gateway![level], base, true),
      loadRow('PostGraphile 4', runs.postgraphile![level], base),
      loadRow('PostGraphile 5', runs.postgraphile5![level], base),
      loadRow('raw SQL, total from the batch counter', runs.raw![level], base),
      loadRow('raw SQL, total by count(*)', runs.rawCounting![level], base),
    ]);
  }
  report.line('');
  report.line(`Gateway SQL statements for one E6 request: **${e6Statements!.count}**.`);
  statementTable(e6Plans);
  report.line('');
  report.line(
    `### (b) on other data shapes: page 2, 100 runs a page, ${CONNECTIONS} connections (pending runs have no startedAt; raw SQL answers the same ids and total, checked)`,
  );
  const runsShapeTable = shapeRows(runsShapeResults);
  report.table(runsShapeTable.header, runsShapeTable.rows);
  report.line('');
  report.line(`### Targets of the dashboards and E6 on every shape, ${CONNECTIONS} connections`);
  report.table(
    ['target', 'measured', 'verdict'],
    shapeTargets({
      dashboard,
      dashboardStatements: dashboardStatements!.count,
      recordsStatements: recordsStatements!.count,
      runs: [
        { label: `E6 as above (${E6.status}, page ${E6.page})`, gateway: runs.gateway!.c32, raw: runs.raw!.c32 },
        ...runsShapeResults,
      ],
    }),
  );

  if (!readsOnly) {
    // ------------------------------------------- (d) subscribers, (c) E4
    const live = await startBenchGateway();
    servers.gateway = live;
    const rest = async (method: string, route: string, body?: unknown) => {
      const response = await fetch(`${live.url}/org/${organization.id}${route}`, {
        method,
        headers: body === undefined ? keyHeaders : jsonHeaders,
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      if (!response.ok) throw new Error(`${method} ${route}: ${response.status} ${await response.text()}`);
      return response.json() as Promise<any>;
    };

    log(`${elapsed()}: (d) ${SUBSCRIBERS} subscribers`);
    const liveProspect = await rest('POST', '/prospects', { first_name: 'Live' });
    const liveBatch = await rest('POST', `/workflows/${seeded.e4WorkflowId}/batches`, {
      name: 'Live',
      prospect_ids: [liveProspect.created[0].id],
    });
    const subscribers = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        path.join(BENCH_DIR, 'subscribers.ts'),
        `${live.url.replace('http', 'ws')}/graphql`,
        apiKey,
        liveBatch.id,
        String(SUBSCRIBERS),
      ],
      { cwd: ROOT, stdio: ['pipe', 'pipe', 'inherit'] },
    );
    const subscriberLines = createInterface({ input: subscribers.stdout! })[Symbol.asyncIterator]();
    const nextLine = async () => {
      const next = await subscriberLines.next();
      if (next.done) throw new Error('the subscribers process ended early');
      return next.value as string;
    };
    if ((await nextLine()) !== 'ready') throw new Error('the subscribers did not start');
    const delays: number[] = [];
    for (let change = 0; change < CHANGES; change++) {
      const status = change % 2 === 0 ? 'PAUSED' : 'PENDING';
      const sentAt = performance.timeOrigin + performance.now();
      subscribers.stdin!.write(`change ${status} ${sentAt}\n`);
      await rest('PATCH', `/batches/${liveBatch.id}`, { status });
      delays.push(...(JSON.parse(await nextLine()) as number[]));
      // Apart by more than the coalescing interval, so each change is its own event.
      await sleep(150);
    }
    subscribers.stdin!.write('quit\n');
    await new Promise((resolve) => subscribers.once('exit', resolve));

    log(`${elapsed()}: (c) E4, ${E4_ROUNDS} rounds each`);
    const prospectIds = (
      await sql.query<{ id: string }>(
        'SELECT id FROM "Prospect" WHERE "organizationId" = $1 AND "firstName" <> $2 ORDER BY id',
        [organization.id, 'Live'],
      )
    ).rows.map((row) => row.id);
    const versionId = (
      await sql.query<{ id: string }>('SELECT id FROM "WorkflowVersion" WHERE "workflowId" = $1', [seeded.e4WorkflowId])
    ).rows[0]!.id;
    const e4 = { gateway: [] as number[], raw: [] as number[] };
    // Interleaved, so both see the table grow alike.
    for (let round = 0; round < E4_ROUNDS; round++) {
      let started = performance.now();
      const created = await rest('POST', `/workflows/${seeded.e4WorkflowId}/batches`, {
        name: `E4 gateway ${round}`,
        prospect_ids: prospectIds,
      });
      e4.gateway.push(performance.now() - started);
      if (created.total_prospects !== prospectIds.length && created.stats?.pending_count !== prospectIds.length) {
        throw new Error(`E4 created ${JSON.stringify(created.stats)}`);
      }
      log(`  gateway ${(e4.gateway.at(-1)! / 1000).toFixed(2)} s`);
      started = performance.now();
      await sql.query('BEGIN');
      const batch = await sql.query<{ id: string }>(
        `INSERT INTO "Batch" ("organizationId", "workflowId", "workflowVersionId", name, "sourceType", "createdBy", "updatedAt")
       VALUES ($1, $2, $3, $4, 'prospect_ids', $5, now()) RETURNING id`,
        [organization.id, seeded.e4WorkflowId, versionId, `E4 raw ${round}`, keyRow.id],
      );
      const inserted = await sql.query(
        `INSERT INTO "Run" ("organizationId", "workflowId", "workflowVersionId", "batchId", "prospectId", "updatedAt")
       SELECT $1, $2, $3, $4, id, now() FROM unnest($5::text[]) AS id`,
        [organization.id, seeded.e4WorkflowId, versionId, batch.rows[0]!.id, prospectIds],
      );
      await sql.query(`UPDATE "Batch" SET "totalProspects" = $2, "pendingCount" = $2 WHERE id = $1`, [
        batch.rows[0]!.id,
        inserted.rowCount,
      ]);
      await sql.query('COMMIT');
      e4.raw.push(performance.now() - started);
      log(`  raw ${(e4.raw.at(-1)! / 1000).toFixed(2)} s`);
    }
    await live.stop();
    await sql.end();

    log(`${elapsed()}: (g) the run engine`);
    const engine = await measureEngine(await engineDatabases(), log);
    log(`${elapsed()}: (h) the CSV import`);
    const csv = await measureCsvImport(await newDatabase(), log);
    log(`${elapsed()}: (i) tracing off and on`);
    const traced = await measureTracing(await newDatabase(), log, { duration: DURATION, warmup: WARMUP });
    log(`${elapsed()}: (j) subscribers over two instances`);
    const fanout = await measureFanout(await newDatabase(), log);
    log(`${elapsed()}: (k) the response cache and live queries`);
    const cached = await measureCache(await newDatabase(), log, { duration: DURATION, warmup: WARMUP });
    log(`${elapsed()}: (n) live dashboards and polling at scale`);
    const cachedAtScale = await measureCacheScale(await newDatabase(), log, { duration: DURATION, warmup: WARMUP });

    report.line('');
    report.line(
      `## (c) E4: a batch of ${prospectIds.length.toLocaleString('en')} prospects (${E4_ROUNDS} rounds each, interleaved)`,
    );
    report.table(
      ['', 'median', 'worst'],
      [
        ['gateway (POST …/batches, one request)', ms(median(e4.gateway)), ms(Math.max(...e4.gateway))],
        [
          'raw: INSERT batch; INSERT … SELECT unnest(ids); UPDATE counters (one transaction)',
          ms(median(e4.raw)),
          ms(Math.max(...e4.raw)),
        ],
        ['ratio gateway ÷ raw', ratio(median(e4.gateway) / median(e4.raw)), ''],
      ],
    );

    report.line('');
    report.line(
      `## (d) One batch change reaching ${SUBSCRIBERS.toLocaleString('en')} WebSocket subscribers (${CHANGES} changes)`,
    );
    report.line(
      'From just before the PATCH (E9) is sent to each subscriber receiving the new status; the subscribers live in a second process.',
    );
    report.table(
      ['p50', 'p99', 'max'],
      [[ms(percentile(delays, 50)), ms(percentile(delays, 99)), ms(Math.max(...delays))]],
    );

    report.line('');
    report.line('## (e) Trivial query `{ __typename }`: gateway beside plain graphql-yoga');
    const trivialRow = (connections: number, name: string, result: Measured) => [
      connections,
      name,
      rps(result.rps),
      ms(result.p50),
      ms(result.p99),
      ms(result.mean),
      ms(result.serverCpuPerRequest),
    ];
    report.table(
      ['connections', 'server', 'req/s', 'median', 'p99', 'mean', 'server CPU / req'],
      [
        trivialRow(1, 'plain graphql-yoga (node:http)', trivial.yoga1),
        trivialRow(1, 'gateway', trivial.gateway1),
        trivialRow(CONNECTIONS, 'plain graphql-yoga (node:http)', trivial.yoga32),
        trivialRow(CONNECTIONS, 'gateway', trivial.gateway32),
      ],
    );
    const addedLatency = trivial.gateway1.p50 - trivial.yoga1.p50;
    report.line('');
    report.line(
      `Added latency at 1 connection: ${ms(addedLatency)} at the median, ${ms(trivial.gateway1.mean - trivial.yoga1.mean)} on average ` +
        `(throughput at ${CONNECTIONS} connections: ${ratio(trivial.gateway32.rps / trivial.yoga32.rps)} of plain yoga's).`,
    );

    report.line('');
    report.line('## (f) Resident memory (VmRSS)');
    report.line(
      'The gateway runs as its own process, started as `npm start` starts it (the compiled build, `dist/main.js`, with its node flags). ' +
        'Under load: the peak of samples every 200 ms during the measured load.',
    );
    const peakGateway = Math.max(dashboard.gateway.peakRss, trivial.gateway32.peakRss, runs.gateway!.c32.peakRss);
    report.table(
      ['process', 'idle', 'under load (peak)'],
      [
        ['gateway, idle after start', mib(gatewayIdleAtStart), ''],
        ['gateway, dashboard at 32 connections', '', mib(dashboard.gateway.peakRss)],
        ['gateway, E6 at 32 connections', '', mib(runs.gateway!.c32.peakRss)],
        ['gateway, trivial query at 32 connections', '', mib(trivial.gateway32.peakRss)],
        ['gateway, idle 5 s after the loads', mib(gatewayIdleAfterLoad), ''],
        ['PostGraphile (after its loads)', mib(otherRss.postgraphile), mib(dashboard.postgraphile.peakRss)],
        ['raw baseline (after its loads)', mib(otherRss.raw), mib(dashboard.raw.peakRss)],
        ['plain yoga (after its loads)', mib(otherRss.yoga), ''],
      ],
    );

    reportEngine(report, engine);
    reportCsvImport(report, csv);
    reportTracing(report, traced);
    reportFanout(report, fanout);
    reportCache(report, cached);
    reportCacheScale(report, cachedAtScale);

    // ---------------------------------------------------------------- targets
    const e6c32 = runs.gateway!.c32;
    const e6c1 = runs.gateway!.c1;
    report.line('');
    report.line('## Targets');
    report.table(
      ['target', 'measured', 'verdict'],
      [
        [
          '(a) ≥ 1.5× PostGraphile req/s',
          `${rps(dashboard.gateway.rps)} vs ${rps(dashboard.postgraphile.rps)} (${ratio(dashboard.gateway.rps / dashboard.postgraphile.rps)})`,
          verdict(dashboard.gateway.rps >= 1.5 * dashboard.postgraphile.rps),
        ],
        [
          '(a) ≥ 0.85× raw req/s',
          `${rps(dashboard.gateway.rps)} vs ${rps(dashboard.raw.rps)} (${ratio(dashboard.gateway.rps / dashboard.raw.rps)})`,
          verdict(dashboard.gateway.rps >= 0.85 * dashboard.raw.rps),
        ],
        [
          '(a) server CPU ≤ 4 ms / request',
          ms(dashboard.gateway.serverCpuPerRequest),
          verdict(dashboard.gateway.serverCpuPerRequest <= 4),
        ],
        ['(a) ≤ 6 SQL statements', String(dashboardStatements!.count), verdict(dashboardStatements!.count <= 6)],
        ['(b) p99 < 12 ms, 1 connection', ms(e6c1.p99), verdict(e6c1.p99 < 12)],
        [
          '(b) server CPU ≤ 1.5 ms / request, 1 connection',
          ms(e6c1.serverCpuPerRequest),
          verdict(e6c1.serverCpuPerRequest <= 1.5),
        ],
        [
          `(b) ≥ 0.6× raw req/s (${CONNECTIONS} connections)`,
          `${rps(e6c32.rps)} vs ${rps(runs.raw!.c32.rps)} (${ratio(e6c32.rps / runs.raw!.c32.rps)})`,
          verdict(e6c32.rps >= 0.6 * runs.raw!.c32.rps),
        ],
        [
          '(c) within 1.1× raw',
          `${ms(median(e4.gateway))} vs ${ms(median(e4.raw))} (${ratio(median(e4.gateway) / median(e4.raw))})`,
          verdict(median(e4.gateway) <= 1.1 * median(e4.raw)),
        ],
        ['(c) < 3 s', ms(median(e4.gateway)), verdict(median(e4.gateway) < 3000)],
        ['(d) p99 < 250 ms', ms(percentile(delays, 99)), verdict(percentile(delays, 99) < 250)],
        [
          `(e) server CPU ≤ 0.45 ms / request (${CONNECTIONS} connections)`,
          ms(trivial.gateway32.serverCpuPerRequest),
          verdict(trivial.gateway32.serverCpuPerRequest <= 0.45),
        ],
        [
          `(e) ≥ 0.6× plain yoga req/s (${CONNECTIONS} connections)`,
          `${rps(trivial.gateway32.rps)} vs ${rps(trivial.yoga32.rps)} (${ratio(trivial.gateway32.rps / trivial.yoga32.rps)})`,
          verdict(trivial.gateway32.rps >= 0.6 * trivial.yoga32.rps),
        ],
        ['(e) ≤ 1 ms added (median, 1 connection)', ms(addedLatency), verdict(addedLatency <= 1)],
        [
          '(f) idle < 200 MB',
          `${mib(gatewayIdleAtStart)} (after the loads ${mib(gatewayIdleAfterLoad)}; peak ${mib(peakGateway)})`,
          verdict(gatewayIdleAtStart * 1.048576 < 200),
        ],
        ...engineTargets(engine),
        ...csvImportTargets(csv),
        ...fanoutTargets(fanout),
      ],
    );
  }

  // ------------------------------------------------------- profiles, plans
  for (const [label, summary] of [
    ['(a) dashboard', profiles.dashboard],
    ['(b) E6', profiles.runs],
  ] as const) {
    report.line('');
    report.line(`## CPU profile of the gateway process: ${label} at ${CONNECTIONS} connections`);
    report.line(
      `\`node --cpu-prof\` on the gateway process (a run of its own, after the measured ones), ${DURATION} s measured after ${WARMUP} s of warm-up: ` +
        `${(summary.busyMs / 1000).toFixed(1)} s of the main thread busy (idle left out). Self time by package:`,
    );
    report.table(
      ['share', 'package / area'],
      summary.areas.map((area) => [`${(area.share * 100).toFixed(1)}%`, area.area]),
    );
    report.line('');
    report.line('Top functions by self time:');
    report.table(
      ['share', 'function', 'where'],
      summary.functions.map((fn) => [`${(fn.share * 100).toFixed(1)}%`, `\`${fn.name}\``, fn.where]),
    );
  }
  report.line('');
  report.line('## EXPLAIN ANALYZE');
  const showPlan = (title: string, lines: string[]) => {
    report.line('');
    report.line(title);
    // Long id lists (a 1,000-id filter) are cut, the plan's shape kept.
    report.code(
      lines
        .filter((line) => !/^\s*(Buffers|Planning:)/.test(line))
        .map((line) => (line.length > 200 ? `${line.slice(0, 200)}…` : line)),
    );
  };
  for (const { statement, plan } of e6Plans) {
    if (/"Run"/.test(statement.sql))
      showPlan(`Gateway, E6: \`${statement.sql.replace(/\s+/g, ' ').trim().slice(0, 90)}…\``, plan);
  }
  const runsPlan = dashboardPlans.find(({ statement }) => /"Run"/.test(statement.sql));
  if (runsPlan)
    showPlan('Gateway, dashboard: the 50 runs of each of the 20 batches, with their prospects', runsPlan.plan);
  showPlan('Raw baseline, E6 (total from the counter)', rawPlans.runs);
  for (const { shape, gateway, raw } of pendingPlans) {
    for (const { statement, plan } of gateway)
      if (/"Run"/.test(statement.sql)) showPlan(`Gateway, E6 on ${shape.label}`, plan);
    showPlan(`Raw baseline, E6 on ${shape.label}`, raw);
  }
  showPlan('Raw baseline, E6 (total by count(*))', rawPlans.runsCounting);
  showPlan('Raw baseline, dashboard', rawPlans.dashboard);

  closeReport();
} finally {
  await cleanUp();
}
process.exit(0);

function executionTime(plan: string[]): string {
  const line = plan.find((text) => text.startsWith('Execution Time'));
  return line ? line.replace(/Execution Time: ([\d.]+) ms/, '$1') : '';
}

/** A request's statements in the report, each with its EXPLAIN ANALYZE time. */
function statementTable(plans: { statement: { sql: string }; plan: string[] }[]) {
  report.table(
    ['#', 'statement', 'EXPLAIN ANALYZE ms'],
    plans.map(({ statement, plan }, index) => [
      index + 1,
      `\`${statement.sql.replace(/\s+/g, ' ').trim().slice(0, 110)}…\``,
      executionTime(plan),
    ]),
  );
}
