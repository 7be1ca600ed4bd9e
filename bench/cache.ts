// Scenario (k): the response cache and live queries. The gateway as `npm
// start` runs it, on a small database of its own (one organization, one
// workflow, BENCH_CACHE_BATCHES batches of BENCH_CACHE_RUNS runs with their
// prospects: the dashboard query's 20 × 50), started three times one after the
// other: RESPONSE_CACHE_TTL_MS=0 (off), the cache in memory (no Redis), the
// cache in Redis (REDIS_URL: BENCH_REDIS_URL, default the local server).
// - the dashboard query (a) at 32 connections, each side: the cache answers
//   every request after the first (nothing changes meanwhile);
// - the same with a write every BENCH_CACHE_WRITE_MS (a mutation of the
//   organization, which drops its answers): the hit ratio a busy dashboard sees;
// - with the cache in memory: one change of a batch reaching
//   BENCH_LIVE_SUBSCRIBERS live queries (`query @live`) over graphql-ws, from
//   the mutation's start to each subscriber's new result, LIVE_QUERY_THROTTLE_MS=0.
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import WebSocket from 'ws';
import { summarizeProfile } from './cpuprofile.ts';
import type { BenchDatabase } from './engine.ts';
import { GATEWAY_DASHBOARD } from './queries.ts';
import { ms, type Report, ratio, rps } from './report.ts';
import { insertProspects, insertWorkflow, seedInTransaction, seedOrganization } from './seed-organization.ts';
import { cpuMs, type LoadResult, percentile, runLoad, type ServerProcess, sleep, startGateway } from './support.ts';

const CACHE_BENCH = {
  batches: Number(process.env.BENCH_CACHE_BATCHES ?? 20),
  runs: Number(process.env.BENCH_CACHE_RUNS ?? 50),
  writeEveryMs: Number(process.env.BENCH_CACHE_WRITE_MS ?? 100),
  liveSubscribers: Number(process.env.BENCH_LIVE_SUBSCRIBERS ?? 500),
  liveChanges: Number(process.env.BENCH_LIVE_CHANGES ?? 10),
  liveDashboards: Number(process.env.BENCH_LIVE_DASHBOARDS ?? 1000),
  liveDashboardChanges: Number(process.env.BENCH_LIVE_DASHBOARD_CHANGES ?? 20),
  pollers: Number(process.env.BENCH_CACHE_POLLERS ?? 200),
  redisUrl: process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379',
  /** BENCH_CACHE_PROFILE=1: (n)'s instances run with `--cpu-prof`, each phase summarized in the log. */
  profile: process.env.BENCH_CACHE_PROFILE === '1',
  connections: 32,
  poolSize: 10,
};

interface Seeded {
  apiKey: string;
  workflowId: string;
  batchIds: string[];
}

