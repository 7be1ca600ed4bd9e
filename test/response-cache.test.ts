import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cacheKeyOf } from '../src/events/response-cache-store.ts';
import { ResponseCacheHits } from '../src/graphql/response-cache-hits.ts';
import { responseCacheSession } from '../src/graphql/use-response-cache.ts';
import { eventually } from './support/flows.ts';
import { graphqlCalls } from './support/graphql.ts';
import { restClient } from './support/rest.ts';
import { startTestServer, type TestServer } from './support/server.ts';

interface Answer {
  status: number;
  /** What X-Response-Cache says: hit, miss, or null (the cache was not asked). */
  cache: string | null;
  text: string;
  body: { data?: any; errors?: unknown[]; extensions?: Record<string, unknown> };
}

/** POSTs a query to /graphql with the key and any extra headers. */
async function post(
  server: TestServer,
  apiKey: string,
  query: string,
  variables: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): Promise<Answer> {
  const response = await fetch(`${server.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': apiKey, ...headers },
    body: JSON.stringify({ query, variables }),
  });
  const text = await response.text();
  return { status: response.status, cache: response.headers.get('x-response-cache'), text, body: JSON.parse(text) };
}

/** A counter's value in a /metrics text (0 when it has not counted yet). */
const counterOf = (metrics: string, name: string) =>
  Number(new RegExp(`^${name} (\\d+)$`, 'm').exec(metrics)?.[1] ?? 0);

const hitOf = (answer: Answer) => (answer.cache === null ? undefined : answer.cache === 'hit');

const BATCH = `query($id: ID!) { batch(id: $id) { id status } }`;
const BATCHES = `{ batches(first: 10) { totalCount } }`;

async function newBatch(ok: ReturnType<typeof graphqlCalls>['ok'], key?: string) {
  const workflow = await ok(`mutation { createWorkflow(input: { name: "Cached" }) { id } }`, undefined, key);
  const prospects = await ok(
    `mutation { createProspects(input: { prospects: [{ firstName: "A" }] }) { id } }`,
    undefined,
    key,
  );
  const batch = await ok(
    `mutation($w: ID!, $ids: [String!]) { createBatch(workflowId: $w, input: { name: "B", prospectIds: $ids }) { id } }`,
    { w: workflow.createWorkflow.id, ids: prospects.createProspects.map((prospect: { id: string }) => prospect.id) },
    key,
  );
  return batch.createBatch.id as string;
}

describe('responseCacheSession', () => {
  const viewer = { organizationId: 'org_a', scopes: ['*'] };
  it('keys by organization and by the key scopes (in any order)', () => {
    const whole = responseCacheSession({ viewer });
    expect(responseCacheSession({ viewer: { ...viewer } })).toBe(whole);
    expect(responseCacheSession({ viewer: { ...viewer, organizationId: 'org_b' } })).not.toBe(whole);
    const scoped = responseCacheSession({ viewer: { ...viewer, scopes: ['read', 'calls:report'] } });
    expect(scoped).not.toBe(whole);
    expect(responseCacheSession({ viewer: { ...viewer, scopes: ['calls:report', 'read'] } })).toBe(scoped);
    expect(responseCacheSession({ viewer: { ...viewer, scopes: ['read'] } })).not.toBe(scoped);
    expect(responseCacheSession({ viewer: null })).toBeNull();
  });
});

function cacheBehaviour(options: () => { first: TestServer; second: TestServer }) {
  let org: { organizationId: string; apiKey: string };
  let other: { organizationId: string; apiKey: string };
  const first = () => options().first;
  const second = () => options().second;
  const { ok } = graphqlCalls(first, () => org.apiKey);

  beforeAll(async () => {
    org = await first().createOrganization();
    other = await first().createOrganization('Other');
  });

  it('answers the same query again from the cache, and says so', async () => {
    const batchId = await newBatch(ok);
    const miss = await post(first(), org.apiKey, BATCH, { id: batchId });
    expect(miss.cache).toBe('miss');
    const hit = await post(second(), org.apiKey, BATCH, { id: batchId });
    expect(hit.cache).toBe('hit');
    // The very text the miss was answered with.
    expect(hit.text).toBe(miss.text);
    expect(hit.body.extensions).toBeUndefined();
  });

  it('a hit reads no document: nothing is parsed, validated or executed', async () => {
    const batchId = await newBatch(ok);
    await post(first(), org.apiKey, BATCH, { id: batchId });
    const before = await second().metrics();
    expect(hitOf(await post(second(), org.apiKey, BATCH, { id: batchId }))).toBe(true);
    const after = await second().metrics();
    expect(counterOf(after, 'gateway_graphql_documents_read_total')).toBe(
      counterOf(before, 'gateway_graphql_documents_read_total'),
    );
    // A miss reads one: the counter counts.
    await post(second(), org.apiKey, BATCH, { id: batchId }, { 'cache-control': 'no-cache' });
    expect(counterOf(await second().metrics(), 'gateway_graphql_documents_read_total')).toBe(
      counterOf(after, 'gateway_graphql_documents_read_total') + 1,
    );
  });

  it("two organizations' same query text are two answers", async () => {
    const own = await post(first(), org.apiKey, BATCHES, {}, { 'cache-control': 'no-cache' });
    const others = await post(first(), other.apiKey, BATCHES, {}, { 'cache-control': 'no-cache' });
    expect(own.body.data.batches.totalCount).not.toBe(others.body.data.batches.totalCount);
    const ownCached = await post(first(), org.apiKey, `{ batches(first: 10) { totalCount } } `);
    expect(ownCached.cache).toBe('miss');
    const othersAfter = await post(second(), other.apiKey, `{ batches(first: 10) { totalCount } } `);
    expect(othersAfter.cache).toBe('miss');
    expect(othersAfter.text).toBe(others.text);
    expect(hitOf(await post(second(), org.apiKey, `{ batches(first: 10) { totalCount } } `))).toBe(true);
  });

  it('Cache-Control: no-cache executes afresh', async () => {
    const batchId = await newBatch(ok);
    await post(first(), org.apiKey, BATCH, { id: batchId });
    const bypassed = await post(second(), org.apiKey, BATCH, { id: batchId }, { 'cache-control': 'no-cache' });
    expect(hitOf(bypassed)).not.toBe(true);
    expect(bypassed.body.data.batch.id).toBe(batchId);
  });

  it("a mutation drops its organization's answers, and only those", async () => {
    await newBatch(ok);
    const before = await post(first(), org.apiKey, BATCHES);
    const othersBefore = await post(first(), other.apiKey, BATCHES);
    expect(hitOf(await post(second(), org.apiKey, BATCHES))).toBe(true);
    // Another organization's answer to the same text is its own.
    expect(othersBefore.body.data.batches.totalCount).not.toBe(before.body.data.batches.totalCount);
    await newBatch(ok);
    const after = await post(second(), org.apiKey, BATCHES);
    expect(hitOf(after)).toBe(false);
    expect(after.body.data.batches.totalCount).toBe(before.body.data.batches.totalCount + 1);
    // The other organization's answer was kept.
    expect(hitOf(await post(second(), other.apiKey, BATCHES))).toBe(true);
  });

  it('a mutation drops the answers that read what it wrote, and keeps the others', async () => {
    const batchId = await newBatch(ok);
    const agent = await ok(`mutation { createAgent(input: { name: "Kept" }) { id } }`);
    const agentId = agent.createAgent.id as string;
    const AGENT = `query($id: ID!) { agent(id: $id) { id name } }`;
    await post(first(), org.apiKey, BATCHES);
    await post(first(), org.apiKey, BATCH, { id: batchId });
    await post(first(), org.apiKey, AGENT, { id: agentId });
    // An agent update: the answer that read the agent is dropped, the batches' are kept.
    await ok(`mutation($id: ID!) { updateAgent(id: $id, input: { name: "Renamed" }) { id } }`, { id: agentId });
    const renamed = await post(second(), org.apiKey, AGENT, { id: agentId });
    expect(renamed.cache).toBe('miss');
    expect(renamed.body.data.agent.name).toBe('Renamed');
    expect(hitOf(await post(second(), org.apiKey, BATCHES))).toBe(true);
    expect(hitOf(await post(second(), org.apiKey, BATCH, { id: batchId }))).toBe(true);
    // A workflow created: no list of workflows was read, the answers are kept.
    await ok(`mutation { createWorkflow(input: { name: "Unrelated" }) { id } }`);
    expect(hitOf(await post(second(), org.apiKey, BATCHES))).toBe(true);
    expect(hitOf(await post(second(), org.apiKey, AGENT, { id: agentId }))).toBe(true);
  });

  it('the change events that drive batchProgress drop the answers holding the batch', async () => {
    const batchId = await newBatch(ok);
    const otherBatch = await newBatch(ok, other.apiKey);
    await post(first(), org.apiKey, BATCH, { id: batchId });
    await post(first(), other.apiKey, BATCH, { id: otherBatch });
    // As the run engine does: its own write (no mutation), then the announcement.
    await first().db.prisma.batch.updateMany({ where: { id: batchId }, data: { status: 'IN_PROGRESS' } });
    first().services.events.batchChanged(batchId);
    // The announcement drops the answers without holding up its sender (the engine): they are gone once it lands.
    await eventually(
      async () =>
        (await post(second(), org.apiKey, BATCH, { id: batchId })).body.data.batch.status === 'IN_PROGRESS'
          ? true
          : undefined,
      5_000,
      'the answer holding the batch to be dropped',
    );
    expect(hitOf(await post(second(), other.apiKey, BATCH, { id: otherBatch }))).toBe(true);
  });

  it('keys of one organization with other scopes never share an answer', async () => {
    const rest = restClient(first(), org.organizationId, org.apiKey);
    const issued = await rest('POST', '/org/{org}/api-keys', { body: { name: 'reader', scopes: ['read'] } });
    expect(issued.status).toBe(201);
    const reader = issued.body.api_key as string;
    const QUERY = `{ batches(first: 3) { totalCount } }`;
    expect((await post(first(), org.apiKey, QUERY)).cache).toBe('miss');
    expect(hitOf(await post(second(), org.apiKey, QUERY))).toBe(true);
    expect((await post(second(), reader, QUERY)).cache).toBe('miss');
    expect(hitOf(await post(second(), reader, QUERY))).toBe(true);
  });

  it('identical requests arriving together execute once, the others are answered with its answer', async () => {
    const batchId = await newBatch(ok);
    const count = (metrics: string, result: string) =>
      Number(new RegExp(`gateway_graphql_response_cache_total\\{result="${result}"\\} (\\d+)`).exec(metrics)?.[1] ?? 0);
    const before = await second().metrics();
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => post(second(), org.apiKey, BATCH, { id: batchId })),
    );
    const after = await second().metrics();
    expect(count(after, 'miss') - count(before, 'miss')).toBe(1);
    expect(count(after, 'hit') - count(before, 'hit')).toBe(7);
    expect(new Set(answers.map((answer) => answer.text)).size).toBe(1);
  });

  it('sends no ETag or Last-Modified, on a miss or a hit', async () => {
    const batchId = await newBatch(ok);
    for (const server of [first(), second()]) {
      const response = await fetch(`${server.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': org.apiKey },
        body: JSON.stringify({ query: BATCH, variables: { id: batchId } }),
      });
      expect(response.headers.get('x-response-cache')).not.toBeNull();
      expect(response.headers.get('etag')).toBeNull();
      expect(response.headers.get('last-modified')).toBeNull();
    }
  });

  it('a request answered from the cache before is answered again as a hit, counted, rate limited, and never past a change', async () => {
    const batchId = await newBatch(ok);
    const miss = await post(first(), org.apiKey, BATCH, { id: batchId });
    const count = async () =>
      Number(/gateway_graphql_response_cache_total\{result="hit"\} (\d+)/.exec(await second().metrics())?.[1] ?? 0);
    const hitsBefore = await count();
    // The first hit goes through yoga; those after it are recognised by their bytes before yoga (response-cache-hits.ts).
    const remaining: number[] = [];
    for (let round = 0; round < 4; round++) {
      const response = await fetch(`${second().url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': org.apiKey },
        body: JSON.stringify({ query: BATCH, variables: { id: batchId } }),
      });
      expect(response.headers.get('x-response-cache')).toBe('hit');
      expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(await response.text()).toBe(miss.text);
      remaining.push(Number(response.headers.get('x-ratelimit-remaining')));
    }
    // Each hit counted against the organization's quota, and in the metrics.
    for (let round = 1; round < remaining.length; round++) expect(remaining[round]).toBeLessThan(remaining[round - 1]!);
    expect((await count()) - hitsBefore).toBe(4);
    // The same bytes from another organization: its own answer (the batch is not its to read).
    expect((await post(second(), other.apiKey, BATCH, { id: batchId })).text).not.toBe(miss.text);
    // The same bytes told to bypass the cache: executed.
    expect(hitOf(await post(second(), org.apiKey, BATCH, { id: batchId }, { 'cache-control': 'no-cache' }))).not.toBe(
      true,
    );
    // Changed through the first instance: the second does not answer its old answer again.
    await ok(`mutation($id: ID!) { updateBatchStatus(id: $id, status: PAUSED) { status } }`, { id: batchId });
    const changed = await post(second(), org.apiKey, BATCH, { id: batchId });
    expect(changed.cache).toBe('miss');
    expect(changed.body.data.batch.status).toBe('PAUSED');
  });

  it('counts hits and misses in the metrics', async () => {
    // The misses above were on the first instance, the hits on the second (the same one without Redis).
    expect(await first().metrics()).toMatch(/gateway_graphql_response_cache_total\{result="miss"\} [1-9]/);
    expect(await second().metrics()).toMatch(/gateway_graphql_response_cache_total\{result="hit"\} [1-9]/);
  });
}

describe('response cache, in memory (no Redis)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());
  cacheBehaviour(() => ({ first: server, second: server }));

  it('answers before yoga only the very request a hit answered, while its answer is kept', async () => {
    const { responseCache: store, metrics } = server.services;
    const hits = new ResponseCacheHits(store, metrics);
    const viewer = { organizationId: 'org_hits', scopes: ['*'] };
    const request = {
      method: 'POST',
      url: '/graphql',
      headers: { accept: 'application/json', 'content-type': 'application/json' },
      body: Buffer.from('{"query":"{ batches(first: 1) { totalCount } }"}'),
    };
    const route = hits.routeOf(request, { viewer });
    expect(route).toBeDefined();
    // No caller, or one bypassing the cache: not answered here.
    expect(hits.routeOf(request, { viewer: null })).toBeUndefined();
    expect(hits.routeOf({ ...request, headers: { ...request.headers, 'cache-control': 'no-store' } }, { viewer })).toBe(
      undefined,
    );
    // Another organization, other scopes, other bytes, URL or media types: another request.
    for (const session of [
      { ...viewer, organizationId: 'org_other' },
      { ...viewer, scopes: ['read'] },
    ])
      expect(hits.routeOf(request, { viewer: session })).not.toBe(route);
    for (const changed of [
      { ...request, body: Buffer.from('{"query":"{ batches(first: 2) { totalCount } }"}') },
      { ...request, url: '/graphql?operationName=x' },
      { ...request, headers: { ...request.headers, accept: 'application/graphql-response+json' } },
      { ...request, headers: { ...request.headers, 'content-type': 'application/graphql+json' } },
    ])
      expect(hits.routeOf(changed, { viewer })).not.toBe(route);
    // A POST whose body was not read before yoga (too large) is yoga's.
    expect(hits.routeOf({ ...request, body: undefined }, { viewer })).toBeUndefined();

    const key = cacheKeyOf(viewer.organizationId, 'hits');
    store.cache.set(key, { data: {} }, [], 60_000);
    const kept = store.keep(key, { data: { batches: { totalCount: 1 } } }, ['Batch']);
    await kept?.kept;
    // Not answered by yoga as a hit yet: not known here.
    expect(await hits.answer(route)).toBeUndefined();
    const headers = {
      'content-type': 'application/json; charset=utf-8',
      'x-response-cache': 'hit',
      'content-length': '9',
    };
    hits.learn(route, key, new Response(null, { status: 200, headers }));
    const hit = await hits.answer(route);
    expect(hit?.bytes.toString()).toBe(kept?.text);
    expect(hit?.headers).toEqual({ 'content-type': 'application/json; charset=utf-8', 'x-response-cache': 'hit' });
    // Dropped: no longer answered here (yoga misses and executes).
    await store.organizationChanged(viewer.organizationId);
    expect(await hits.answer(route)).toBeUndefined();
  });

  it('caches nothing with RESPONSE_CACHE_TTL_MS=0', async () => {
    const off = await startTestServer({ responseCache: { ttlMs: 0, maxEntries: 1 } });
    try {
      const { apiKey } = await off.createOrganization();
      await post(off, apiKey, BATCHES);
      const again = await post(off, apiKey, BATCHES);
      expect(again.cache).toBeNull();
    } finally {
      await off.close();
    }
  });
});

describe.runIf(process.env.TEST_REDIS_URL)('response cache shared by two instances (Redis)', () => {
  let first: TestServer;
  let second: TestServer;
  beforeAll(async () => {
    first = await startTestServer({ redisUrl: process.env.TEST_REDIS_URL });
    second = await startTestServer({ sharing: first, redisUrl: process.env.TEST_REDIS_URL });
  });
  afterAll(async () => {
    await second?.close();
    await first?.close();
  });
  cacheBehaviour(() => ({ first, second }));

  it("a change made through one instance is not served from the other's copy in memory", async () => {
    const { organizationId, apiKey } = await first.createOrganization('Copies');
    const { ok } = graphqlCalls(
      () => first,
      () => apiKey,
    );
    const agent = await ok(`mutation { createAgent(input: { name: "Before" }) { id } }`);
    const AGENT = `query($id: ID!) { agent(id: $id) { id name } }`;
    const id = agent.createAgent.id as string;
    expect((await post(second, apiKey, AGENT, { id })).cache).toBe('miss');
    // The second instance answers from the copy it kept.
    expect(hitOf(await post(second, apiKey, AGENT, { id }))).toBe(true);
    await ok(`mutation($id: ID!) { updateAgent(id: $id, input: { name: "After" }) { id } }`, { id });
    const after = await post(second, apiKey, AGENT, { id });
    expect(after.cache).toBe('miss');
    expect(after.body.data.agent.name).toBe('After');
    // And as the engine changes a batch: announced on the first, the second's copy is not served.
    const batchId = await newBatch(ok);
    expect((await post(second, apiKey, BATCH, { id: batchId })).cache).toBe('miss');
    expect(hitOf(await post(second, apiKey, BATCH, { id: batchId }))).toBe(true);
    await first.db.prisma.batch.updateMany({ where: { id: batchId, organizationId }, data: { status: 'IN_PROGRESS' } });
    first.services.events.batchChanged(batchId);
    await eventually(
      async () =>
        (await post(second, apiKey, BATCH, { id: batchId })).body.data.batch.status === 'IN_PROGRESS'
          ? true
          : undefined,
      5_000,
      "the second's copy of the batch to be dropped",
    );
  });
});
