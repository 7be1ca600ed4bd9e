// Scenario (j): one batch change reaching BENCH_FANOUT_SUBSCRIBERS (10,000)
// graphql-ws subscribers spread evenly over two gateway instances that share
// one PostgreSQL database and one Redis (REDIS_URL: the instances hear each
// other's announcements through pub/sub). The subscribers live in
// BENCH_FANOUT_PROCESSES processes of their own (bench/subscribers.ts), each
// holding its share on one instance. Each change is a PATCH of the batch's
// status made through the first instance; its delay is timed, per
// subscriber, from just before the PATCH is sent until that subscriber holds
// the new status, as (d) does. Memory per idle subscriber: each instance's
// resident memory (VmRSS) and V8 heap, read after a full garbage collection
// asked for through the inspector (`--inspect` on a port of the bench's own),
// before the subscribers connect and once they are all connected and idle.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import WebSocket from 'ws';
import { type ProfileSummary, summarizeProfile } from './cpuprofile.ts';
import type { BenchDatabase } from './engine.ts';
import { mib, ms, type Report, verdict } from './report.ts';
import { insertProspects, insertWorkflow, seedInTransaction, seedOrganization } from './seed-organization.ts';
import {
  BENCH_DIR,
  BENCH_METRICS_TOKEN,
  cpuMs,
  freePort,
  percentile,
  ROOT,
  rssMiB,
  type ServerProcess,
  scrapeMetrics,
  sleep,
  startGateway,
} from './support.ts';

const FANOUT = {
  subscribers: Number(process.env.BENCH_FANOUT_SUBSCRIBERS ?? 10_000),
  instances: 2,
  /** Subscriber processes, shared out over the instances in turn (an even number keeps the split even). */
  processes: Number(process.env.BENCH_FANOUT_PROCESSES ?? 4),
  changes: Number(process.env.BENCH_FANOUT_CHANGES ?? 20),
  /**
   * Connections opening at once on one instance, shared by its subscriber
   * processes (each opens its share, then the next once those hold their
   * first state): thousands at once overflow the listen backlog (Node's
   * default, 511) and are reset.
   */
  connectingPerInstance: 500,
  redisUrl: process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379',
  /** BENCH_FANOUT_PROFILE=1: both instances run with `--cpu-prof`, summarized over the changes. */
  profile: process.env.BENCH_FANOUT_PROFILE === '1',
  poolSize: 10,
  targetP99Ms: 500,
  /** Apart by more than the hub's coalescing interval (100 ms), so each change is its own event. */
  pauseMs: 150,
  settleMs: 3000,
};

interface Memory {
  rssMiB: number;
  heapUsedBytes: number;
}

interface FanoutInstance {
  name: string;
  subscribers: number;
  idle: Memory;
  connected: Memory;
  delays: number[];
  /** CPU ms of the instance's process per change, over the changes. */
  cpuPerChangeMs: number;
  profile?: ProfileSummary;
}

export interface FanoutMeasured {
  subscribers: number;
  processes: number;
  changes: number;
  connectMs: number;
  instances: FanoutInstance[];
  delays: number[];
  /** Per change, the delay of the last subscriber to see it. */
  lastPerChange: number[];
  /** CPU ms of all subscriber processes together per change. */
  clientCpuPerChangeMs: number;
  loadAtStart: number;
}