/** One organization, a workflow, and its batches of runs (FINISHED, one a second), each run with its prospect. */
async function seedDashboard(database: BenchDatabase): Promise<Seeded> {
  const { organizationId, apiKey, apiKeyId } = await seedOrganization(database.url, 'Cache bench');
  return seedInTransaction(database.url, async (one, sql) => {
    const { workflowId, versionId } = await insertWorkflow(one, { organizationId, apiKeyId, name: 'Cache bench' });
    const { batches, runs } = CACHE_BENCH;
    await insertProspects(sql, organizationId, batches * runs);
    const batchIds: string[] = [];
    for (let index = 0; index < batches; index++) {
      batchIds.push(
        await one(
          // The first is PENDING (the live queries pause and resume it), the others FINISHED.
          `INSERT INTO "Batch" ("organizationId", "workflowId", "workflowVersionId", name, "sourceType", "createdBy", status,
                                "totalProspects", "pendingCount", "finishedCount", "updatedAt", "createdAt")
           VALUES ($1, $2, $3, $4, 'prospect_ids', $5, $8::"BatchStatus", $6::int,
                   CASE WHEN $8 = 'PENDING' THEN $6::int ELSE 0 END, CASE WHEN $8 = 'PENDING' THEN 0 ELSE $6::int END,
                   now(), now() - make_interval(secs => $7::int)) RETURNING id`,
          [
            organizationId,
            workflowId,
            versionId,
            `Batch ${index}`,
            apiKeyId,
            runs,
            index,
            index === 0 ? 'PENDING' : 'FINISHED',
          ],
        ),
      );
    }
    await sql.query(
      `INSERT INTO "Run" ("organizationId", "workflowId", "workflowVersionId", "batchId", "prospectId", status, "startedAt", "endedAt", attempts, "updatedAt")
       SELECT $1, $2, $3, ($4::text[])[1 + (n - 1) / $5::int], id,
              (CASE WHEN n <= $5::int THEN 'PENDING' ELSE 'FINISHED' END)::"RunStatus",
              now() - make_interval(secs => n), CASE WHEN n <= $5::int THEN NULL ELSE now() END, 1, now()
       FROM (SELECT id, row_number() OVER (ORDER BY id) AS n FROM "Prospect" WHERE "organizationId" = $1) AS numbered`,
      [organizationId, workflowId, versionId, batchIds, runs],
    );
    return { apiKey, workflowId, batchIds };
  });
}

type Side = 'off' | 'memory' | 'redis';

interface CacheLoad extends LoadResult {
  serverCpuPerRequest: number;
  /** Hits over lookups during the measured seconds (/metrics). */
  hitRatio: number;
}

interface SideMeasured {
  quiet: CacheLoad;
  writing: CacheLoad;
  /** Writes made while `writing` was measured. */
  writes: number;
}

export interface CacheMeasured {
  sides: Record<Side, SideMeasured>;
  live: LiveMeasured;
  loadAverage: number;
}

/** The cache's hit and miss counters, and the process's CPU seconds, from /metrics. */
async function cacheCounters(gateway: ServerProcess, token: string) {
  const text = await (await fetch(`${gateway.url}/metrics`, { headers: { authorization: `Bearer ${token}` } })).text();
  const read = (result: string) =>
    Number(new RegExp(`gateway_graphql_response_cache_total\\{result="${result}"\\} (\\d+)`).exec(text)?.[1] ?? 0);
  const cpuSeconds = Number(/^process_cpu_seconds_total ([\d.e+-]+)$/m.exec(text)?.[1] ?? Number.NaN);
  return { hit: read('hit'), miss: read('miss'), cpuSeconds };
}

