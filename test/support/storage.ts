// Each test file gets storage of its own: an embedded database in a temporary
// directory, or, when TEST_DATABASE_URL is set, a database created on that
// PostgreSQL server and dropped afterwards. Both start as copies of the
// migrated template test/support/global-setup.ts prepares once per run (a copy
// of its data directory; CREATE DATABASE ... TEMPLATE), unless a test asks for
// an empty one to watch the migrations run.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { inject } from 'vitest';
import type { Storage } from '../../src/config.ts';

export interface TestStorage {
  storage: Storage;
  /** Environment variables that point a child process (CLI, server) at this storage. */
  env: Record<string, string>;
  dispose(): Promise<void>;
}

/** The migrated database test storage is copied from. */
export type StorageTemplate = { kind: 'embedded'; dataDir: string } | { kind: 'postgres'; database: string };

export const onPostgres = Boolean(process.env.TEST_DATABASE_URL);

/** The URL of `database` on the TEST_DATABASE_URL server. */
export function adminDatabaseUrl(database: string): string {
  const url = new URL(process.env.TEST_DATABASE_URL!);
  url.pathname = `/${database}`;
  return url.toString();
}

export async function withAdminClient<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

export async function dropDatabase(name: string): Promise<void> {
  await withAdminClient((client) => client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
}

/** Storage with the migrated schema and the integration catalog, as a server's first start leaves it; `empty`: nothing at all. */
export async function createTestStorage({ empty = false } = {}): Promise<TestStorage> {
  const template = empty ? null : inject('storageTemplate');
  if (!onPostgres) {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'gateway-test-'));
    if (template?.kind === 'embedded') {
      // cp(1), not fs.cp: for the template's ~1,000 files it takes a tenth of the CPU time.
      await promisify(execFile)('cp', ['-a', path.join(template.dataDir, 'pgdata'), path.join(dataDir, 'pgdata')]);
    }
    return {
      storage: { kind: 'embedded', dataDir },
      env: { DATA_DIR: dataDir, DATABASE_URL: '' },
      dispose: () => rm(dataDir, { recursive: true, force: true }),
    };
  }
  const name = `gateway_test_${randomBytes(6).toString('hex')}`;
  const from = template?.kind === 'postgres' ? ` TEMPLATE "${template.database}"` : '';
  await withAdminClient((client) => client.query(`CREATE DATABASE "${name}"${from}`));
  const url = adminDatabaseUrl(name);
  return {
    storage: { kind: 'postgres', url, poolSize: 5 },
    env: { DATABASE_URL: url, ENCRYPTION_KEY: randomBytes(32).toString('base64') },
    dispose: () => dropDatabase(name),
  };
}
