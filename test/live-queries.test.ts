import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { graphqlCalls } from './support/graphql.ts';
import { follow, wsClient } from './support/graphql-ws.ts';
import { ManualClock } from './support/manual-clock.ts';
import { restClient } from './support/rest.ts';
import { startTestServer, type TestServer } from './support/server.ts';
import { sseOperation } from './support/sse.ts';

const LIVE_BATCH = `query($id: ID!) @live { batch(id: $id) { id status stats { pausedCount totalCount } } }`;
const LIVE_BATCHES = `query @live { batches(first: 10) { totalCount nodes { id name } } }`;

type BatchResult = { batch: { id: string; status: string; stats: { pausedCount: number; totalCount: number } } };

/** A workflow and a batch of `size` prospects in the organization of `ok`'s key. */
async function newBatch(ok: ReturnType<typeof graphqlCalls>['ok'], key?: string, name = 'B', size = 2) {
  const workflow = await ok(`mutation { createWorkflow(input: { name: "Live" }) { id } }`, undefined, key);
  const prospects = await ok(
    `mutation($input: ProspectsCreateInput!) { createProspects(input: $input) { id } }`,
    { input: { prospects: Array.from({ length: size }, (_, index) => ({ firstName: `P${index}` })) } },
    key,
  );
  const batch = await ok(
    `mutation($w: ID!, $n: String!, $ids: [String!]) { createBatch(workflowId: $w, input: { name: $n, prospectIds: $ids }) { id } }`,
    {
      w: workflow.createWorkflow.id,
      n: name,
      ids: prospects.createProspects.map((prospect: { id: string }) => prospect.id),
    },
    key,
  );
  return batch.createBatch.id as string;
}

const SET_STATUS = `mutation($id: ID!, $s: BatchStatus!) { updateBatchStatus(id: $id, status: $s) { status } }`;