async function measureSide(
  side: Side,
  database: BenchDatabase,
  seeded: Seeded,
  timing: { duration: number; warmup: number },
  log: (line: string) => void,
): Promise<SideMeasured & { live?: CacheMeasured['live'] }> {
  const metricsToken = randomBytes(16).toString('hex');
  const gateway = await startGateway({
    name: `gateway (cache ${side})`,
    databaseUrl: database.url,
    env: {
      DATABASE_POOL_SIZE: String(CACHE_BENCH.poolSize),
      METRICS_TOKEN: metricsToken,
      REDIS_URL: side === 'redis' ? CACHE_BENCH.redisUrl : '',
      RESPONSE_CACHE_TTL_MS: side === 'off' ? '0' : '60000',
      LIVE_QUERY_THROTTLE_MS: '0',
      SUBSCRIPTIONS_PER_CONNECTION: String(CACHE_BENCH.liveSubscribers + 10),
      SUBSCRIPTIONS_PER_ORGANIZATION: String(CACHE_BENCH.liveSubscribers + 10),
    },
  });
  const headers = { 'content-type': 'application/json', 'x-api-key': seeded.apiKey };
  const dashboard = {
    url: `${gateway.url}/graphql`,
    method: 'POST' as const,
    headers,
    body: JSON.stringify({ query: GATEWAY_DASHBOARD, variables: { id: seeded.workflowId } }),
    connections: CACHE_BENCH.connections,
    ...timing,
  };
  const write = () =>
    fetch(`${gateway.url}/graphql`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        query: `mutation { createProspects(input: { prospects: [{ firstName: "W" }] }) { id } }`,
      }),
    });
  const measureLoad = async (label: string, writing: boolean) => {
    log(`  cache ${side}: the dashboard query, ${CACHE_BENCH.connections} connections${writing ? ', writing' : ''}`);
    let cpuAtStart = 0;
    let countersAtStart = { hit: 0, miss: 0 };
    let writes = 0;
    let writer: NodeJS.Timeout | undefined;
    try {
      const result = await runLoad(dashboard, async () => {
        cpuAtStart = cpuMs(gateway.pid);
        countersAtStart = await cacheCounters(gateway, metricsToken);
        if (writing)
          writer = setInterval(() => {
            writes++;
            void write();
          }, CACHE_BENCH.writeEveryMs);
      });
      clearInterval(writer);
      const counters = await cacheCounters(gateway, metricsToken);
      const hits = counters.hit - countersAtStart.hit;
      const lookups = hits + counters.miss - countersAtStart.miss;
      const measured: CacheLoad = {
        ...result,
        serverCpuPerRequest: (cpuMs(gateway.pid) - cpuAtStart) / Math.max(1, result.requests),
        hitRatio: lookups > 0 ? hits / lookups : 0,
      };
      log(
        `    ${label}: ${rps(result.rps)} req/s, p50 ${ms(result.p50)}, p99 ${ms(result.p99)}, CPU/request ${ms(measured.serverCpuPerRequest)}, hits ${(measured.hitRatio * 100).toFixed(1)}%`,
      );
      return { measured, writes };
    } finally {
      clearInterval(writer);
    }
  };
  try {
    await sleep(1000);
    const quiet = await measureLoad('quiet', false);
    const writing = await measureLoad('writing', true);
    const live =
      side === 'memory'
        ? await measureLive(
            [gateway],
            seeded,
            {
              query: `query($id: ID!) @live { batch(id: $id) { id name status stats { pausedCount totalCount } } }`,
              variables: { id: seeded.batchIds[0] },
              statusOf: (message) => statusAfter(message, '"status":"'),
            },
            { subscribers: CACHE_BENCH.liveSubscribers, changes: CACHE_BENCH.liveChanges },
            log,
          )
        : undefined;
    return { quiet: quiet.measured, writing: writing.measured, writes: writing.writes, live };
  } finally {
    await gateway.stop();
  }
}

interface LiveMeasured {
  subscribers: number;
  changes: number;
  p50: number;
  p99: number;
  max: number;
  missed: number;
  /** This process's CPU (the subscribers' connections, reading every result) per change, ms. */
  clientCpuPerChange: number;
}

/** What the live queries read, and the status of the changing batch in one of their results. */
interface LiveShape {
  query: string;
  variables: Record<string, unknown>;
  /** Read from the `next` message's bytes as they arrived (not parsed: see graphqlWsConnection). */
  statusOf(message: Buffer): string | undefined;
}

/** The status written after `marker` in a message's bytes. */
function statusAfter(message: Buffer, marker: string): string | undefined {
  const at = message.indexOf(marker);
  if (at < 0) return undefined;
  const start = at + Buffer.byteLength(marker);
  return message.toString('latin1', start, message.indexOf(34, start));
}

/**
 * A graphql-ws connection (the graphql-transport-ws protocol) holding the
 * subscribers' live queries, each result handed over as the bytes of its
 * `next` message. Not graphql-ws's client: it parses every message, and 1,000
 * dashboards of ~130 kB each in this one process cost it a second per change,
 * which measured the bench's own parsing (each real client parses its own).
 */
