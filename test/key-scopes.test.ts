// Scoped API keys and their lifecycle, through the real server: what a key
// may do is its scopes (src/key-scopes.ts), checked on the fields themselves
// (src/schema/key-scope-checks.ts) so REST and GraphQL refuse alike; keys are
// issued, listed, rotated with a grace period and revoked over REST
// (/org/{org_id}/api-keys) and GraphQL, never granting more than the asking
// key holds; an expiring key stops at its instant. (Every operation against
// every scope: the tenancy matrix and the hostile-input properties.)
import { createClient } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { ApiKeyCache } from '../src/auth/api-key-cache.ts';
import { authenticate } from '../src/auth/authenticate.ts';
import { issueApiKey, rotateApiKey } from '../src/domain/organizations.ts';
import { eventually } from './support/flows.ts';
import { ManualClock } from './support/manual-clock.ts';
import { expectErrorBody, type RestResponse, restClient } from './support/rest.ts';
import { startTestServer, type TestServer } from './support/server.ts';

let server: TestServer;
let organizationId: string;
let adminKey: string;
let rest: ReturnType<typeof restClient>;

beforeAll(async () => {
  server = await startTestServer();
  ({ organizationId, apiKey: adminKey } = await server.createOrganization('Scoped'));
  rest = restClient(server, organizationId, adminKey);
});
afterAll(() => server.close());

/** Issues a key with these scopes over REST, as the organization's first key (`*`). */
async function keyWith(scopes: string[], name = scopes.join(' ')) {
  const response = await rest('POST', '/org/{org}/api-keys', { body: { name, scopes } });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body as { id: string; api_key: string; scopes: string[]; expires_at: string | null };
}

const expectForbidden = (response: RestResponse, scope: string) => {
  expectErrorBody(response, 403);
  expect(response.body.error.scope).toBe(scope);
  expect(response.body.message).toContain(`"${scope}"`);
};

const agentCount = () => server.db.prisma.agent.count({ where: { organizationId } });

