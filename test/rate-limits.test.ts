// Rate limits: per organization (all its keys together) over every REST route
// and /graphql, answered with 429 in SPEC.md's error body and Retry-After; E1
// has its own tighter quota; requests without a valid key are counted per
// client address; /health and the other probes are never limited.
// graphql-ws and SSE: test/transport-limits.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueApiKey } from '../src/domain/organizations.ts';
import { expectErrorBody, type RestResponse, restClient } from './support/rest.ts';
import { startTestServer, type TestServer } from './support/server.ts';

const PER_ORGANIZATION = 6;
const AGENT_UPDATE = 2;
const WINDOW_MS = 60_000;

/** 429 in SPEC.md's error body, with Retry-After (whole seconds within the window) and the RateLimit headers. */
function expectRateLimited(response: RestResponse, limit: number, windowMs: number) {
  const body = expectErrorBody(response, 429);
  expect(body.message).toMatch(/rate limit/i);
  const retryAfter = response.headers.get('retry-after');
  expect(retryAfter).toMatch(/^\d+$/);
  expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
  expect(Number(retryAfter)).toBeLessThanOrEqual(Math.ceil(windowMs / 1000));
  expect(response.headers.get('x-ratelimit-limit')).toBe(String(limit));
  expect(response.headers.get('x-ratelimit-remaining')).toBe('0');
  expect(response.headers.get('x-ratelimit-reset')).toMatch(/^\d+$/);
  return Number(retryAfter);
}

/** A success that reports the quota it counted against. */
function expectCounted(response: RestResponse, status: number, limit: number, remaining: number) {
  expect(response.status, JSON.stringify(response.body)).toBe(status);
  expect(response.headers.get('x-ratelimit-limit')).toBe(String(limit));
  expect(response.headers.get('x-ratelimit-remaining')).toBe(String(remaining));
  expect(response.headers.get('x-ratelimit-reset')).toMatch(/^\d+$/);
  expect(response.headers.get('retry-after')).toBeNull();
}

async function graphqlCall(server: TestServer, apiKey: string | null, query = '{ __typename }'): Promise<RestResponse> {
  const response = await fetch(`${server.url}/graphql`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/graphql-response+json',
      ...(apiKey ? { 'x-api-key': apiKey } : {}),
    },
    body: JSON.stringify({ query }),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
}

async function plainGet(server: TestServer, path: string, apiKey?: string): Promise<RestResponse> {
  const response = await fetch(`${server.url}${path}`, { headers: apiKey ? { 'x-api-key': apiKey } : {} });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
}