function graphqlWsConnection(
  url: string,
  apiKey: string,
  subscribers: number[],
  payload: { query: string; variables: Record<string, unknown> },
  onNext: (subscriber: number, message: Buffer) => void,
) {
  const socket = new WebSocket(url, 'graphql-transport-ws');
  socket.on('open', () => socket.send(JSON.stringify({ type: 'connection_init', payload: { 'x-api-key': apiKey } })));
  socket.on('message', (data: Buffer) => {
    // The server's messages begin with their id (`{"id":"7","type":"next",…`), or are the acknowledgement.
    if (data.toString('latin1', 0, 7) === '{"id":"') {
      const id = data.toString('latin1', 7, data.indexOf(34, 7));
      return onNext(Number(id), data);
    }
    if (data.includes('"connection_ack"'))
      for (const subscriber of subscribers)
        socket.send(JSON.stringify({ id: String(subscriber), type: 'subscribe', payload }));
  });
  socket.on('error', () => {});
  return { close: () => socket.close() };
}

/**
 * One batch changing `changes` times, each change reaching every live query:
 * from the mutation's start (on the first gateway) to each subscriber's new
 * result, the subscribers spread over the gateways (50 to a graphql-ws connection).
 */
async function measureLive(
  gateways: ServerProcess[],
  seeded: Seeded,
  shape: LiveShape,
  { subscribers, changes }: { subscribers: number; changes: number },
  log: (line: string) => void,
): Promise<LiveMeasured> {
  log(`  live queries: ${subscribers} subscribers over ${gateways.length} instance(s), ${changes} changes`);
  const batchId = seeded.batchIds[0]!;
  // Each change flips the batch between PAUSED and PENDING: a subscriber's result with the status just set is its answer.
  const received = Array.from({ length: subscribers }, () => 0);
  let expected = '';
  let changeStarted = 0;
  const latencies: number[] = [];
  const answered = new Set<number>();
  const connections = Array.from({ length: Math.ceil(subscribers / 50) }, (_, index) =>
    graphqlWsConnection(
      `${gateways[index % gateways.length]!.url.replace('http', 'ws')}/graphql`,
      seeded.apiKey,
      Array.from({ length: subscribers }, (_, subscriber) => subscriber).filter(
        (subscriber) => subscriber % Math.ceil(subscribers / 50) === index,
      ),
      { query: shape.query, variables: shape.variables },
      (subscriber, message) => {
        received[subscriber]!++;
        if (shape.statusOf(message) === expected && !answered.has(subscriber)) {
          answered.add(subscriber);
          latencies.push(performance.now() - changeStarted);
        }
      },
    ),
  );
  const waitFor = async (done: () => boolean, timeoutMs = 30_000) => {
    const deadline = Date.now() + timeoutMs;
    while (!done() && Date.now() < deadline) await sleep(10);
  };
  await waitFor(() => received.every((count) => count > 0), 60_000);
  let missed = 0;
  const clientCpuAtStart = process.cpuUsage();
  for (let change = 0; change < changes; change++) {
    expected = change % 2 === 0 ? 'PAUSED' : 'PENDING';
    answered.clear();
    changeStarted = performance.now();
    await fetch(`${gateways[0]!.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': seeded.apiKey },
      body: JSON.stringify({
        query: `mutation($id: ID!, $s: BatchStatus!) { updateBatchStatus(id: $id, status: $s) { status } }`,
        variables: { id: batchId, s: expected },
      }),
    });
    await waitFor(() => answered.size >= subscribers, 10_000);
    missed += subscribers - answered.size;
  }
  const clientCpu = process.cpuUsage(clientCpuAtStart);
  const clientCpuPerChange = (clientCpu.user + clientCpu.system) / 1000 / changes;
  for (const connection of connections) connection.close();
  latencies.sort((a, b) => a - b);
  const live = {
    subscribers,
    changes,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    max: latencies.at(-1) ?? Number.NaN,
    missed,
    clientCpuPerChange,
  };
  log(
    `    p50 ${ms(live.p50)}, p99 ${ms(live.p99)}, max ${ms(live.max)}, missed ${missed}, the clients' CPU per change ${ms(clientCpuPerChange)}`,
  );
  return live;
}

interface PollMeasured extends LoadResult {
  /** process_cpu_seconds_total's growth while measured over the requests answered, in ms. */
  serverCpuPerRequest: number;
  hitRatio: number;
}

export interface CacheScaleMeasured {
  pollers: number;
  cached: PollMeasured;
  bypassed: PollMeasured;
  live: LiveMeasured;
  loadAverage: number;
}

/** BENCH_CACHE_POLLERS clients polling the dashboard as fast as answered, with or without `Cache-Control: no-cache`. */
async function measurePolling(
  gateway: ServerProcess,
  metricsToken: string,
  seeded: Seeded,
  bypass: boolean,
  timing: { duration: number; warmup: number },
  log: (line: string) => void,
): Promise<PollMeasured> {
  log(`  ${CACHE_BENCH.pollers} clients polling the dashboard${bypass ? ', Cache-Control: no-cache' : ''}`);
  let atStart = { hit: 0, miss: 0, cpuSeconds: 0 };
  const result = await runLoad(
    {
      url: `${gateway.url}/graphql`,
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-api-key': seeded.apiKey,
        ...(bypass ? { 'cache-control': 'no-cache' } : {}),
      },
      body: JSON.stringify({ query: GATEWAY_DASHBOARD, variables: { id: seeded.workflowId } }),
      connections: CACHE_BENCH.pollers,
      ...timing,
    },
    async () => {
      atStart = await cacheCounters(gateway, metricsToken);
    },
  );
  const atEnd = await cacheCounters(gateway, metricsToken);
  const hits = atEnd.hit - atStart.hit;
  const lookups = hits + atEnd.miss - atStart.miss;
  const measured = {
    ...result,
    serverCpuPerRequest: ((atEnd.cpuSeconds - atStart.cpuSeconds) * 1000) / Math.max(1, result.requests),
    hitRatio: lookups > 0 ? hits / lookups : 0,
  };
  log(
    `    ${rps(result.rps)} req/s, p99 ${ms(result.p99)}, CPU/request ${ms(measured.serverCpuPerRequest)}, hits ${(measured.hitRatio * 100).toFixed(1)}%`,
  );
  return measured;
}

