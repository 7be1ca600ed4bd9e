// A PostgreSQL primary and a streaming replica of it, made by PostgreSQL's own
// tools for one test file (a few seconds): initdb on a port of its own (the
// machine's server need not allow replication), pg_basebackup -R for the
// replica, pg_ctl to start and stop either. As root, every tool runs as the
// `postgres` user (initdb refuses root). `close` stops both and removes their
// directory, whatever state a failed test left them in.
import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { chown, mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';

const run = promisify(execFile);

/** The newest PostgreSQL's binaries Debian installed (PG_BIN overrides). */
function binaries(): string {
  if (process.env.PG_BIN) return process.env.PG_BIN;
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).sort((a, b) => Number(b) - Number(a)) : [];
  if (versions.length === 0) throw new Error('no PostgreSQL binaries under /usr/lib/postgresql (set PG_BIN)');
  return path.join(root, versions[0]!, 'bin');
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export interface ReplicaCluster {
  /** A database's URL on the primary, or on the replica. */
  primaryUrl(database: string): string;
  replicaUrl(database: string): string;
  /** Runs one statement on the primary or the replica (database `postgres` unless named) and answers its rows. */
  primary<Row = Record<string, unknown>>(sql: string, database?: string): Promise<Row[]>;
  replica<Row = Record<string, unknown>>(sql: string, database?: string): Promise<Row[]>;
  /** Resolves once the replica has replayed everything the primary has written so far. */
  caughtUp(): Promise<void>;
  stopReplica(): Promise<void>;
  startReplica(): Promise<void>;
  close(): Promise<void>;
}

export async function startReplicaCluster(): Promise<ReplicaCluster> {
  const bin = binaries();
  const asRoot = process.getuid?.() === 0;
  const dir = await mkdtemp(path.join(os.tmpdir(), 'gateway-replicas-'));
  const tool = (name: string, args: string[]) =>
    asRoot ? run('runuser', ['-u', 'postgres', '--', path.join(bin, name), ...args]) : run(path.join(bin, name), args);
  const [primaryPort, replicaPort] = [await freePort(), await freePort()];
  const primaryDir = path.join(dir, 'primary');
  const replicaDir = path.join(dir, 'replica');
  const started = new Set<string>();
  const start = async (dataDir: string, port: number) => {
    const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off`;
    await tool('pg_ctl', ['-D', dataDir, '-o', options, '-l', `${dataDir}.log`, '-w', 'start']);
    started.add(dataDir);
  };
  const stop = async (dataDir: string) => {
    if (!started.delete(dataDir)) return;
    await tool('pg_ctl', ['-D', dataDir, '-m', 'immediate', '-w', 'stop']).catch(() => {});
  };
  const close = async () => {
    await stop(replicaDir);
    await stop(primaryDir);
    await rm(dir, { recursive: true, force: true });
  };
  const url = (port: number, database: string) => `postgresql://postgres@127.0.0.1:${port}/${database}`;
  const statement =
    (port: number) =>
    async <Row>(sql: string, database = 'postgres') => {
      const client = new pg.Client({ connectionString: url(port, database) });
      await client.connect();
      try {
        return (await client.query(sql)).rows as Row[];
      } finally {
        await client.end();
      }
    };
  try {
    if (asRoot) await chown(dir, Number((await run('id', ['-u', 'postgres'])).stdout), 0);
    // initdb's pg_hba.conf trusts local replication connections: pg_basebackup needs nothing more.
    await tool('initdb', ['-D', primaryDir, '-U', 'postgres', '-A', 'trust', '--no-sync']);
    await start(primaryDir, primaryPort);
    await tool('pg_basebackup', [
      '-h',
      '127.0.0.1',
      '-p',
      String(primaryPort),
      '-U',
      'postgres',
      '-D',
      replicaDir,
      '-R',
      '-X',
      'stream',
      // Start at once: the default spreads the checkpoint it begins with over minutes.
      '--checkpoint=fast',
    ]);
    await start(replicaDir, replicaPort);
  } catch (error) {
    await close();
    throw error;
  }
  const primary = statement(primaryPort);
  const replica = statement(replicaPort);
  return {
    primaryUrl: (database) => url(primaryPort, database),
    replicaUrl: (database) => url(replicaPort, database),
    primary,
    replica,
    async caughtUp() {
      const [{ lsn }] = (await primary<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn')) as [
        { lsn: string },
      ];
      for (;;) {
        const [{ done }] = (await replica<{ done: boolean }>(
          `SELECT pg_last_wal_replay_lsn() >= '${lsn}'::pg_lsn AS done`,
        )) as [{ done: boolean }];
        if (done) return;
        // The replica applies WAL as it streams in: asking again is waiting on it, not on a duration.
        await new Promise((resolve) => setImmediate(resolve));
      }
    },
    stopReplica: () => stop(replicaDir),
    startReplica: () => start(replicaDir, replicaPort),
    close,
  };
}
