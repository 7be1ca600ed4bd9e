// Shared pieces of the benchmarks: a gateway on the machine's PostgreSQL
// (BENCH_DATABASE_URL, default the local server's `test` database, in a
// database of its own) or, failing that, on the embedded database.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { Storage } from '../src/config.ts';
import { createOrganization } from '../src/domain/organizations.ts';
import { SecretBox } from '../src/domain/secrets.ts';
import { buildApp } from '../src/http/app.ts';
import { prepareDatabase } from '../src/server.ts';
import { createServices } from '../src/services.ts';

export const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
};
export const median = (values: number[]) => percentile(values, 50);

async function benchStorage(): Promise<{ storage: Storage; label: string; dispose(): Promise<void> }> {
  const adminUrl = process.env.BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/test';
  const admin = new pg.Client({ connectionString: adminUrl });
  try {
    await admin.connect();
    const name = `gateway_bench_${randomBytes(4).toString('hex')}`;
    await admin.query(`CREATE DATABASE "${name}"`);
    const url = new URL(adminUrl);
    url.pathname = `/${name}`;
    return {
      storage: { kind: 'postgres', url: url.toString(), poolSize: 20 },
      label: 'PostgreSQL',
      dispose: async () => {
        await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
        await admin.end();
      },
    };
  } catch {
    await admin.end().catch(() => {});
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'gateway-bench-'));
    return { storage: { kind: 'embedded', dataDir }, label: 'embedded PGlite', dispose: () => rm(dataDir, { recursive: true, force: true }) };
  }
}

export async function startBenchGateway() {
  const { storage, label, dispose } = await benchStorage();
  const db = await prepareDatabase(storage);
  const services = createServices(db, new SecretBox(randomBytes(32)));
  const unlimited = { perKey: 1e9, agentUpdate: 1e9, windowMs: 60_000 };
  const app = await buildApp({ services, rateLimits: unlimited });
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  const { organization, apiKey } = await createOrganization(db.prisma, 'Bench');
  return {
    url,
    db,
    label,
    organizationId: organization.id,
    apiKey,
    async close() {
      await app.close();
      await services.close();
      await db.close();
      await dispose();
    },
  };
}