describe('scoped keys', () => {
  it('issues a key with its scopes over REST (201, shown once), lists keys without secrets, under both prefixes', async () => {
    const issued = await keyWith(['read', 'agents:write'], 'dashboard');
    expect(Object.keys(issued).sort()).toEqual(['api_key', 'expires_at', 'id', 'scopes']);
    expect(issued).toMatchObject({ scopes: ['read', 'agents:write'], expires_at: null });
    expect(issued.api_key).toMatch(/^gwk_/);
    for (const prefix of ['/org', '/api/org']) {
      const listed = await rest('GET', `${prefix}/{org}/api-keys`);
      expect(listed.status).toBe(200);
      const mine = listed.body.data.find((key: { id: string }) => key.id === issued.id);
      expect(mine).toMatchObject({ name: 'dashboard', scopes: ['read', 'agents:write'], revoked_at: null });
      expect(JSON.stringify(listed.body)).not.toContain(issued.api_key);
    }
    // The key the organization was made with keeps everything.
    const current = await server.graphql(adminKey, '{ currentApiKey { scopes } }');
    expect(current.body.data.currentApiKey.scopes).toEqual(['*']);
  });

  it('a read key reads, and its writes are a 403 naming the scope, writing nothing, on REST and GraphQL alike', async () => {
    const { api_key: key } = await keyWith(['read']);
    const asReader = restClient(server, organizationId, key);
    expect((await asReader('GET', '/org/{org}/agents')).status).toBe(200);
    const before = await agentCount();
    for (const prefix of ['/org', '/api/org']) {
      expectForbidden(await asReader('POST', `${prefix}/{org}/agents`, { body: { name: 'Nope' } }), 'agents:write');
    }
    const { body } = await server.graphql(key, 'mutation { createAgent(input: { name: "Nope" }) { id } }');
    expect(body.data).toBeNull();
    expect(body.errors[0].extensions).toMatchObject({ code: 'FORBIDDEN', scope: 'agents:write' });
    expect(await agentCount()).toBe(before);
    // Its own scopes are readable whatever they are: a client can tell before trying.
    const current = await server.graphql(key, '{ currentApiKey { scopes } }');
    expect(current.body.data.currentApiKey.scopes).toEqual(['read']);
  });

  it("the worker's key (calls:report) reads agents and their evaluations and reports outcomes, and nothing else", async () => {
    const agent = (await rest('POST', '/org/{org}/agents', { body: { name: 'Worker agent' } })).body;
    const { api_key: key } = await keyWith(['calls:report']);
    const asWorker = restClient(server, organizationId, key);
    expect((await asWorker('GET', `/org/{org}/agents/${agent.id}`)).status).toBe(200);
    // The agent's evaluations: the worker scores the call on them after it.
    expect((await asWorker('GET', `/org/{org}/agents/evals?agent_id=${agent.id}`)).status).toBe(200);
    // Reporting is allowed: an unknown run is a 404, not a 403.
    const report = await asWorker('POST', `/org/{org}/runs/run_${'0'.repeat(32)}/attempts/1/outcome`, {
      body: { outcome: 'voicemail' },
    });
    expect(report.status).toBe(404);
    expectForbidden(await asWorker('GET', '/org/{org}/webhook-endpoints'), 'read');
    expectForbidden(await asWorker('DELETE', `/org/{org}/agents/${agent.id}`), 'agents:write');
    expect((await rest('GET', `/org/{org}/agents/${agent.id}`)).status).toBe(200);
  });

  it('the routes that run no GraphQL operation check the scope of the field they stand for: E6 and the CSV import', async () => {
    const workflow = (await rest('POST', '/org/{org}/workflows', { body: { name: 'W', definition: { steps: [] } } }))
      .body;
    const { api_key: key } = await keyWith(['agents:write']);
    const asAgents = restClient(server, organizationId, key);
    expectForbidden(await asAgents('GET', `/org/{org}/workflows/${workflow.id}/runs`), 'read');
    const prospects = () => server.db.prisma.prospect.count({ where: { organizationId } });
    const before = await prospects();
    const imported = await asAgents('POST', '/org/{org}/prospects/import', {
      raw: 'First Name,Phone\nA,+14155550100\n',
      headers: { 'content-type': 'text/csv' },
    });
    expectForbidden(imported, 'prospects:write');
    expect(await prospects()).toBe(before);
  });

  it('node(id:) and nodes(ids:) read an API key only with keys:admin (null otherwise, as one not seen)', async () => {
    const listed = await keyWith(['read'], 'listed');
    const query = `query ($id: ID!) { node(id: $id) { id ... on ApiKey { name scopes } } nodes(ids: [$id]) { id } }`;
    const asAdmin = await server.graphql(adminKey, query, { id: listed.id });
    expect(asAdmin.body.data).toEqual({
      node: { id: listed.id, name: 'listed', scopes: ['read'] },
      nodes: [{ id: listed.id }],
    });
    const { api_key: admin } = await keyWith(['read', 'keys:admin']);
    expect((await server.graphql(admin, query, { id: listed.id })).body.data.node.id).toBe(listed.id);
    for (const scopes of [['read'], ['read', 'agents:write', 'webhooks:write']]) {
      const { api_key: key } = await keyWith(scopes);
      const answer = await server.graphql(key, query, { id: listed.id });
      expect(answer.body.data).toEqual({ node: null, nodes: [null] });
      // Its own key too: `currentApiKey` is what says what it may do.
      const own = await server.graphql(key, query, {
        id: (await server.graphql(key, '{ currentApiKey { id } }')).body.data.currentApiKey.id,
      });
      expect(own.body.data.node).toBeNull();
    }
    // Other types still read with `read`.
    const agent = (await rest('POST', '/org/{org}/agents', { body: { name: 'Node agent' } })).body;
    const { api_key: reader } = await keyWith(['read']);
    expect((await server.graphql(reader, query, { id: agent.id })).body.data.node).toEqual({ id: agent.id });
  });

  it('a subscription needs read', async () => {
    const { api_key: key } = await keyWith(['batches:write']);
    const client = createClient({
      url: `${server.url.replace('http', 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { 'x-api-key': key },
      retryAttempts: 0,
      lazy: true,
    });
    try {
      const errors = await new Promise<unknown[]>((resolve) => {
        client.subscribe(
          { query: `subscription { batchProgress(batchId: "bat_${'0'.repeat(32)}") { batchId } }` },
          {
            next: (message) => resolve([...(message.errors ?? [])]),
            error: (error) => resolve(Array.isArray(error) ? error : [error]),
            complete: () => resolve([]),
          },
        );
      });
      expect(errors[0]).toMatchObject({ extensions: { code: 'FORBIDDEN', scope: 'read' } });
    } finally {
      await client.dispose();
    }
  });
});

describe('managing keys', () => {
  it('needs keys:admin, and a key grants and rotates no more than it holds', async () => {
    const reader = await keyWith(['read']);
    expectForbidden(
      await restClient(server, organizationId, reader.api_key)('GET', '/org/{org}/api-keys'),
      'keys:admin',
    );
    const admin = await keyWith(['keys:admin']);
    const asAdmin = restClient(server, organizationId, admin.api_key);
    expect((await asAdmin('GET', '/org/{org}/api-keys')).status).toBe(200);
    const keys = () => server.db.prisma.apiKey.count({ where: { organizationId } });
    const before = await keys();
    expectForbidden(await asAdmin('POST', '/org/{org}/api-keys', { body: { scopes: ['read'] } }), 'read');
    expectForbidden(await asAdmin('POST', '/org/{org}/api-keys', { body: { scopes: ['*'] } }), '*');
    // Rotating a stronger key would hand its secret over: refused too.
    expectForbidden(await asAdmin('POST', `/org/{org}/api-keys/${reader.id}/rotate`, { body: {} }), 'read');
    expect(await keys()).toBe(before);
    // Without scopes, a key gets the asking key's.
    const same = await asAdmin('POST', '/org/{org}/api-keys', { body: { name: 'same' } });
    expect(same.body.scopes).toEqual(['keys:admin']);
    // Revoking needs no more than keys:admin.
    expect((await asAdmin('DELETE', `/org/{org}/api-keys/${reader.id}`)).body).toEqual({});
    expect((await restClient(server, organizationId, reader.api_key)('GET', '/org/{org}/agents')).status).toBe(401);
    expect((await asAdmin('DELETE', `/org/{org}/api-keys/${reader.id}`)).status).toBe(404);
  });

  it('refuses bad scopes, repeated scopes and a past expiry by name (400)', async () => {
    for (const [body, path] of [
      [{ scopes: ['agents:delete'] }, 'scopes.0'],
      [{ scopes: [] }, 'scopes'],
      [{ scopes: ['read', 'read'] }, 'scopes'],
      [{ scopes: ['read'], expires_at: '2001-01-01T00:00:00Z' }, 'expires_at'],
      [{ scopes: ['read'], expires_at: 'tomorrow' }, 'expires_at'],
    ] as const) {
      const response = await rest('POST', '/org/{org}/api-keys', { body });
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.error.map((problem: { path: string }) => problem.path)).toContain(path);
    }
  });

  it('replays a create with its Idempotency-Key: the same key, shown again from its sealed copy', async () => {
    const headers = { 'idempotency-key': `keys-${Date.now()}` };
    const body = { name: 'ci', scopes: ['read'] };
    const first = await rest('POST', '/org/{org}/api-keys', { body, headers });
    const again = await rest('POST', '/org/{org}/api-keys', { body, headers });
    expect(first.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    const stored = await server.db.prisma.idempotencyRecord.findMany({ where: { organizationId } });
    expect(JSON.stringify(stored)).not.toContain(first.body.api_key);
  });

  it('rotates with a grace period: the successor has the same scopes and expiry, the old key works until the grace ends', async () => {
    const old = await keyWith(['read', 'batches:write'], 'rotating');
    const rotated = await rest('POST', `/org/{org}/api-keys/${old.id}/rotate`, { body: { grace_seconds: 3600 } });
    expect(rotated.status, JSON.stringify(rotated.body)).toBe(200);
    expect(rotated.body).toMatchObject({ scopes: ['read', 'batches:write'], expires_at: null });
    expect(rotated.body.api_key).not.toBe(old.api_key);
    const asOld = restClient(server, organizationId, old.api_key);
    const asNew = restClient(server, organizationId, rotated.body.api_key);
    expect((await asOld('GET', '/org/{org}/agents')).status).toBe(200);
    expect((await asNew('GET', '/org/{org}/agents')).status).toBe(200);
    const listed = (await rest('GET', '/org/{org}/api-keys')).body.data;
    const oldRow = listed.find((key: { id: string }) => key.id === old.id);
    expect(oldRow.revoked_at).toBeNull();
    expect(Date.parse(oldRow.expires_at) - Date.now()).toBeGreaterThan(3_500_000);
    // The grace ends: as an operator would shorten it in the database, the old key is refused once the
    // caches hear of it (the trigger's notification travels on a connection of its own).
    await server.db.prisma.apiKey.update({ where: { id: old.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    await eventually(
      async () => ((await asOld('GET', '/org/{org}/agents')).status === 401 ? true : undefined),
      20_000,
      'the expired key to be refused',
    );
    expect((await asNew('GET', '/org/{org}/agents')).status).toBe(200);
    // An expired key is not rotated again.
    expect((await rest('POST', `/org/{org}/api-keys/${old.id}/rotate`, { body: {} })).status).toBe(404);
    // Without a grace period the old key is revoked at once.
    const rotatedAgain = await rest('POST', `/org/{org}/api-keys/${rotated.body.id}/rotate`, { body: {} });
    expect((await asNew('GET', '/org/{org}/agents')).status).toBe(401);
    expect(
      (await restClient(server, organizationId, rotatedAgain.body.api_key)('GET', '/org/{org}/agents')).status,
    ).toBe(200);
  });

  it('an expiring key stops at its instant, cached or not; a rotated one at the end of its grace (injectable clock)', async () => {
    const clock = new ManualClock(new Date());
    const cache = new ApiKeyCache(server.db, { ttlMs: 300_000, clock });
    try {
      await cache.listening();
      const expiring = await issueApiKey(server.db.prisma, organizationId, {
        scopes: ['read'],
        expiresAt: new Date(clock.now().getTime() + 60_000),
        now: clock.now(),
      });
      expect(await authenticate(server.db, expiring.apiKey, cache)).toMatchObject({ scopes: ['read'] });
      expect(cache.size).toBe(1);
      clock.advance(59_999);
      expect(await authenticate(server.db, expiring.apiKey, cache)).not.toBeNull();
      clock.advance(1);
      expect(await authenticate(server.db, expiring.apiKey, cache)).toBeNull();

      const graced = await issueApiKey(server.db.prisma, organizationId, { scopes: ['read'], now: clock.now() });
      expect(await authenticate(server.db, graced.apiKey, cache)).not.toBeNull();
      const successor = await rotateApiKey(
        server.db.prisma,
        { key: graced.apiKey },
        { graceSeconds: 30, now: clock.now() },
      );
      clock.advance(29_000);
      expect(await authenticate(server.db, graced.apiKey, cache)).not.toBeNull();
      clock.advance(1_000);
      expect(await authenticate(server.db, graced.apiKey, cache)).toBeNull();
      expect(await authenticate(server.db, successor!.apiKey, cache)).toMatchObject({ scopes: ['read'] });
    } finally {
      await cache.close();
    }
  });
});
