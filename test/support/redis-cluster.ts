// A real Redis Cluster of three masters (no replicas) for the tests of
// REDIS_CLUSTER_NODES, started from the machine's redis-server in a temporary
// directory and shut down by the caller (in afterAll, whatever happened).
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { promisify } from 'node:util';
import { freePort } from './processes.ts';

const run = promisify(execFile);

export interface TestRedisCluster {
  /** `host:port` of each master, as REDIS_CLUSTER_NODES lists them. */
  nodes: string[];
  /** The port of the master serving a key or channel's slot. */
  portOf(name: string): Promise<number>;
  /** Runs a command on the master serving `name`'s slot; its reply as redis-cli prints it, one line a value. */
  onNodeOf(name: string, ...command: string[]): Promise<string[]>;
  /** Shuts every node down (no save) and removes their files; safe to call after a failed start. */
  stop(): Promise<void>;
}

const cli = (port: number, ...args: string[]) => run('redis-cli', ['-p', String(port), ...args]);

/** Starts three cluster-enabled redis-servers and joins them into one cluster whose 16,384 slots are all served. */
export async function startRedisCluster(): Promise<TestRedisCluster> {
  const directory = await mkdtemp(path.join(tmpdir(), 'gateway-redis-cluster-'));
  const ports: number[] = [];
  const stop = async () => {
    await Promise.all(ports.map((port) => cli(port, 'shutdown', 'nosave').catch(() => {})));
    await rm(directory, { recursive: true, force: true });
  };
  try {
    for (let node = 0; node < 3; node++) {
      const [port, busPort] = [await freePort(), await freePort()];
      ports.push(port);
      // The bus port is chosen too: the default (port + 10,000) may be past 65,535 for a high free port.
      await run('redis-server', [
        ...['--port', String(port), '--bind', '127.0.0.1', '--cluster-enabled', 'yes'],
        ...['--cluster-port', String(busPort), '--cluster-config-file', path.join(directory, `nodes-${port}.conf`)],
        ...['--dir', directory, '--save', '', '--appendonly', 'no', '--daemonize', 'yes'],
        ...['--logfile', path.join(directory, `redis-${port}.log`)],
      ]);
    }
    await waitFor(() => Promise.all(ports.map((port) => cli(port, 'ping'))).then(() => true));
    await run('redis-cli', [
      '--cluster',
      'create',
      ...ports.map((port) => `127.0.0.1:${port}`),
      ...['--cluster-replicas', '0', '--cluster-yes'],
    ]);
    // Every node must know the whole map before clients connect: one that does not answers CLUSTERDOWN.
    await waitFor(async () => {
      const states = await Promise.all(ports.map((port) => cli(port, 'cluster', 'info')));
      return states.every(({ stdout }) => stdout.includes('cluster_state:ok'));
    });
  } catch (error) {
    await stop();
    throw error;
  }
  const portOf = async (name: string) => {
    const slot = Number((await cli(ports[0]!, 'cluster', 'keyslot', name)).stdout.trim());
    const { stdout } = await cli(ports[0]!, '--json', 'cluster', 'slots');
    const ranges = JSON.parse(stdout) as [number, number, [string, number, ...unknown[]]][];
    const range = ranges.find(([from, to]) => slot >= from && slot <= to);
    if (!range) throw new Error(`no node serves slot ${slot}`);
    return range[2][1];
  };
  return {
    nodes: ports.map((port) => `127.0.0.1:${port}`),
    portOf,
    async onNodeOf(name, ...command) {
      const { stdout } = await cli(await portOf(name), ...command);
      return stdout.split('\n').filter((line) => line !== '');
    },
    stop,
  };
}

/** Polls a condition of the cluster's processes (outside this process: nothing to be told by) for up to 20 s. */
async function waitFor(condition: () => Promise<boolean>) {
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (await condition().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error('the Redis cluster did not come up within 20 s');
    await delay(50);
  }
}