describe('rate limits per organization', () => {
  let server: TestServer;

  /** A new organization (a quota of its own), its key and REST client; made in the database, so its quota is whole. */
  async function freshOrganization(name = 'Acme') {
    const { organizationId, apiKey } = await server.createOrganization(name);
    return { organizationId, apiKey, rest: restClient(server, organizationId, apiKey) };
  }
  /** A new organization with an agent, made through E4: one request of its quota spent. */
  async function organizationWithAgent(name = 'Acme') {
    const organization = await freshOrganization(name);
    const created = await organization.rest('POST', '/org/{org}/agents', {
      body: { name: 'Receptionist', type: 'voice' },
    });
    expectCounted(created, 201, PER_ORGANIZATION, PER_ORGANIZATION - 1);
    return { ...organization, agentId: created.body.id as string };
  }
  /** Another key of the organization: its own secret, the organization's quota. */
  const anotherKey = async (organizationId: string) => (await issueApiKey(server.db.prisma, organizationId)).apiKey;

  beforeAll(async () => {
    server = await startTestServer({
      rateLimits: { perOrganization: PER_ORGANIZATION, agentUpdate: AGENT_UPDATE, windowMs: WINDOW_MS },
    });
  });
  afterAll(() => server.close());

  it("answers REST requests beyond the organization's quota with 429, Retry-After and the RateLimit headers, on every route and both prefixes", async () => {
    const { organizationId, apiKey, rest, agentId } = await organizationWithAgent();
    const requests: [string, string, unknown?][] = [
      ['GET', '/org/{org}/sip-trunks'],
      ['GET', '/api/org/{org}/phone-numbers'],
      ['GET', `/org/{org}/agents/${agentId}`],
      ['GET', '/api/org/{org}/analytics/insights'],
      ['POST', '/org/{org}/tags', { name: 'vip' }],
    ];
    // The agent's creation was the first.
    expect(requests).toHaveLength(PER_ORGANIZATION - 1);
    for (const [index, [method, path, body]] of requests.entries()) {
      const response = await rest(method, path, { body });
      expectCounted(response, method === 'POST' ? 201 : 200, PER_ORGANIZATION, PER_ORGANIZATION - index - 2);
    }
    // The quota is spent: every route, under either prefix, whatever the method or body.
    expectRateLimited(await rest('GET', '/org/{org}/sip-trunks'), PER_ORGANIZATION, WINDOW_MS);
    expectRateLimited(await rest('GET', `/api/org/{org}/agents/${agentId}`), PER_ORGANIZATION, WINDOW_MS);
    expectRateLimited(await rest('POST', '/org/{org}/tags', { body: { name: 'never' } }), PER_ORGANIZATION, WINDOW_MS);
    expectRateLimited(
      await rest('POST', '/api/org/{org}/phone-numbers', { body: { number: 'not e164' } }),
      PER_ORGANIZATION,
      WINDOW_MS,
    );
    // Refused requests do nothing: the tag was not created.
    const tags = await server.db.prisma.tag.findMany({ where: { organizationId } });
    expect(tags.map((tag) => tag.name)).toEqual(['vip']);
    // /graphql counts against the same quota.
    expectRateLimited(await graphqlCall(server, apiKey), PER_ORGANIZATION, WINDOW_MS);
  });

  it("answers POST /graphql beyond the organization's quota with 429 in the error body, and it is then limited on REST too", async () => {
    const { apiKey, rest } = await freshOrganization();
    for (let index = 0; index < PER_ORGANIZATION; index += 1) {
      const response = await graphqlCall(server, apiKey, `{ sipTrunks(first: 1) { totalCount } }`);
      expectCounted(response, 200, PER_ORGANIZATION, PER_ORGANIZATION - index - 1);
      expect(response.body.errors).toBeUndefined();
    }
    expectRateLimited(await graphqlCall(server, apiKey), PER_ORGANIZATION, WINDOW_MS);
    expectRateLimited(
      await graphqlCall(server, apiKey, 'mutation { createTag(input: { name: "never" }) { id } }'),
      PER_ORGANIZATION,
      WINDOW_MS,
    );
    expectRateLimited(await rest('GET', '/org/{org}/sip-trunks'), PER_ORGANIZATION, WINDOW_MS);
  });

  it.each(['/org/{org}', '/api/org/{org}'])(
    'gives E1 (under %s) its own tighter quota per organization, which runs out before other routes do',
    async (prefix) => {
      const { organizationId, apiKey, rest, agentId } = await organizationWithAgent();
      const e1 = `${prefix}/agents/${agentId}`;
      const first = await rest('PATCH', e1, { body: { prompt_template: `${prefix} 1` } });
      expectCounted(first, 200, AGENT_UPDATE, 1);
      const second = await rest('PATCH', e1, { body: { prompt_template: `${prefix} 2` } });
      expectCounted(second, 200, AGENT_UPDATE, 0);
      expect(second.body.prompt_template).toBe(`${prefix} 2`);

      expectRateLimited(await rest('PATCH', e1, { body: { prompt_template: `${prefix} 3` } }), AGENT_UPDATE, WINDOW_MS);
      expectRateLimited(await rest('PATCH', e1, { body: { name: 'Never' } }), AGENT_UPDATE, WINDOW_MS);
      // Another key of the organization draws on the same E1 quota.
      const sameOrganization = restClient(server, organizationId, await anotherKey(organizationId));
      expectRateLimited(await sameOrganization('PATCH', e1, { body: { name: 'Never' } }), AGENT_UPDATE, WINDOW_MS);
      // The refused updates wrote nothing.
      const read = await rest('GET', e1);
      expect(read.status).toBe(200);
      expect(read.body).toMatchObject({ prompt_template: `${prefix} 2`, name: 'Receptionist' });
      // The organization's other routes, and GraphQL, still answer: only E1 ran out.
      expect(read.headers.get('x-ratelimit-limit')).toBe(String(PER_ORGANIZATION));
      expect(Number(read.headers.get('x-ratelimit-remaining'))).toBeGreaterThan(0);
      expect((await rest('GET', `${prefix}/sip-trunks`)).status).toBe(200);
      expectErrorBody(await rest('DELETE', `${prefix}/agents/agt_missing`), 404);
      expect((await graphqlCall(server, apiKey)).status).toBe(200);
      expectRateLimited(await rest('PATCH', e1, { body: { prompt_template: `${prefix} 4` } }), AGENT_UPDATE, WINDOW_MS);

      // Another organization's E1 quota is untouched.
      const other = await organizationWithAgent('Globex');
      expectCounted(
        await other.rest('PATCH', `${prefix}/agents/${other.agentId}`, { body: { prompt_template: 'Other' } }),
        200,
        AGENT_UPDATE,
        1,
      );
    },
  );

  // E1 is one endpoint under two prefixes (DECISIONS.md): its quota is one per
  // organization, not one per prefix, or a client doubles it by alternating prefixes.
  it('counts E1 under both prefixes against one quota per organization', async () => {
    const { rest, agentId } = await organizationWithAgent();
    expectCounted(
      await rest('PATCH', `/org/{org}/agents/${agentId}`, { body: { name: 'Receptionist' } }),
      200,
      AGENT_UPDATE,
      1,
    );
    expectCounted(
      await rest('PATCH', `/api/org/{org}/agents/${agentId}`, { body: { name: 'Receptionist' } }),
      200,
      AGENT_UPDATE,
      0,
    );
    expectRateLimited(
      await rest('PATCH', `/org/{org}/agents/${agentId}`, { body: { name: 'Receptionist' } }),
      AGENT_UPDATE,
      WINDOW_MS,
    );
    expectRateLimited(
      await rest('PATCH', `/api/org/{org}/agents/${agentId}`, { body: { name: 'Receptionist' } }),
      AGENT_UPDATE,
      WINDOW_MS,
    );
  });

  it("counts every key of an organization against its one quota, and leaves other organizations' untouched", async () => {
    const spent = await freshOrganization();
    // Half the quota through one key, half through another: more keys buy no more requests.
    const secondKey = restClient(server, spent.organizationId, await anotherKey(spent.organizationId));
    for (let index = 0; index < PER_ORGANIZATION; index += 1) {
      const response = await (index % 2 === 0 ? spent.rest : secondKey)('GET', '/org/{org}/sip-trunks');
      expectCounted(response, 200, PER_ORGANIZATION, PER_ORGANIZATION - index - 1);
    }
    expectRateLimited(await spent.rest('GET', '/org/{org}/sip-trunks'), PER_ORGANIZATION, WINDOW_MS);
    expectRateLimited(await secondKey('GET', '/org/{org}/sip-trunks'), PER_ORGANIZATION, WINDOW_MS);
    expectRateLimited(await graphqlCall(server, spent.apiKey), PER_ORGANIZATION, WINDOW_MS);
    // A key issued now is as limited as the others.
    const thirdKey = await anotherKey(spent.organizationId);
    expectRateLimited(await graphqlCall(server, thirdKey), PER_ORGANIZATION, WINDOW_MS);

    const other = await freshOrganization('Globex');
    expectCounted(await other.rest('GET', '/api/org/{org}/phone-numbers'), 200, PER_ORGANIZATION, PER_ORGANIZATION - 1);
    expectCounted(await graphqlCall(server, other.apiKey), 200, PER_ORGANIZATION, PER_ORGANIZATION - 2);
    // The spent organization stays limited meanwhile.
    expectRateLimited(await spent.rest('GET', '/api/org/{org}/phone-numbers'), PER_ORGANIZATION, WINDOW_MS);
  });

  it('never limits /health (nor /ready, /openapi.json), with a spent key or none', async () => {
    const { apiKey: spentKey, rest: spent } = await freshOrganization();
    for (let index = 0; index < PER_ORGANIZATION; index += 1)
      expect((await spent('GET', '/org/{org}/phone-numbers')).status).toBe(200);
    expectRateLimited(await spent('GET', '/org/{org}/phone-numbers'), PER_ORGANIZATION, WINDOW_MS);

    for (let index = 0; index < PER_ORGANIZATION * 4; index += 1) {
      for (const key of [spentKey, undefined]) {
        const health = await plainGet(server, '/health', key);
        expect(health.status).toBe(200);
        expect(health.body).toEqual({ status: 'ok' });
        expect(health.headers.get('retry-after')).toBeNull();
      }
    }
    for (let index = 0; index < PER_ORGANIZATION * 2; index += 1) {
      expect((await plainGet(server, '/ready', spentKey)).status).toBe(200);
      expect((await plainGet(server, '/openapi.json', spentKey)).status).toBe(200);
    }
    expectRateLimited(await spent('GET', '/org/{org}/phone-numbers'), PER_ORGANIZATION, WINDOW_MS);
  });
});