describe('live queries (@live)', () => {
  let server: TestServer;
  let org: { organizationId: string; apiKey: string };
  let other: { organizationId: string; apiKey: string };
  const { ok } = graphqlCalls(
    () => server,
    () => org.apiKey,
  );

  // The key cache's clock (API_KEY_CACHE_TTL_MS, 30 s): a live query's key is verified again each time it passes.
  const keyClock = new ManualClock(new Date());

  beforeAll(async () => {
    server = await startTestServer({
      subscriptionLimits: { perConnection: 10, perOrganization: 3 },
      apiKeyClock: keyClock,
    });
    org = await server.createOrganization();
    other = await server.createOrganization('Other');
  });
  afterAll(() => server.close());

  it('answers at once, then again when the batch changes', async () => {
    const batchId = await newBatch(ok);
    const client = wsClient(server.url, org.apiKey);
    const live = follow<BatchResult>(client, LIVE_BATCH, { id: batchId });
    await live.until(() => live.results.length >= 1);
    expect(live.results[0]!.data.batch).toEqual({
      id: batchId,
      status: 'PENDING',
      stats: { pausedCount: 0, totalCount: 2 },
    });
    await ok(SET_STATUS, { id: batchId, s: 'PAUSED' });
    await live.until(() => live.results.at(-1)?.data.batch.status === 'PAUSED');
    expect(live.results.at(-1)!.data.batch.stats).toEqual({ pausedCount: 2, totalCount: 2 });
    expect(live.errors).toEqual([]);
    live.stop();
    await client.dispose();
  });

  it('re-executes on the change events that drive batchProgress (the run engine announces its writes so)', async () => {
    const batchId = await newBatch(ok);
    const client = wsClient(server.url, org.apiKey);
    const live = follow<BatchResult>(client, LIVE_BATCH, { id: batchId });
    await live.until(() => live.results.length >= 1);
    // As the engine does: a write of its own (no mutation), then the announcement.
    await server.db.prisma.batch.updateMany({ where: { id: batchId }, data: { status: 'IN_PROGRESS' } });
    server.services.events.batchChanged(batchId);
    await live.until(() => live.results.at(-1)?.data.batch.status === 'IN_PROGRESS');
    expect(live.results).toHaveLength(2);
    live.stop();
    await client.dispose();
  });

  it("a list follows its organization's writes (a new batch appears)", async () => {
    const client = wsClient(server.url, org.apiKey);
    const live = follow<{ batches: { totalCount: number } }>(client, LIVE_BATCHES);
    await live.until(() => live.results.length >= 1);
    const before = live.results[0]!.data.batches.totalCount;
    await newBatch(ok, undefined, 'Appears');
    await live.until(() => live.results.at(-1)?.data.batches.totalCount === before + 1);
    live.stop();
    await client.dispose();
  });

  it("another organization's changes never re-execute an organization's live queries", async () => {
    const mine = await newBatch(ok);
    const theirs = await newBatch(ok, other.apiKey);
    const client = wsClient(server.url, org.apiKey);
    const batch = follow<BatchResult>(client, LIVE_BATCH, { id: mine });
    const list = follow<{ batches: { totalCount: number } }>(client, LIVE_BATCHES);
    await batch.until(() => batch.results.length >= 1);
    await list.until(() => list.results.length >= 1);
    // The other organization's writes and batch changes (each announced as batchProgress's are)...
    await ok(SET_STATUS, { id: theirs, s: 'PAUSED' }, other.apiKey);
    await newBatch(ok, other.apiKey);
    // ...then one of this organization's: the results that arrive are the ones it caused, no more.
    await ok(SET_STATUS, { id: mine, s: 'PAUSED' });
    await newBatch(ok, undefined, 'Mine too');
    await batch.until(() => batch.results.at(-1)?.data.batch.status === 'PAUSED');
    await list.until(() => list.results.length >= 2);
    // (A re-execution that reads what was sent already is not sent again.)
    expect(batch.results.map((result) => result.data.batch.status)).toEqual(['PENDING', 'PAUSED']);
    expect(list.results.map((result) => result.data.batches.totalCount)).toEqual([
      list.results[0]!.data.batches.totalCount,
      list.results[0]!.data.batches.totalCount + 1,
    ]);
    // And another organization's live query never reads this organization's batch.
    const otherClient = wsClient(server.url, other.apiKey);
    const foreign = follow<{ batch: null }>(otherClient, LIVE_BATCH, { id: mine });
    await foreign.until(() => foreign.results.length + foreign.errors.length >= 1);
    expect(foreign.results.flatMap((result) => (result.data.batch ? [result.data.batch] : []))).toEqual([]);
    for (const followed of [batch, list, foreign]) followed.stop();
    await Promise.all([client.dispose(), otherClient.dispose()]);
  });

  it('streams over SSE too, through the response cache (which keeps no live answer)', async () => {
    const batchId = await newBatch(ok);
    const controller = new AbortController();
    const stream = await sseOperation(server.url, org.apiKey, LIVE_BATCH, { id: batchId }, controller.signal);
    const nextResult = () => stream.next<{ data: BatchResult; extensions?: unknown }>();
    const first = await nextResult();
    // The answer as asked: nothing the cache adds to collect entities (__typename) is left in it.
    expect(first.data.batch).toEqual({ id: batchId, status: 'PENDING', stats: { pausedCount: 0, totalCount: 2 } });
    await ok(SET_STATUS, { id: batchId, s: 'PAUSED' });
    let next = await nextResult();
    while (next.data.batch.status !== 'PAUSED') next = await nextResult();
    expect(next.data.batch.stats).toEqual({ pausedCount: 2, totalCount: 2 });
    controller.abort();
  });

  it('ends over SSE once its key is revoked or expires, within the key cache TTL', async () => {
    const batchId = await newBatch(ok);
    const keys = restClient(server, org.organizationId, org.apiKey);
    const revoked = await keys('POST', '/org/{org}/api-keys', { body: { name: 'live', scopes: ['read'] } });
    const expiring = await keys('POST', '/org/{org}/api-keys', {
      body: { name: 'live expiring', scopes: ['read'], expires_at: new Date(keyClock.now().getTime() + 45_000) },
    });
    const streams = await Promise.all(
      [revoked, expiring].map((key) => sseOperation(server.url, key.body.api_key, LIVE_BATCH, { id: batchId })),
    );
    for (const stream of streams) expect(await stream.next()).toMatchObject({ data: { batch: { id: batchId } } });
    expect((await keys('DELETE', `/org/{org}/api-keys/${revoked.body.id}`)).status).toBe(200);
    keyClock.advance(60_000);
    for (const stream of streams) {
      const rest = await stream.rest<{ data?: unknown; errors?: { extensions: { code: string } }[] }>();
      // What it may still have carried within the TTL, then the refusal, last.
      expect(rest.at(-1)!.errors!.map((error) => error.extensions.code)).toEqual(['UNAUTHENTICATED']);
    }
  });

  it("identical live queries of an organization share one execution; another organization's never joins it", async () => {
    // Organizations of their own: the other tests' live queries end as their connections close, not before.
    const own = await server.createOrganization('Shared');
    const stranger = await server.createOrganization('Stranger');
    const batchId = await newBatch(ok, own.apiKey);
    const clients = [wsClient(server.url, own.apiKey), wsClient(server.url, own.apiKey)];
    const same = clients.map((client) => follow<BatchResult>(client, LIVE_BATCH, { id: batchId }));
    await Promise.all(same.map((live) => live.until(() => live.results.length >= 1)));
    const strangerClient = wsClient(server.url, stranger.apiKey);
    const foreign = follow<{ batch: null }>(strangerClient, LIVE_BATCH, { id: batchId });
    await foreign.until(() => foreign.results.length >= 1);
    const session = (organizationId: string) => `${organizationId}|`;
    expect(server.services.live.fanout.census(session(own.organizationId))).toEqual({ executions: 1, subscribers: 2 });
    expect(server.services.live.fanout.census(session(stranger.organizationId))).toEqual({
      executions: 1,
      subscribers: 1,
    });
    await ok(SET_STATUS, { id: batchId, s: 'PAUSED' }, own.apiKey);
    await Promise.all(same.map((live) => live.until(() => live.results.at(-1)?.data.batch.status === 'PAUSED')));
    // A late subscriber gets the current state at once, from the running execution.
    const late = follow<BatchResult>(clients[0]!, LIVE_BATCH, { id: batchId });
    await late.until(() => late.results.length >= 1);
    expect(late.results[0]!.data.batch.status).toBe('PAUSED');
    expect(foreign.results.map((result) => result.data.batch)).toEqual([null]);
    for (const live of [...same, late, foreign]) live.stop();
    await Promise.all([...clients, strangerClient].map((client) => client.dispose()));
  });

  it("holds one of its organization's subscription slots", async () => {
    // An organization of its own: the other tests' slots are given back as their connections close, not before.
    const own = await server.createOrganization('Slots');
    const batchId = await newBatch(ok, own.apiKey);
    const client = wsClient(server.url, own.apiKey);
    const held = [0, 1, 2].map(() => follow<BatchResult>(client, LIVE_BATCH, { id: batchId }));
    await Promise.all(held.map((live) => live.until(() => live.results.length >= 1)));
    const refused = follow<BatchResult>(client, LIVE_BATCH, { id: batchId });
    await refused.until(() => refused.errors.length >= 1);
    expect(JSON.stringify(refused.errors)).toContain('TOO_MANY_SUBSCRIPTIONS');
    for (const live of held) live.stop();
    await client.dispose();
  });
});