/**
 * `--only cache-scale`: (a) BENCH_LIVE_DASHBOARDS live dashboards (the
 * dashboard query with `@live`) over two instances sharing Redis, one batch
 * changing BENCH_LIVE_DASHBOARD_CHANGES times; (b) BENCH_CACHE_POLLERS clients
 * polling one dashboard, answered from the cache, beside the same bypassing it.
 */
export async function measureCacheScale(
  database: BenchDatabase,
  log: (line: string) => void,
  timing: { duration: number; warmup: number },
): Promise<CacheScaleMeasured> {
  log(`  seeding ${CACHE_BENCH.batches} batches of ${CACHE_BENCH.runs} runs`);
  const seeded = await seedDashboard(database);
  const loadAverage = os.loadavg()[0]!;
  const metricsToken = randomBytes(16).toString('hex');
  const slots = String(CACHE_BENCH.liveDashboards + 10);
  const profiled: { name: string; directory: string; spawnedAt: number }[] = [];
  /** When each phase ended (performance.now()), for the profiles. */
  const phases: { name: string; endedAt: number }[] = [];
  const start = async (name: string) => {
    const directory = CACHE_BENCH.profile ? await mkdtemp(path.join(os.tmpdir(), 'gateway-cache-profile-')) : undefined;
    if (directory) profiled.push({ name, directory, spawnedAt: performance.now() });
    return startGateway({
      name,
      databaseUrl: database.url,
      nodeArgs: directory ? ['--cpu-prof', `--cpu-prof-dir=${directory}`] : [],
      env: {
        DATABASE_POOL_SIZE: String(CACHE_BENCH.poolSize),
        METRICS_TOKEN: metricsToken,
        REDIS_URL: CACHE_BENCH.redisUrl,
        RESPONSE_CACHE_TTL_MS: '60000',
        SUBSCRIPTIONS_PER_CONNECTION: slots,
        SUBSCRIPTIONS_PER_ORGANIZATION: slots,
      },
    });
  };
  const first = await start('gateway (cache scale, first)');
  try {
    const second = await start('gateway (cache scale, second)');
    try {
      await sleep(1000);
      phases.push({ name: 'start', endedAt: performance.now() });
      const cached = await measurePolling(first, metricsToken, seeded, false, timing, log);
      phases.push({ name: 'polling, cached', endedAt: performance.now() });
      const bypassed = await measurePolling(first, metricsToken, seeded, true, timing, log);
      phases.push({ name: 'polling, no-cache', endedAt: performance.now() });
      const live = await measureLive(
        [first, second],
        seeded,
        {
          query: GATEWAY_DASHBOARD.replace('query Dashboard($id: ID!)', 'query Dashboard($id: ID!) @live'),
          variables: { id: seeded.workflowId },
          statusOf: (message) => statusAfter(message, '"name":"Batch 0","status":"'),
        },
        { subscribers: CACHE_BENCH.liveDashboards, changes: CACHE_BENCH.liveDashboardChanges },
        log,
      );
      phases.push({ name: 'live dashboards', endedAt: performance.now() });
      return { pollers: CACHE_BENCH.pollers, cached, bypassed, live, loadAverage };
    } finally {
      await second.stop();
    }
  } finally {
    await first.stop();
    await logProfiles(profiled, phases, log);
  }
}