/** An organization, a workflow, and a PENDING batch of one run, the batch the subscribers follow. */
async function seedBatch(database: BenchDatabase) {
  const { organizationId, apiKey, apiKeyId } = await seedOrganization(database.url, 'Fan-out bench');
  return seedInTransaction(database.url, async (one, sql) => {
    const { workflowId, versionId } = await insertWorkflow(one, { organizationId, apiKeyId, name: 'Fan-out bench' });
    await insertProspects(sql, organizationId, 1);
    const batchId = await one(
      `INSERT INTO "Batch" ("organizationId", "workflowId", "workflowVersionId", name, "sourceType", "createdBy", "totalProspects", "pendingCount", "updatedAt")
       VALUES ($1, $2, $3, 'Fan-out bench', 'prospect_ids', $4, 1, 1, now()) RETURNING id`,
      [organizationId, workflowId, versionId, apiKeyId],
    );
    await sql.query(
      `INSERT INTO "Run" ("organizationId", "workflowId", "workflowVersionId", "batchId", "prospectId", "updatedAt")
       SELECT $1, $2, $3, $4, id, now() FROM "Prospect" WHERE "organizationId" = $1`,
      [organizationId, workflowId, versionId, batchId],
    );
    return { organizationId, apiKey, batchId };
  });
}

/** One DevTools-protocol session on a process started with `--inspect=127.0.0.1:<port>`. */
async function inspect(port: number) {
  const targets = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as {
    webSocketDebuggerUrl: string;
  }[];
  const socket = new WebSocket(targets[0]!.webSocketDebuggerUrl);
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
  let nextId = 0;
  const pending = new Map<number, (result: unknown) => void>();
  socket.on('message', (data) => {
    const message = JSON.parse(String(data)) as { id?: number; result?: unknown };
    if (message.id !== undefined) pending.get(message.id)?.(message.result);
  });
  return {
    call<T>(method: string): Promise<T> {
      const id = ++nextId;
      socket.send(JSON.stringify({ id, method }));
      return new Promise((resolve) => pending.set(id, resolve as (result: unknown) => void));
    },
    close: () => socket.close(),
  };
}

/** The instance's memory after a full collection: VmRSS and the V8 heap in use. */
async function memoryAfterGc(instance: { pid: number; inspectPort: number }): Promise<Memory> {
  const session = await inspect(instance.inspectPort);
  try {
    await session.call('HeapProfiler.collectGarbage');
    const { usedSize } = await session.call<{ usedSize: number }>('Runtime.getHeapUsage');
    // The pages the collection freed are given back to the system shortly after.
    await sleep(500);
    return { rssMiB: rssMiB(instance.pid), heapUsedBytes: usedSize };
  } finally {
    session.close();
  }
}

