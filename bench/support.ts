// Shared pieces of the benchmarks: statistics, a database of their own on the
// machine's PostgreSQL, child processes (servers under test, load
// generators) and their resident memory.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { createInterface } from 'node:readline';
import pg from 'pg';

export const ROOT = path.resolve(import.meta.dirname, '..');
export const BENCH_DIR = import.meta.dirname;

export const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1))]!;
};
export const median = (values: number[]) => percentile(values, 50);

/** The METRICS_TOKEN of the gateways the benchmarks start: /metrics answers only with it. */
export const BENCH_METRICS_TOKEN = randomBytes(16).toString('hex');

/** GET /metrics of a gateway started with BENCH_METRICS_TOKEN: the exposition text. */
export async function scrapeMetrics(url: string): Promise<string> {
  const response = await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${BENCH_METRICS_TOKEN}` } });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`GET /metrics answered ${response.status}: ${text.slice(0, 200)}`);
  return text;
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs `work` on a connection of its own to `url`, closed after, whatever happened. */
export async function withClient<T>(url: string, work: (sql: pg.Client) => Promise<T>): Promise<T> {
  const sql = new pg.Client({ connectionString: url });
  // A lost connection fails the work's next query, not the process.
  sql.on('error', () => {});
  await sql.connect();
  try {
    return await work(sql);
  } finally {
    await sql.end();
  }
}

/**
 * A database of the benchmark's own on BENCH_DATABASE_URL's server, dropped by
 * `drop`: empty, or a copy of `template` (a database no one is connected to).
 */
export async function createBenchDatabase(template?: string) {
  const adminUrl = process.env.BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/test';
  const admin = new pg.Client({ connectionString: adminUrl });
  admin.on('error', () => {});
  try {
    await admin.connect();
  } catch (error) {
    throw new Error(
      `the benchmarks need PostgreSQL at ${adminUrl} (set BENCH_DATABASE_URL): ${(error as Error).message}`,
    );
  }
  const name = `gateway_bench_${randomBytes(4).toString('hex')}`;
  await admin.query(`CREATE DATABASE "${name}"${template ? ` TEMPLATE "${template}"` : ''}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const version = (await admin.query<{ server_version: string }>('SHOW server_version')).rows[0]!.server_version;
  await admin.end();
  let dropped = false;
  return {
    name,
    url: url.toString(),
    serverVersion: version,
    async drop() {
      if (dropped) return;
      dropped = true;
      const client = new pg.Client({ connectionString: adminUrl });
      client.on('error', () => {});
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}

/**
 * PostGraphile 5's package (bench/postgraphile5): installed from its own
 * lockfile the first time the bench needs it, apart from the gateway's
 * dependencies (it brings graphql 16 and Grafast of its own). 5.1.5 declares
 * Node.js >= 22; its entry supplies the one API Node.js 20 lacks, so the
 * engine check is not enforced.
 */
export function installPostGraphile5(log: (line: string) => void) {
  const directory = path.join(BENCH_DIR, 'postgraphile5');
  if (existsSync(path.join(directory, 'node_modules', 'postgraphile', 'package.json'))) return;
  log('installing PostGraphile 5 (npm ci in bench/postgraphile5)');
  execFileSync('npm', ['ci', '--no-audit', '--no-fund', '--engine-strict=false'], {
    cwd: directory,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Resident memory of a process, in MiB (VmRSS from /proc). */
export function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = /VmRSS:\s+(\d+) kB/.exec(status);
  return match ? Number(match[1]) / 1024 : NaN;
}

/** CPU time (user + system, all threads) a process has used, ms; from /proc/<pid>/stat. */
export function cpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime are fields 14 and 15 (1-based), in clock ticks of 1/100 s.
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
  } catch {
    return 0;
  }
}
const CLOCK_TICKS = 100;

/**
 * CPU ms used so far by each of the PostgreSQL backends serving `sql`'s
 * database (by pid), but `sql`'s own: the difference of two readings is what
 * the server did for the load between them.
 */
export async function postgresCpu(sql: pg.ClientBase): Promise<Map<number, number>> {
  const { rows } = await sql.query<{ pid: number }>(
    'SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
  );
  return new Map(rows.map(({ pid }) => [pid, cpuMs(pid)]));
}

/** Resolves once no other backend of the database runs a statement (checked every 100 ms), or after `timeoutMs`. */
export async function postgresQuiet(sql: pg.ClientBase, timeoutMs = 30_000): Promise<void> {
  const until = performance.now() + timeoutMs;
  while (performance.now() < until) {
    const { rows } = await sql.query<{ busy: number }>(
      `SELECT count(*)::int AS busy FROM pg_stat_activity
        WHERE datname = current_database() AND pid <> pg_backend_pid() AND state = 'active'`,
    );
    if (rows[0]!.busy === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Samples a process's RSS every `everyMs` until stopped; returns the peak and the samples. */
export function sampleRss(pid: number, everyMs = 200) {
  const samples: number[] = [];
  const timer = setInterval(() => {
    try {
      samples.push(rssMiB(pid));
    } catch {
      // The process is gone; the caller notices elsewhere.
    }
  }, everyMs);
  return {
    stop() {
      clearInterval(timer);
      return {
        peak: samples.length ? Math.max(...samples) : NaN,
        median: samples.length ? median(samples) : NaN,
        samples,
      };
    },
  };
}

export interface ServerProcess {
  name: string;
  url: string;
  pid: number;
  child: ChildProcess;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves when the process has exited. */
  stop(graceMs?: number): Promise<void>;
}

const running = new Set<ServerProcess>();

/** Stops every server process still running (on the way out, whatever happened). */
export async function stopAll() {
  await Promise.all([...running].map((server) => server.stop()));
}

/**
 * The gateway as `npm start` runs it, read from package.json: its `prestart`
 * (the build of dist/main.js) is run here, once, and its `start`
 * (`node <flags> dist/main.js`) is returned as the node flags and the script.
 */
export function npmStart(): { nodeArgs: string[]; script: string } {
  built ??= buildStart();
  return built;
}
let built: { nodeArgs: string[]; script: string } | undefined;

function buildStart(): { nodeArgs: string[]; script: string } {
  const { scripts } = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
    scripts: Record<string, string>;
  };
  const nodeCommand = (name: string) => {
    const words = (scripts[name] ?? '').trim().split(/\s+/);
    if (words[0] !== 'node' || words.length < 2)
      throw new Error(`package.json's ${name} script is not \`node …\`: ${scripts[name]}`);
    return words.slice(1);
  };
  if (scripts.prestart)
    execFileSync(process.execPath, nodeCommand('prestart'), { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  const start = nodeCommand('start');
  return { nodeArgs: start.slice(0, -1), script: start.at(-1)! };
}

/**
 * Starts a server as its own process (`node [nodeArgs] script`, through tsx
 * for a .ts script) and waits until `readyPath` answers 2xx. Its output goes
 * to this process's stderr, prefixed by its name.
 */
export async function startServer(options: {
  name: string;
  script: string;
  nodeArgs?: string[];
  args?: string[];
  env?: Record<string, string>;
  port: number;
  readyPath: string;
  timeoutMs?: number;
}): Promise<ServerProcess> {
  const loader = options.script.endsWith('.ts') ? ['--import', 'tsx'] : [];
  const child = spawn(
    process.execPath,
    [...(options.nodeArgs ?? []), ...loader, options.script, ...(options.args ?? [])],
    {
      cwd: ROOT,
      env: { ...process.env, NODE_ENV: 'production', ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const prefix = (chunk: Buffer) =>
    chunk
      .toString()
      .split('\n')
      .filter(Boolean)
      .map((line) => `  [${options.name}] ${line}\n`)
      .join('');
  child.stdout!.on('data', (chunk: Buffer) => process.stderr.write(prefix(chunk)));
  child.stderr!.on('data', (chunk: Buffer) => process.stderr.write(prefix(chunk)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let exitedEarly = false;
  child.once('exit', () => (exitedEarly = true));
  const url = `http://127.0.0.1:${options.port}`;
  const server: ServerProcess = {
    name: options.name,
    url,
    pid: child.pid!,
    child,
    async stop(graceMs = 15_000) {
      running.delete(server);
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
  running.add(server);
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  while (Date.now() < deadline) {
    if (exitedEarly) throw new Error(`${options.name} exited during start (code ${child.exitCode})`);
    try {
      const response = await fetch(url + options.readyPath);
      if (response.ok) return server;
    } catch {
      // Not listening yet.
    }
    await sleep(100);
  }
  await server.stop();
  throw new Error(
    `${options.name} did not answer ${options.readyPath} within ${(options.timeoutMs ?? 60_000) / 1000} s`,
  );
}

/** The gateway's environment in the benchmarks: no engine, no Redis, no rate limit to speak of, warnings only. */
export function gatewayEnv(databaseUrl: string, port: number): Record<string, string> {
  return {
    DATABASE_URL: databaseUrl,
    PORT: String(port),
    HOST: '127.0.0.1',
    ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    ENGINE: 'off',
    INSIGHTS_INTERVAL_MS: '0',
    RATE_LIMIT_PER_MINUTE: '1000000000',
    AGENT_UPDATE_RATE_LIMIT_PER_MINUTE: '1000000000',
    LOG_LEVEL: 'warn',
    REDIS_URL: '',
  };
}

/**
 * Starts the gateway as `npm start` runs it, against `databaseUrl`, as an
 * API-only instance measured alone: no run engine, no insights, no rate limit
 * (it would measure itself), no Redis, no line per request. `env` adds to or
 * overrides that (e.g. `ENGINE: 'on'`).
 */
export async function startGateway(options: {
  name: string;
  databaseUrl: string;
  env?: Record<string, string>;
  nodeArgs?: string[];
}): Promise<ServerProcess> {
  const start = npmStart();
  const port = await freePort();
  return startServer({
    name: options.name,
    script: start.script,
    nodeArgs: [...start.nodeArgs, ...(options.nodeArgs ?? [])],
    env: { ...gatewayEnv(options.databaseUrl, port), ...options.env },
    port,
    readyPath: '/ready',
  });
}

export interface LoadOptions {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  connections: number;
  /** Seconds measured. */
  duration: number;
  /** Seconds of load before measuring, not counted. */
  warmup: number;
  /** Whether the result lists every latency (rounds of one side are merged from them). */
  latencies?: boolean;
}

export interface LoadResult {
  requests: number;
  rps: number;
  p50: number;
  p99: number;
  mean: number;
  max: number;
  errors: number;
  non2xx: number;
  /** Every 2xx answer's latency, ms, sorted: when the options asked for them. */
  latencies?: number[];
}

/**
 * Runs autocannon in a second process (bench/load.ts) and returns what it
 * measured; `onMeasuring` is called when the warm-up is over and measuring starts.
 */
export async function runLoad(options: LoadOptions, onMeasuring?: () => void | Promise<void>): Promise<LoadResult> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(BENCH_DIR, 'load.ts'), JSON.stringify(options)], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  for await (const line of createInterface({ input: child.stdout! })) {
    if (line === 'measuring') await onMeasuring?.();
    else output += `${line}\n`;
  }
  const code = await exited;
  if (code !== 0) throw new Error(`the load generator failed (exit ${code})`);
  const result = JSON.parse(output.trim().split('\n').pop()!) as LoadResult;
  if (result.errors > 0 || result.non2xx > 0) {
    throw new Error(`load on ${options.url}: ${result.errors} errors, ${result.non2xx} non-2xx answers`);
  }
  return result;
}