/** Each profiled instance's busiest functions in each phase (its samples between the phase's start and end). */
async function logProfiles(
  profiled: { name: string; directory: string; spawnedAt: number }[],
  phases: { name: string; endedAt: number }[],
  log: (line: string) => void,
) {
  for (const { name, directory, spawnedAt } of profiled) {
    // CPU.<date>.<time>.<pid>.<thread>.<seq>.cpuprofile: thread 0 is the main thread.
    const file = (await readdir(directory)).find(
      (entry) => entry.split('.')[4] === '0' && entry.endsWith('.cpuprofile'),
    );
    if (!file) continue;
    for (let index = 1; index < phases.length; index++) {
      const from = phases[index - 1]!.endedAt - spawnedAt;
      const summary = summarizeProfile(path.join(directory, file), 25, from, phases[index]!.endedAt - spawnedAt);
      log(`  profile of ${name}, ${phases[index]!.name}: busy ${ms(summary.busyMs)}`);
      for (const area of summary.areas.slice(0, 10))
        log(`    ${(area.share * 100).toFixed(1).padStart(5)}%  ${area.area}`);
      for (const entry of summary.functions)
        log(`    ${(entry.share * 100).toFixed(1).padStart(5)}%  ${entry.name}  ${entry.where}`);
    }
  }
}

