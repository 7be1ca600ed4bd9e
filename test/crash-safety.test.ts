// Nothing half-written survives a crash, and nothing secret is stored in the clear.
import { spawnSync } from 'node:child_process';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../src/db/database.ts';
import { eventually } from './support/flows.ts';
import { freePort, orgRest, runCli, startServerProcess } from './support/processes.ts';
import { createTestStorage, onPostgres, type TestStorage } from './support/storage.ts';

/**
 * The bytes the Run table's storage holds, read from outside the server: rows
 * an open transaction inserted take their pages at once, committed or not. On
 * PostgreSQL pg_relation_size through a connection of our own; the embedded
 * database admits no second process, so the size of the table's file in its
 * data directory (located before the server starts).
 */
/** Run is partitioned by month: its rows are in its leaf partitions' files (the parent has none). */
const RUN_PARTITIONS = `FROM pg_partition_tree('"Run"') WHERE isleaf`;

async function runTableBytes(storage: TestStorage) {
  if (storage.storage.kind === 'postgres') {
    const client = new pg.Client({ connectionString: storage.storage.url });
    await client.connect();
    return {
      read: async () =>
        Number((await client.query(`SELECT sum(pg_relation_size(relid)) AS bytes ${RUN_PARTITIONS}`)).rows[0].bytes),
      /** Batches committed so far: none while the creation is still writing. */
      committedBatches: async () => Number((await client.query(`SELECT count(*) AS count FROM "Batch"`)).rows[0].count),
      close: () => client.end(),
    };
  }
  const db = await openDatabase(storage.storage);
  const located = db.sql.query<{ file: string }>(`SELECT pg_relation_filepath(relid) AS file ${RUN_PARTITIONS}`);
  const { rows } = await located.finally(() => db.close());
  const { dataDir } = storage.storage;
  const files = rows.map((row) => path.join(dataDir, 'pgdata', row.file));
  const read = async () =>
    (await Promise.all(files.map(async (file) => (await stat(file)).size))).reduce((a, b) => a + b, 0);
  return { read, committedBatches: async () => 0, close: async () => {} };
}

describe('a server killed during a large batch creation', () => {
  it('leaves the whole batch or none of it', { timeout: 240_000 }, async () => {
    const storage = await createTestStorage();
    try {
      const org = JSON.parse((await runCli(['orgs', 'create', '--name', 'Kill'], storage.env)).stdout);
      const env = { ...storage.env, ENGINE: 'off' };
      // Located before the server holds the embedded database.
      const runTable = await runTableBytes(storage);
      let port = await freePort();
      let server = await startServerProcess(env, port);
      // A failure before the kill must not leave the server running.
      try {
        const api = (path: string, body: unknown) => orgRest(port, org)('POST', path, body);
        const workflow = (await api('/workflows', { name: 'Kill' })).body;
        const ids: string[] = [];
        for (let chunk = 0; chunk < 5; chunk++) {
          const prospects = Array.from({ length: 10_000 }, (_, n) => ({ first_name: `P${chunk}-${n}` }));
          const created = (await api('/prospects', { prospects })).body;
          ids.push(...created.created.map((prospect: { id: string }) => prospect.id));
        }
        // Kill the server while the batch is being written: once its first runs are in the table, before it commits.
        const empty = await runTable.read();
        let answered = false;
        const creation = api(`/workflows/${workflow.id}/batches`, { prospect_ids: ids }).then(
          (response) => {
            answered = true;
            return response;
          },
          () => null,
        );
        // Polled from outside: the server's own event loop is busy writing.
        const written = await eventually(
          async () => {
            const bytes = await runTable.read();
            return bytes > empty || answered ? bytes : undefined;
          },
          120_000,
          'the first runs to be written',
          2,
        );
        expect(answered).toBe(false);
        expect(written).toBeGreaterThan(empty);
        expect(await runTable.committedBatches()).toBe(0);
        await server.stop('SIGKILL');
        // The request never got its answer: the kill came while the batch was being written.
        expect(await creation).toBeNull();
      } finally {
        await server.stop('SIGKILL'); // at once if it is gone already
        await runTable.close();
      }

      port = await freePort();
      server = await startServerProcess(env, port);
      await server.stop('SIGTERM');
      const db = await openDatabase(storage.storage);
      try {
        const batches = await db.prisma.batch.findMany();
        const runs = await db.prisma.run.count();
        if (batches.length === 0) {
          expect(runs).toBe(0);
        } else {
          expect(batches).toHaveLength(1);
          expect(batches[0]).toMatchObject({ totalProspects: 50_000, pendingCount: 50_000 });
          expect(runs).toBe(50_000);
        }
      } finally {
        await db.close();
      }
    } finally {
      await storage.dispose();
    }
  });
});

describe('a dump of the database', () => {
  it('holds no plain-text credential, SIP password or API key', { timeout: 120_000 }, async () => {
    const storage = await createTestStorage();
    try {
      const org = JSON.parse((await runCli(['orgs', 'create', '--name', 'Dump'], storage.env)).stdout);
      const port = await freePort();
      const server = await startServerProcess({ ...storage.env, ENGINE: 'off' }, port);
      const api = (path: string, body: unknown) => orgRest(port, org)('POST', path, body);
      const secrets = ['hubspot-private-token-7f3a9c', 'sip-password-e81b2d', 'account-sid-secret-55aa'];
      expect(
        (await api('/integrations', { slug: 'hubspot', credentials: { private_app_token: secrets[0] } })).status,
      ).toBe(201);
      expect(
        (
          await api('/integrations', {
            slug: 'twilio',
            credentials: { account_sid: secrets[2], auth_token: secrets[2] },
          })
        ).status,
      ).toBe(201);
      expect(
        (
          await api('/sip-trunks', {
            name: 'T',
            address: 'sip.example.com',
            provider: 'twilio',
            phone_numbers: ['+14155550100'],
            auth_username: 'u',
            auth_password: secrets[1],
          })
        ).status,
      ).toBe(201);
      await server.stop('SIGTERM');

      let dump: string;
      if (onPostgres) {
        const url = new URL(storage.env.DATABASE_URL!);
        const result = spawnSync(
          'pg_dump',
          [
            '--data-only',
            '--no-owner',
            '-h',
            url.hostname,
            '-p',
            url.port || '5432',
            '-U',
            url.username,
            url.pathname.slice(1),
          ],
          {
            encoding: 'utf8',
            maxBuffer: 256 * 1024 * 1024,
          },
        );
        expect(result.status).toBe(0);
        dump = result.stdout;
      } else {
        // PGlite has no pg_dump here: dump every table's rows as text, which is what a dump holds.
        const db = await openDatabase(storage.storage);
        try {
          const tables = await db.sql.query<{ tablename: string }>(
            `SELECT tablename FROM pg_tables WHERE schemaname = 'public'`,
          );
          const parts: string[] = [];
          for (const { tablename } of tables.rows) {
            const rows = await db.sql.query(`SELECT * FROM "${tablename}"`);
            parts.push(JSON.stringify(rows.rows));
          }
          dump = parts.join('\n');
        } finally {
          await db.close();
        }
      }
      expect(dump).toContain(org.organization_id);
      for (const secret of [...secrets, org.api_key]) expect(dump).not.toContain(secret);
    } finally {
      await storage.dispose();
    }
  });
});
