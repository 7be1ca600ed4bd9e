// Nothing half-written survives a crash, and nothing secret is stored in the clear.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../src/db/database.ts';
import { freePort, runCli, startServerProcess } from './support/processes.ts';
import { createTestStorage, onPostgres } from './support/storage.ts';

describe('a server killed during a large batch creation', () => {
  it('leaves the whole batch or none of it', { timeout: 240_000 }, async () => {
    const storage = await createTestStorage();
    try {
      const org = JSON.parse((await runCli(['orgs', 'create', '--name', 'Kill'], storage.env)).stdout);
      const env = { ...storage.env, ENGINE: 'off' };
      let port = await freePort();
      let server = await startServerProcess(env, port);
      const api = (path: string, body: unknown) =>
        fetch(`http://127.0.0.1:${port}/org/${org.organization_id}${path}`, {
          method: 'POST',
          headers: { 'x-api-key': org.api_key, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
      const workflow = await (await api('/workflows', { name: 'Kill' })).json();
      const ids: string[] = [];
      for (let chunk = 0; chunk < 5; chunk++) {
        const created = await (await api('/prospects', { prospects: Array.from({ length: 10_000 }, (_, n) => ({ first_name: `P${chunk}-${n}` })) })).json();
        ids.push(...created.created.map((prospect: { id: string }) => prospect.id));
      }
      // Kill the server while the batch is being written: after it started, before it could finish.
      const creation = api(`/workflows/${workflow.id}/batches`, { prospect_ids: ids }).catch(() => null);
      await new Promise((resolve) => setTimeout(resolve, 400));
      await server.stop('SIGKILL');
      // The request never got its answer: the kill came while the batch was being written.
      expect(await creation).toBeNull();

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
      const api = (path: string, body: unknown) =>
        fetch(`http://127.0.0.1:${port}/org/${org.organization_id}${path}`, {
          method: 'POST',
          headers: { 'x-api-key': org.api_key, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
      const secrets = ['hubspot-private-token-7f3a9c', 'sip-password-e81b2d', 'account-sid-secret-55aa'];
      expect((await api('/integrations', { slug: 'hubspot', credentials: { private_app_token: secrets[0] } })).status).toBe(201);
      expect((await api('/integrations', { slug: 'twilio', credentials: { account_sid: secrets[2], auth_token: secrets[2] } })).status).toBe(201);
      expect(
        (await api('/sip-trunks', { name: 'T', address: 'sip.example.com', provider: 'twilio', phone_numbers: ['+14155550100'], auth_username: 'u', auth_password: secrets[1] }))
          .status,
      ).toBe(201);
      await server.stop('SIGTERM');

      let dump: string;
      if (onPostgres) {
        const url = new URL(storage.env.DATABASE_URL!);
        const result = spawnSync('pg_dump', ['--data-only', '--no-owner', '-h', url.hostname, '-p', url.port || '5432', '-U', url.username, url.pathname.slice(1)], {
          encoding: 'utf8',
          maxBuffer: 256 * 1024 * 1024,
        });
        expect(result.status).toBe(0);
        dump = result.stdout;
      } else {
        // PGlite has no pg_dump here: dump every table's rows as text, which is what a dump holds.
        const db = await openDatabase(storage.storage);
        try {
          const tables = await db.sql.query<{ tablename: string }>(`SELECT tablename FROM pg_tables WHERE schemaname = 'public'`);
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
