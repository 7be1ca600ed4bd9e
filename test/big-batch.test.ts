// A batch of 100,000 prospects in one request (DECISIONS.md's limit): one
// body of 100,000 ids, one transaction, 100,000 runs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { restClient } from './support/rest.ts';
import { startTestServer, type TestServer } from './support/server.ts';

describe('a batch of 100,000 prospects', () => {
  let server: TestServer;
  let organizationId: string;
  let rest: ReturnType<typeof restClient>;
  beforeAll(async () => {
    server = await startTestServer();
    const org = await server.createOrganization();
    organizationId = org.organizationId;
    rest = restClient(server, org.organizationId, org.apiKey);
  });
  afterAll(() => server.close());

  it('is created in one request, all of it', { timeout: 180_000 }, async () => {
    // Seeding is not what is tested: write the prospects directly, in bulk.
    await server.db.sql.query(
      `INSERT INTO "Prospect" ("organizationId", "firstName", "updatedAt") SELECT $1, 'P' || n, now() FROM generate_series(1, 100000) AS n`,
      [organizationId],
    );
    const ids = (
      await server.db.sql.query<{ id: string }>('SELECT id FROM "Prospect" WHERE "organizationId" = $1', [
        organizationId,
      ])
    ).rows.map((row) => row.id);
    expect(ids).toHaveLength(100_000);
    const workflow = await rest('POST', '/org/{org}/workflows', { body: { name: 'Big' } });
    const batch = await rest('POST', `/org/{org}/workflows/${workflow.body.id}/batches`, {
      body: { name: 'Big', prospect_ids: ids },
    });
    expect(batch.status).toBe(201);
    expect(batch.body).toMatchObject({
      total_prospects: 100_000,
      stats: { pending_count: 100_000, total_count: 100_000 },
    });
    expect(await server.db.prisma.run.count({ where: { batchId: batch.body.id } })).toBe(100_000);

    // One id more than the limit is refused, and nothing is written.
    const tooMany = await rest('POST', `/org/{org}/workflows/${workflow.body.id}/batches`, {
      body: { prospect_ids: [...ids, ids[0]] },
    });
    expect(tooMany.status).toBe(400);
    expect(await server.db.prisma.batch.count()).toBe(1);
  });
});
