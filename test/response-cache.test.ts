import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { responseCacheSession } from '../src/graphql/use-response-cache.ts';
import { graphqlCalls } from './support/graphql.ts';
import { startTestServer, type TestServer } from './support/server.ts';

interface Answer {
  status: number;
  body: { data?: any; errors?: unknown[]; extensions?: { responseCache?: { hit: boolean; didCache?: boolean } } };
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
  return { status: response.status, body: (await response.json()) as Answer['body'] };
}

const hitOf = (answer: Answer) => answer.body.extensions?.responseCache?.hit;

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
    expect(miss.body.extensions?.responseCache).toMatchObject({ hit: false, didCache: true });
    const hit = await post(second(), org.apiKey, BATCH, { id: batchId });
    expect(hitOf(hit)).toBe(true);
    expect(hit.body.data).toEqual(miss.body.data);
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

  it('the change events that drive batchProgress drop the answers holding the batch', async () => {
    const batchId = await newBatch(ok);
    const otherBatch = await newBatch(ok, other.apiKey);
    await post(first(), org.apiKey, BATCH, { id: batchId });
    await post(first(), other.apiKey, BATCH, { id: otherBatch });
    // As the run engine does: its own write (no mutation), then the announcement.
    await first().db.prisma.batch.updateMany({ where: { id: batchId }, data: { status: 'IN_PROGRESS' } });
    first().services.events.batchChanged(batchId);
    const fresh = await post(second(), org.apiKey, BATCH, { id: batchId });
    expect(fresh.body.data.batch.status).toBe('IN_PROGRESS');
    expect(hitOf(await post(second(), other.apiKey, BATCH, { id: otherBatch }))).toBe(true);
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

  it('caches nothing with RESPONSE_CACHE_TTL_MS=0', async () => {
    const off = await startTestServer({ responseCache: { ttlMs: 0, maxEntries: 1 } });
    try {
      const { apiKey } = await off.createOrganization();
      await post(off, apiKey, BATCHES);
      const again = await post(off, apiKey, BATCHES);
      expect(again.body.extensions?.responseCache).toBeUndefined();
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
});
