// Each test file gets storage of its own: a fresh embedded database in a
// temporary directory, or, when TEST_DATABASE_URL is set, a fresh database
// created on that PostgreSQL server and dropped afterwards.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { Storage } from '../../src/config.ts';

export interface TestStorage {
  storage: Storage;
  /** Environment variables that point a child process (CLI, server) at this storage. */
  env: Record<string, string>;
  dispose(): Promise<void>;
}

export const onPostgres = Boolean(process.env.TEST_DATABASE_URL);

async function withAdminClient<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

export async function createTestStorage(): Promise<TestStorage> {
  if (!onPostgres) {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'gateway-test-'));
    return {
      storage: { kind: 'embedded', dataDir },
      env: { DATA_DIR: dataDir, DATABASE_URL: '' },
      dispose: () => rm(dataDir, { recursive: true, force: true }),
    };
  }
  const name = `gateway_test_${randomBytes(6).toString('hex')}`;
  await withAdminClient((client) => client.query(`CREATE DATABASE "${name}"`));
  const url = new URL(process.env.TEST_DATABASE_URL!);
  url.pathname = `/${name}`;
  return {
    storage: { kind: 'postgres', url: url.toString(), poolSize: 5 },
    env: { DATABASE_URL: url.toString(), ENCRYPTION_KEY: randomBytes(32).toString('base64') },
    dispose: () => withAdminClient((client) => client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)).then(() => {}),
  };
}