describe('live queries: throttle', () => {
  const THROTTLE_MS = 2_000;
  const START = new Date('2026-03-02T10:00:00Z');
  const clock = new ManualClock(START);
  let server: TestServer;
  let org: { organizationId: string; apiKey: string };
  const { ok } = graphqlCalls(
    () => server,
    () => org.apiKey,
  );

  beforeAll(async () => {
    server = await startTestServer({ liveQueryThrottleMs: THROTTLE_MS, liveQueryClock: clock });
    org = await server.createOrganization();
  });
  afterAll(() => server.close());

  it('re-executes at most once per LIVE_QUERY_THROTTLE_MS, whatever the query asks, and delivers the last state', async () => {
    const batchId = await newBatch(ok);
    const client = wsClient(server.url, org.apiKey);
    const asksLess = LIVE_BATCH.replace('@live', '@live(throttle: 1)');
    const live = follow<BatchResult>(client, asksLess, { id: batchId });
    await live.until(() => live.results.length >= 1);
    // Seven writes while the clock stands still, each invalidating the query (its organization's and its batch's).
    for (let flip = 0; flip < 6; flip++)
      await ok(SET_STATUS, { id: batchId, s: flip % 2 === 0 ? 'PAUSED' : 'PENDING' });
    await ok(SET_STATUS, { id: batchId, s: 'PAUSED' });
    // None re-executed: the next execution waits for the interval's end, not for the 1 ms the query asked.
    expect(clock.nextWake()).toEqual(new Date(START.getTime() + THROTTLE_MS));
    expect(live.results).toHaveLength(1);
    clock.advance(THROTTLE_MS);
    await live.until(() => live.results.at(-1)?.data.batch.status === 'PAUSED');
    // One execution for the seven, reading the last state.
    expect(live.results.map((result) => result.data.batch.status)).toEqual(['PENDING', 'PAUSED']);
    live.stop();
    await client.dispose();
  });
});

describe.runIf(process.env.TEST_REDIS_URL)('live queries across instances (Redis)', () => {
  let first: TestServer;
  let second: TestServer;
  let org: { organizationId: string; apiKey: string };
  const { ok } = graphqlCalls(
    () => second,
    () => org.apiKey,
  );

  beforeAll(async () => {
    first = await startTestServer({ redisUrl: process.env.TEST_REDIS_URL });
    second = await startTestServer({ sharing: first, redisUrl: process.env.TEST_REDIS_URL });
    org = await first.createOrganization();
  });
  afterAll(async () => {
    await second?.close();
    await first?.close();
  });

  it("a change made on one instance re-executes another instance's live query", async () => {
    const batchId = await newBatch(ok);
    const client = wsClient(first.url, org.apiKey);
    const live = follow<BatchResult>(client, LIVE_BATCH, { id: batchId });
    await live.until(() => live.results.length >= 1);
    await ok(SET_STATUS, { id: batchId, s: 'PAUSED' });
    await live.until(() => live.results.at(-1)?.data.batch.status === 'PAUSED');
    live.stop();
    await client.dispose();
  });
});