describe('rate limits: the window', () => {
  const SHORT_WINDOW_MS = 2_000;
  const LIMIT = 3;
  let server: TestServer;
  let org: { organizationId: string; apiKey: string };

  beforeAll(async () => {
    server = await startTestServer({
      rateLimits: { perOrganization: LIMIT, agentUpdate: 1, windowMs: SHORT_WINDOW_MS },
    });
    org = await server.createOrganization('Acme');
  });
  afterAll(() => server.close());

  it('lets a limited key through again once Retry-After has passed', async () => {
    const rest = restClient(server, org.organizationId, org.apiKey);
    for (let index = 0; index < LIMIT; index += 1)
      expect((await rest('GET', '/org/{org}/sip-trunks')).status).toBe(200);
    const retryAfter = expectRateLimited(await rest('GET', '/org/{org}/sip-trunks'), LIMIT, SHORT_WINDOW_MS);
    await new Promise((resolve) => setTimeout(resolve, retryAfter * 1000 + 250));
    expectCounted(await rest('GET', '/org/{org}/sip-trunks'), 200, LIMIT, LIMIT - 1);
  });

  it('counts requests without a valid key per client address: beyond the quota they get 429 instead of 401', async () => {
    const anonymous = restClient(server, org.organizationId, '');
    // No key, a made-up key, the organization's key misspelt: one counter, the address's.
    const madeUp = `gwk_${'x'.repeat(43)}`;
    const misspelt = `${org.apiKey.slice(0, -1)}${org.apiKey.endsWith('A') ? 'B' : 'A'}`;
    for (const apiKey of [null, madeUp, misspelt]) {
      expectErrorBody(await anonymous('GET', '/org/{org}/sip-trunks', { apiKey }), 401);
    }
    expect(LIMIT).toBe(3);
    expectRateLimited(await anonymous('GET', '/org/{org}/sip-trunks', { apiKey: null }), LIMIT, SHORT_WINDOW_MS);
    expectRateLimited(await graphqlCall(server, misspelt), LIMIT, SHORT_WINDOW_MS);
    expectRateLimited(await graphqlCall(server, null), LIMIT, SHORT_WINDOW_MS);
    // The organization's counter is separate from the address's: made-up keys spent none of its quota.
    const real = await restClient(server, org.organizationId, org.apiKey)('GET', '/org/{org}/phone-numbers');
    expect(real.status).toBe(200);
    expect(Number(real.headers.get('x-ratelimit-remaining'))).toBeGreaterThan(0);
    expect((await plainGet(server, '/health')).status).toBe(200);
  });
});