export function reportCacheScale(report: Report, { pollers, cached, bypassed, live, loadAverage }: CacheScaleMeasured) {
  report.line('');
  report.line('## (n) The response cache and live dashboards at scale');
  report.line(
    `Two instances as \`npm start\` runs them (ENGINE=off), sharing Redis, on a fresh database holding one workflow with ` +
      `${CACHE_BENCH.batches} batches of ${CACHE_BENCH.runs} runs. ${pollers} clients poll the dashboard query (a) on the first, ` +
      'answered from the cache, then the same sending `Cache-Control: no-cache`; server CPU / request: `process_cpu_seconds_total` ' +
      `grown while measured over the requests answered (target: at most 0.2 ms cached). 1-minute load average at the start: ${loadAverage.toFixed(2)}.`,
  );
  report.table(
    ['polling', 'req/s', 'p50', 'p99', 'server CPU / request', 'hits'],
    [cached, bypassed].map((measured, index) => [
      index === 0 ? 'cached' : 'no-cache',
      rps(measured.rps),
      ms(measured.p50),
      ms(measured.p99),
      ms(measured.serverCpuPerRequest),
      `${(measured.hitRatio * 100).toFixed(1)}%`,
    ]),
  );
  report.line('');
  report.line(
    `Live dashboards: ${live.subscribers} \`query Dashboard @live\` over graphql-ws (the bench's own connections, reading each result's bytes unparsed), half on each instance, ` +
      `${live.changes} changes of one batch (\`updateBatchStatus\` on the first instance, PAUSED and PENDING in turn), from the mutation's start ` +
      `to each client's new result: p50 ${ms(live.p50)}, p99 ${ms(live.p99)} (target < 500 ms), max ${ms(live.max)}; results missed: ${live.missed}; the clients' CPU per change ${ms(live.clientCpuPerChange)}.`,
  );
}

export async function measureCache(
  database: BenchDatabase,
  log: (line: string) => void,
  timing: { duration: number; warmup: number },
): Promise<CacheMeasured> {
  log(`  seeding ${CACHE_BENCH.batches} batches of ${CACHE_BENCH.runs} runs`);
  const seeded = await seedDashboard(database);
  const loadAverage = os.loadavg()[0]!;
  const off = await measureSide('off', database, seeded, timing, log);
  const memory = await measureSide('memory', database, seeded, timing, log);
  const redis = await measureSide('redis', database, seeded, timing, log);
  return { sides: { off, memory, redis }, live: memory.live!, loadAverage };
}

export function reportCache(report: Report, { sides, live, loadAverage }: CacheMeasured) {
  report.line('');
  report.line('## (k) The response cache and live queries');
  report.line(
    `The gateway as \`npm start\` runs it (ENGINE=off, a pool of ${CACHE_BENCH.poolSize} connections) on a fresh database holding one workflow with ` +
      `${CACHE_BENCH.batches} batches of ${CACHE_BENCH.runs} runs and their prospects, started three times: the cache off (\`RESPONSE_CACHE_TTL_MS=0\`), ` +
      'in memory, and in Redis (the local server). The dashboard query (a) at ' +
      `${CACHE_BENCH.connections} connections; "writing": a mutation of the organization every ${CACHE_BENCH.writeEveryMs} ms meanwhile, each dropping its answers. ` +
      `Hits: the share of lookups answered from the cache while measured (/metrics). 1-minute load average at the start: ${loadAverage.toFixed(2)}.`,
  );
  const rows: (string | number)[][] = [];
  for (const side of ['off', 'memory', 'redis'] as const) {
    for (const load of ['quiet', 'writing'] as const) {
      const measured = sides[side][load];
      rows.push([
        side,
        load,
        rps(measured.rps),
        ratio(measured.rps / sides.off[load].rps),
        ms(measured.p50),
        ms(measured.p99),
        ms(measured.serverCpuPerRequest),
        side === 'off' ? '–' : `${(measured.hitRatio * 100).toFixed(1)}%`,
      ]);
    }
  }
  report.table(['cache', 'load', 'req/s', '× off', 'p50', 'p99', 'server CPU / request', 'hits'], rows);
  report.line('');
  report.line(
    `Live queries: ${live.subscribers} \`query @live\` of one batch over graphql-ws (LIVE_QUERY_THROTTLE_MS=0, the cache in memory), ` +
      `${live.changes} changes (\`updateBatchStatus\`, PAUSED and PENDING in turn), from the mutation's start to each subscriber's new result: ` +
      `p50 ${ms(live.p50)}, p99 ${ms(live.p99)}, max ${ms(live.max)}; results missed: ${live.missed}; the clients' CPU per change ${ms(live.clientCpuPerChange)}.`,
  );
}
