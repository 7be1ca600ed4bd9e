import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { integrationCatalog } from '../src/domain/integration-catalog.ts';
import { revokeApiKey } from '../src/domain/organizations.ts';
import { freePort, startServerProcess } from './support/processes.ts';
import { startTestServer, type TestServer } from './support/server.ts';
import { createTestStorage, onPostgres } from './support/storage.ts';

describe('the HTTP server', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  it('answers /health and /ready', async () => {
    const health = await fetch(`${server.url}/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok' });
    const ready = await fetch(`${server.url}/ready`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready' });
  });

  it('answers an unknown route with 404 in the error body', async () => {
    const response = await fetch(`${server.url}/no/such/route`);
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({
      status: false,
      message: expect.stringContaining('/no/such/route'),
      error: null,
      data: null,
    });
  });

  it('refuses GraphQL without a valid key with 401 and a GraphQL error body', async () => {
    for (const key of [null, 'not-a-key', `gwk_${'A'.repeat(43)}`]) {
      const { status, body } = await server.graphql(key, '{ organization { id } }');
      expect(status).toBe(401);
      expect(body.data).toBeUndefined();
      expect(body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    }
  });

  it("answers with the key's own organization, and refuses the key once revoked", async () => {
    const acme = await server.createOrganization('Acme');
    const globex = await server.createOrganization('Globex');
    const { status, body } = await server.graphql(acme.apiKey, '{ organization { id name } }');
    expect(status).toBe(200);
    expect(body.data.organization).toEqual({ id: acme.organizationId, name: 'Acme' });
    expect((await server.graphql(globex.apiKey, '{ organization { name } }')).body.data.organization.name).toBe(
      'Globex',
    );

    await revokeApiKey(server.db.prisma, acme.apiKey);
    expect((await server.graphql(acme.apiKey, '{ organization { id } }')).status).toBe(401);
  });

  it('serves GraphiQL to a browser', async () => {
    const response = await fetch(`${server.url}/graphql`, { headers: { accept: 'text/html' } });
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('graphiql');
  });

  it('has the integration catalog seeded', async () => {
    const slugs = (await server.db.prisma.integration.findMany()).map((row) => row.slug).sort();
    expect(slugs).toEqual(integrationCatalog.map((entry) => entry.slug).sort());
    expect(slugs.length).toBeGreaterThanOrEqual(12);
  });
});

describe('npm start', () => {
  // Two starts, the first creating the database: minutes on a loaded machine.
  it.skipIf(onPostgres)(
    'creates and prints the first organization once on an empty embedded database',
    {
      timeout: 180_000,
    },
    async () => {
      const storage = await createTestStorage({ empty: true });
      try {
        const first = await startServerProcess(storage.env, await freePort());
        expect(await first.stop()).toBe(0);
        const key = first.output().match(/API key \(shown once, keep it\): (gwk_\S+)/)?.[1];
        expect(key).toBeDefined();

        const port = await freePort();
        const second = await startServerProcess(storage.env, port);
        try {
          expect(second.output()).not.toContain('API key');
          const response = await fetch(`http://127.0.0.1:${port}/graphql`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-api-key': key! },
            body: JSON.stringify({ query: '{ organization { id } }' }),
          });
          expect(response.status).toBe(200);
        } finally {
          expect(await second.stop()).toBe(0);
        }
      } finally {
        await storage.dispose();
      }
    },
  );

  it.runIf(onPostgres)('on PostgreSQL migrates at start and creates no organization by itself', async () => {
    const storage = await createTestStorage({ empty: true });
    try {
      const server = await startServerProcess(storage.env, await freePort());
      expect(await server.stop()).toBe(0);
      expect(server.output()).not.toContain('API key');
    } finally {
      await storage.dispose();
    }
  });
});