/** A subscribers process (bench/subscribers.ts): `ready` once all hold the first state, then one line of delays per change. */
function startSubscribers(url: string, apiKey: string, batchId: string, count: number, wave: number) {
  const child: ChildProcess = spawn(
    process.execPath,
    ['--import', 'tsx', path.join(BENCH_DIR, 'subscribers.ts'), url, apiKey, batchId, String(count), String(wave)],
    { cwd: ROOT, stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  return {
    pid: child.pid!,
    async nextLine() {
      const next = await lines.next();
      if (next.done) throw new Error(`(j) a subscribers process ended early (exit ${child.exitCode})`);
      return next.value as string;
    },
    send: (line: string) => child.stdin!.write(`${line}\n`),
    async quit() {
      child.stdin!.write('quit\n');
      await exited;
    },
    kill: () => child.kill('SIGKILL'),
  };
}

async function metric(url: string, name: string): Promise<number> {
  const text = await scrapeMetrics(url);
  const match = new RegExp(`^${name} (\\S+)$`, 'm').exec(text);
  return match ? Number(match[1]) : NaN;
}

export async function measureFanout(database: BenchDatabase, log: (line: string) => void): Promise<FanoutMeasured> {
  if (FANOUT.processes % FANOUT.instances !== 0 || FANOUT.subscribers % FANOUT.processes !== 0)
    throw new Error(
      `(j) BENCH_FANOUT_PROCESSES (${FANOUT.processes}) must be a multiple of ${FANOUT.instances} and divide BENCH_FANOUT_SUBSCRIBERS (${FANOUT.subscribers})`,
    );
  const loadAtStart = os.loadavg()[0]!;
  const seeded = await seedBatch(database);
  const profileDirectory = FANOUT.profile ? await mkdtemp(path.join(os.tmpdir(), 'gateway-fanout-profile-')) : null;
  const encryptionKey = randomBytes(32).toString('hex');
  const instances: (ServerProcess & { inspectPort: number; spawnedAt: number; profileDirectory?: string })[] = [];
  const clients: ReturnType<typeof startSubscribers>[] = [];
  try {
    for (let index = 0; index < FANOUT.instances; index++) {
      const inspectPort = await freePort();
      const directory = profileDirectory ? path.join(profileDirectory, String(index)) : undefined;
      const spawnedAt = performance.now();
      const server = await startGateway({
        name: `gateway ${index + 1} (fan-out)`,
        databaseUrl: database.url,
        nodeArgs: [
          `--inspect=127.0.0.1:${inspectPort}`,
          ...(directory ? ['--cpu-prof', `--cpu-prof-dir=${directory}`] : []),
        ],
        // One key for every instance: each reads what the others encrypted.
        env: {
          DATABASE_POOL_SIZE: String(FANOUT.poolSize),
          ENCRYPTION_KEY: encryptionKey,
          REDIS_URL: FANOUT.redisUrl,
          METRICS_TOKEN: BENCH_METRICS_TOKEN,
          // Every subscriber is the one organization's: its cap per instance holds them all.
          SUBSCRIPTIONS_PER_ORGANIZATION: String(FANOUT.subscribers),
        },
      });
      instances.push(Object.assign(server, { inspectPort, spawnedAt, profileDirectory: directory }));
    }
    await sleep(2000);
    const idle: Memory[] = [];
    for (const instance of instances) idle.push(await memoryAfterGc(instance));
    for (const instance of instances) {
      if ((await metric(instance.url, 'gateway_redis_degraded')) !== 0)
        throw new Error(`(j) ${instance.name} does not reach Redis at ${FANOUT.redisUrl} (BENCH_REDIS_URL)`);
    }

    const perProcess = FANOUT.subscribers / FANOUT.processes;
    const wave = Math.max(1, Math.floor(FANOUT.connectingPerInstance / (FANOUT.processes / FANOUT.instances)));
    log(
      `  ${FANOUT.subscribers.toLocaleString('en')} subscribers: ${FANOUT.processes} processes of ${perProcess.toLocaleString('en')}, over ${FANOUT.instances} instances`,
    );
    const connectStarted = performance.now();
    for (let index = 0; index < FANOUT.processes; index++) {
      const instance = instances[index % FANOUT.instances]!;
      clients.push(
        startSubscribers(
          `${instance.url.replace('http', 'ws')}/graphql`,
          seeded.apiKey,
          seeded.batchId,
          perProcess,
          wave,
        ),
      );
    }
    for (const client of clients) {
      if ((await client.nextLine()) !== 'ready') throw new Error('(j) the subscribers did not start');
    }
    const connectMs = performance.now() - connectStarted;
    log(`  all connected in ${(connectMs / 1000).toFixed(1)} s`);
    const expected = FANOUT.subscribers / FANOUT.instances;
    for (const instance of instances) {
      const active = await metric(instance.url, 'gateway_subscriptions_active');
      if (active !== expected) throw new Error(`(j) ${instance.name} holds ${active} subscribers, not ${expected}`);
    }
    await sleep(FANOUT.settleMs);
    const connected: Memory[] = [];
    for (const instance of instances) connected.push(await memoryAfterGc(instance));

    const rest = async (method: string, route: string, body: unknown) => {
      const response = await fetch(`${instances[0]!.url}/org/${seeded.organizationId}${route}`, {
        method,
        headers: { 'content-type': 'application/json', 'x-api-key': seeded.apiKey },
        body: JSON.stringify(body),
      });
      if (!response.ok) throw new Error(`${method} ${route}: ${response.status} ${await response.text()}`);
      return response.json() as Promise<unknown>;
    };
    const delays: number[][] = instances.map(() => []);
    const lastPerChange: number[] = [];
    const cpuAtStart = instances.map((instance) => cpuMs(instance.pid));
    const clientCpuAtStart = clients.map((client) => cpuMs(client.pid));
    const changesFrom = performance.now();
    for (let change = 0; change < FANOUT.changes; change++) {
      const status = change % 2 === 0 ? 'PAUSED' : 'PENDING';
      const sentAt = performance.timeOrigin + performance.now();
      for (const client of clients) client.send(`change ${status} ${sentAt}`);
      await rest('PATCH', `/batches/${seeded.batchId}`, { status });
      let slowest = 0;
      for (const [index, client] of clients.entries()) {
        const seen = JSON.parse(await client.nextLine()) as number[];
        for (const delay of seen) {
          delays[index % FANOUT.instances]!.push(delay);
          slowest = Math.max(slowest, delay);
        }
      }
      lastPerChange.push(slowest);
      log(`  change ${change + 1}: the last subscriber after ${ms(slowest)}`);
      await sleep(FANOUT.pauseMs);
    }
    const changesUntil = performance.now();
    const clientCpuPerChangeMs =
      clients.reduce((sum, client, index) => sum + cpuMs(client.pid) - clientCpuAtStart[index]!, 0) / FANOUT.changes;
    const cpuPerChange = instances.map(
      (instance, index) => (cpuMs(instance.pid) - cpuAtStart[index]!) / FANOUT.changes,
    );
    for (const client of clients.splice(0)) await client.quit();
    const profiles: (ProfileSummary | undefined)[] = [];
    for (const instance of instances) {
      await instance.stop();
      if (!instance.profileDirectory) continue;
      // CPU.<date>.<time>.<pid>.<thread>.<seq>.cpuprofile: thread 0 is the main thread.
      const file = (await readdir(instance.profileDirectory)).find(
        (name) => name.split('.')[4] === '0' && name.endsWith('.cpuprofile'),
      );
      profiles.push(
        file
          ? summarizeProfile(
              path.join(instance.profileDirectory, file),
              15,
              changesFrom - instance.spawnedAt,
              changesUntil - instance.spawnedAt,
            )
          : undefined,
      );
    }
    return {
      subscribers: FANOUT.subscribers,
      processes: FANOUT.processes,
      changes: FANOUT.changes,
      connectMs,
      loadAtStart,
      clientCpuPerChangeMs,
      delays: delays.flat(),
      lastPerChange,
      instances: instances.map((_instance, index) => ({
        name: index === 0 ? 'instance 1 (the PATCH is made here)' : `instance ${index + 1} (hears it through Redis)`,
        subscribers: expected,
        idle: idle[index]!,
        connected: connected[index]!,
        delays: delays[index]!,
        cpuPerChangeMs: cpuPerChange[index]!,
        profile: profiles[index],
      })),
    };
  } finally {
    for (const client of clients) client.kill();
    for (const instance of instances) await instance.stop();
    if (profileDirectory) await rm(profileDirectory, { recursive: true, force: true });
  }
}

const perSubscriber = (before: number, after: number, count: number) =>
  `${Math.round((after - before) / count).toLocaleString('en')} B`;

export function reportFanout(report: Report, measured: FanoutMeasured) {
  const { delays } = measured;
  report.line('');
  report.line(
    `## (j) One batch change reaching ${measured.subscribers.toLocaleString('en')} WebSocket subscribers over ${measured.instances.length} instances (${measured.changes} changes)`,
  );
  report.line(
    `Two gateway instances as \`npm start\` runs them (ENGINE=off, pool of ${FANOUT.poolSize}) on one database and one Redis; ` +
      `${measured.subscribers.toLocaleString('en')} graphql-ws subscribers to one batch, ${(measured.subscribers / measured.instances.length).toLocaleString('en')} on each, ` +
      `held by ${measured.processes} processes of ${(measured.subscribers / measured.processes).toLocaleString('en')} (bench/subscribers.ts), ` +
      `at most ${FANOUT.connectingPerInstance} connecting to an instance at a time; all connected in ${(measured.connectMs / 1000).toFixed(1)} s. ` +
      'Each change is a PATCH of the batch status (E9) made through instance 1; instance 2 hears of it through Redis pub/sub. ' +
      `Delay: from just before the PATCH is sent to each subscriber holding the new status. Load average (1 min) at the start: ${measured.loadAtStart.toFixed(2)}.`,
  );
  const row = (name: string, values: number[]) => [
    name,
    ms(percentile(values, 50)),
    ms(percentile(values, 95)),
    ms(percentile(values, 99)),
    ms(values.reduce((max, value) => Math.max(max, value), 0)),
  ];
  report.table(
    ['subscribers', 'p50', 'p95', 'p99', 'max'],
    [
      ...measured.instances.map((instance) => row(instance.name, instance.delays)),
      row(`all ${measured.subscribers.toLocaleString('en')}`, delays),
    ],
  );
  const last = measured.lastPerChange;
  report.line('');
  report.line(
    `The last subscriber, per change: ${last.map((value) => ms(value).replace(' ms', '')).join(', ')} ms ` +
      `(median ${ms(percentile(last, 50))}).`,
  );
  report.line('');
  report.line(
    `CPU per change: ${measured.instances.map((instance, index) => `instance ${index + 1} ${ms(instance.cpuPerChangeMs)}`).join(', ')}; ` +
      `the subscriber processes together ${ms(measured.clientCpuPerChangeMs)}.`,
  );
  report.line('');
  report.line(
    'Memory per idle subscriber: each instance after a full garbage collection (asked for through the inspector), ' +
      'before the subscribers connect and once all are connected and idle.',
  );
  report.table(
    [
      'instance',
      'subscribers',
      'VmRSS before → after',
      'RSS per subscriber',
      'V8 heap used before → after',
      'heap per subscriber',
    ],
    measured.instances.map((instance) => [
      instance.name.replace(/ \(.*/, ''),
      instance.subscribers.toLocaleString('en'),
      `${mib(instance.idle.rssMiB)} → ${mib(instance.connected.rssMiB)}`,
      perSubscriber(instance.idle.rssMiB * 2 ** 20, instance.connected.rssMiB * 2 ** 20, instance.subscribers),
      `${mib(instance.idle.heapUsedBytes / 2 ** 20)} → ${mib(instance.connected.heapUsedBytes / 2 ** 20)}`,
      perSubscriber(instance.idle.heapUsedBytes, instance.connected.heapUsedBytes, instance.subscribers),
    ]),
  );
  for (const instance of measured.instances) {
    if (!instance.profile) continue;
    report.line('');
    report.line(
      `CPU profile of ${instance.name} over the changes: ${(instance.profile.busyMs / 1000).toFixed(1)} s of the main thread busy. Self time by package:`,
    );
    report.table(
      ['share', 'package / area'],
      instance.profile.areas.map((area) => [`${(area.share * 100).toFixed(1)}%`, area.area]),
    );
    report.line('');
    report.table(
      ['share', 'function', 'where'],
      instance.profile.functions.map((fn) => [`${(fn.share * 100).toFixed(1)}%`, `\`${fn.name}\``, fn.where]),
    );
  }
}

export function fanoutTargets(measured: FanoutMeasured): string[][] {
  const p99 = percentile(measured.delays, 99);
  return [
    [
      `(j) ${measured.subscribers.toLocaleString('en')} subscribers over ${measured.instances.length} instances: p99 < ${FANOUT.targetP99Ms} ms`,
      ms(p99),
      verdict(p99 < FANOUT.targetP99Ms),
    ],
  ];
}
