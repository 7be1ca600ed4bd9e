import type { Client } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { graphqlCalls } from './support/graphql.ts';
import { follow, wsClient } from './support/graphql-ws.ts';
import { ManualClock } from './support/manual-clock.ts';
import { restClient } from './support/rest.ts';
import { startTestServer, type TestServer } from './support/server.ts';
import { sseOperation } from './support/sse.ts';
import { recordStatements } from './support/statements.ts';

const PROGRESS = `subscription($id: ID!) { batchProgress(batchId: $id) {
  batchId status stats { pendingCount pausedCount cancelledCount totalCount } batch { id name } } }`;

interface Progress {
  batchId: string;
  status: string;
  stats: { pendingCount: number; pausedCount: number; cancelledCount: number; totalCount: number };
  batch: { id: string; name: string };
}

/** Collects a batch's progress events over graphql-ws. */
const followProgress = (client: Client, batchId: string, query = PROGRESS) =>
  follow(client, query, { id: batchId }, (data: { batchProgress: Progress }) => data.batchProgress);

describe('Subscription.batchProgress', () => {
  let server: TestServer;
  let org: { organizationId: string; apiKey: string };
  const { ok: gql } = graphqlCalls(
    () => server,
    () => org.apiKey,
  );

  async function newBatch(size = 3) {
    const workflow = await gql(`mutation { createWorkflow(input: { name: "Live" }) { id } }`);
    const prospects = await gql(`mutation($input: ProspectsCreateInput!) { createProspects(input: $input) { id } }`, {
      input: { prospects: Array.from({ length: size }, (_, index) => ({ firstName: `P${index}` })) },
    });
    const batch = await gql(
      `mutation($w: ID!, $ids: [String!]) { createBatch(workflowId: $w, input: { name: "B", prospectIds: $ids }) { id } }`,
      {
        w: workflow.createWorkflow.id,
        ids: prospects.createProspects.map((prospect: { id: string }) => prospect.id),
      },
    );
    return batch.createBatch.id as string;
  }
  /** Resolves once no subscriber follows any batch on the server (each left one let its watcher go). */
  const untilNoSubscribers = async () => {
    while (server.services.events.subscriberCount > 0) await new Promise((resolve) => setTimeout(resolve, 20));
  };
  const setStatus = (id: string, status: string) =>
    gql(`mutation($id: ID!, $s: BatchStatus!) { updateBatchStatus(id: $id, status: $s) { status } }`, {
      id,
      s: status,
    });

  // The key cache's clock (API_KEY_CACHE_TTL_MS, 30 s): a connection's key is verified again each time it passes.
  const keyClock = new ManualClock(new Date());

  beforeAll(async () => {
    server = await startTestServer({ apiKeyClock: keyClock });
    org = await server.createOrganization();
  });
  afterAll(() => server.close());

  it('sends the current state, then each change, over graphql-ws', async () => {
    const batchId = await newBatch();
    const client = wsClient(server.url, org.apiKey);
    const progress = followProgress(client, batchId);
    await progress.until(() => progress.events.length >= 1);
    expect(progress.events[0]).toEqual({
      batchId,
      status: 'PENDING',
      stats: { pendingCount: 3, pausedCount: 0, cancelledCount: 0, totalCount: 3 },
      batch: { id: batchId, name: 'B' },
    });
    await setStatus(batchId, 'PAUSED');
    await progress.until(() => progress.events.at(-1)?.status === 'PAUSED');
    expect(progress.events.at(-1)!.stats).toEqual({
      pendingCount: 0,
      pausedCount: 3,
      cancelledCount: 0,
      totalCount: 3,
    });
    await setStatus(batchId, 'CANCELLED');
    await progress.until(() => progress.events.at(-1)?.status === 'CANCELLED');
    expect(progress.errors).toEqual([]);
    progress.stop();
    await client.dispose();
  });

  it('coalesces bursts of changes and always delivers the last state', async () => {
    const batchId = await newBatch();
    const client = wsClient(server.url, org.apiKey);
    const progress = followProgress(client, batchId);
    await progress.until(() => progress.events.length >= 1);
    const started = Date.now();
    for (let flip = 0; flip < 10; flip++) await setStatus(batchId, flip % 2 === 0 ? 'PAUSED' : 'PENDING');
    await setStatus(batchId, 'PAUSED');
    await progress.until(
      () => progress.events.at(-1)?.status === 'PAUSED' && progress.events.at(-1)?.stats.pausedCount === 3,
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    const elapsed = Date.now() - started;
    // 11 changes; at most one event per ~100 ms window (plus the first state).
    expect(progress.events.length - 1).toBeLessThanOrEqual(Math.ceil(elapsed / 100) + 1);
    expect(progress.events.at(-1)!.status).toBe('PAUSED');
    // Never a state equal to the one before it.
    for (const [index, event] of progress.events.entries())
      if (index > 0) expect(event).not.toEqual(progress.events[index - 1]);
    progress.stop();
    await client.dispose();
  });

  it("refuses another organization's batch, and closes a connection without a valid key", async () => {
    const batchId = await newBatch();
    const other = await server.createOrganization('Other');
    const client = wsClient(server.url, other.apiKey);
    const foreign = followProgress(client, batchId);
    await foreign.until(() => foreign.errors.length > 0);
    expect(foreign.events).toEqual([]);
    expect(JSON.stringify(foreign.errors)).toContain('batch not found');
    await client.dispose();

    const closed = new Promise<number>((resolve) => {
      const anonymous = wsClient(server.url, 'gwk_invalid', {
        on: { closed: (event) => resolve((event as { code: number }).code) },
      });
      anonymous.subscribe(
        { query: PROGRESS, variables: { id: batchId } },
        { next: () => {}, error: () => {}, complete: () => {} },
      );
    });
    expect(await closed).toBe(4403);
  });

  /** A key of the organization with `read`, and a client on it whose close code `closed` resolves with. */
  async function keyedClient(expiresAt: Date | null = null) {
    const issued = await restClient(server, org.organizationId, org.apiKey)('POST', '/org/{org}/api-keys', {
      body: { name: 'watcher', scopes: ['read'], ...(expiresAt ? { expires_at: expiresAt.toISOString() } : {}) },
    });
    expect(issued.status).toBe(201);
    let closedWith: (code: number) => void = () => {};
    const closed = new Promise<number>((resolve) => {
      closedWith = resolve;
    });
    const client = wsClient(server.url, issued.body.api_key, {
      on: { closed: (event) => closedWith((event as { code: number }).code) },
    });
    return { id: issued.body.id as string, client, closed };
  }

  it('closes a connection whose key is revoked once the key cache TTL has passed (4403)', async () => {
    const batchId = await newBatch();
    const { id, client, closed } = await keyedClient();
    const progress = followProgress(client, batchId);
    await progress.until(() => progress.events.length >= 1);
    const revoked = await restClient(server, org.organizationId, org.apiKey)('DELETE', `/org/{org}/api-keys/${id}`);
    expect(revoked.status).toBe(200);
    // Within the TTL the connection may still hear events: it is open until the key is verified again.
    await setStatus(batchId, 'PAUSED');
    await progress.until(() => progress.events.at(-1)?.status === 'PAUSED');
    keyClock.advance(30_000);
    expect(await closed).toBe(4403);
    const heard = progress.events.length;
    await setStatus(batchId, 'PENDING');
    await untilNoSubscribers();
    expect(progress.events).toHaveLength(heard);
    await client.dispose();
  });

  it('closes a connection whose key expires, within the TTL of its expiry (4403)', async () => {
    const batchId = await newBatch();
    const { client, closed } = await keyedClient(new Date(keyClock.now().getTime() + 45_000));
    const progress = followProgress(client, batchId);
    await progress.until(() => progress.events.length >= 1);
    keyClock.advance(60_000);
    expect(await closed).toBe(4403);
    await untilNoSubscribers();
    await client.dispose();
  });

  it('executes a change once for all the subscribers holding the same operation', async () => {
    const batchId = await newBatch();
    // workflowVersionNumber reads the version through the loaders, which each event clears: one read per execution.
    const query = `subscription($id: ID!) { batchProgress(batchId: $id) { status batch { workflowVersionNumber } } }`;
    const clients = [wsClient(server.url, org.apiKey), wsClient(server.url, org.apiKey)];
    const followers = clients.map((client) => followProgress(client, batchId, query));
    const other = await server.createOrganization('Not sharing');
    const foreignClient = wsClient(server.url, other.apiKey);
    const foreign = followProgress(foreignClient, batchId, query);
    await Promise.all(followers.map((progress) => progress.until(() => progress.events.length >= 1)));
    await foreign.until(() => foreign.errors.length > 0);

    const { statements } = await recordStatements(server.db, async () => {
      await setStatus(batchId, 'PAUSED');
      await Promise.all(followers.map((progress) => progress.until(() => progress.events.at(-1)?.status === 'PAUSED')));
    });
    // The loader's read (a webhook event's statement names the table too).
    expect(statements.filter((sql) => sql.includes('JOIN "WorkflowVersion"'))).toHaveLength(1);
    for (const progress of followers) {
      expect(progress.events).toEqual([
        { status: 'PENDING', batch: { workflowVersionNumber: 1 } },
        { status: 'PAUSED', batch: { workflowVersionNumber: 1 } },
      ]);
      expect(progress.errors).toEqual([]);
    }
    // Sharing the execution shares no refusal: another organization's subscriber to the batch was not found, alone.
    expect(foreign.events).toEqual([]);
    expect(JSON.stringify(foreign.errors)).toContain('batch not found');
    for (const progress of followers) progress.stop();
    await Promise.all([...clients, foreignClient].map((client) => client.dispose()));
    await untilNoSubscribers();
  });

  it('streams the same events over SSE', async () => {
    const batchId = await newBatch();
    const controller = new AbortController();
    const stream = await sseOperation(server.url, org.apiKey, PROGRESS, { id: batchId }, controller.signal);
    const nextEvent = async () => (await stream.next<{ data: { batchProgress: Progress } }>()).data.batchProgress;
    expect((await nextEvent()).status).toBe('PENDING');
    await setStatus(batchId, 'PAUSED');
    expect(await nextEvent()).toMatchObject({ status: 'PAUSED', stats: { pausedCount: 3 } });
    controller.abort();
    await untilNoSubscribers();
  });

  /** What an SSE subscription's stream ends with once its key no longer holds. */
  const LAPSED = [
    {
      errors: [
        expect.objectContaining({
          message: expect.stringContaining('revoked, expired or changed'),
          extensions: expect.objectContaining({ code: 'UNAUTHENTICATED' }),
        }),
      ],
    },
  ];

  it('ends an SSE subscription whose key is revoked once the key cache TTL has passed', async () => {
    const batchId = await newBatch();
    const key = await restClient(server, org.organizationId, org.apiKey)('POST', '/org/{org}/api-keys', {
      body: { name: 'sse watcher', scopes: ['read'] },
    });
    const stream = await sseOperation(server.url, key.body.api_key, PROGRESS, { id: batchId });
    expect(await stream.next()).toMatchObject({ data: { batchProgress: { status: 'PENDING' } } });
    const revoked = await restClient(
      server,
      org.organizationId,
      org.apiKey,
    )('DELETE', `/org/{org}/api-keys/${key.body.id}`);
    expect(revoked.status).toBe(200);
    // Within the TTL the stream may still carry events: it is open until the key is verified again.
    await setStatus(batchId, 'PAUSED');
    expect(await stream.next()).toMatchObject({ data: { batchProgress: { status: 'PAUSED' } } });
    keyClock.advance(30_000);
    expect(await stream.rest()).toEqual(LAPSED);
    await untilNoSubscribers();
  });

  it('ends an SSE subscription whose key expires, within the TTL of its expiry', async () => {
    const batchId = await newBatch();
    const key = await restClient(server, org.organizationId, org.apiKey)('POST', '/org/{org}/api-keys', {
      body: { name: 'sse expiring', scopes: ['read'], expires_at: new Date(keyClock.now().getTime() + 45_000) },
    });
    const stream = await sseOperation(server.url, key.body.api_key, PROGRESS, { id: batchId });
    expect(await stream.next()).toMatchObject({ data: { batchProgress: { status: 'PENDING' } } });
    keyClock.advance(60_000);
    expect(await stream.rest()).toEqual(LAPSED);
    await untilNoSubscribers();
  });

  it('needs a key on SSE too', async () => {
    const response = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ query: PROGRESS, variables: { id: 'bat_x' } }),
    });
    expect(response.status).toBe(401);
  });
});

describe.runIf(process.env.TEST_REDIS_URL)('batchProgress across instances (Redis)', () => {
  let first: TestServer;
  let second: TestServer;
  beforeAll(async () => {
    first = await startTestServer({ redisUrl: process.env.TEST_REDIS_URL });
    second = await startTestServer({ redisUrl: process.env.TEST_REDIS_URL, sharing: first });
  });
  afterAll(async () => {
    await second.close();
    await first.close();
  });

  it('delivers a change made on one instance to a subscriber on another', async () => {
    const { apiKey } = await first.createOrganization();
    const call = async (server: TestServer, query: string, variables?: Record<string, unknown>) => {
      const { body } = await server.graphql(apiKey, query, variables);
      expect(body.errors).toBeUndefined();
      return body.data;
    };
    const workflow = await call(first, `mutation { createWorkflow(input: { name: "X" }) { id } }`);
    const prospects = await call(
      first,
      `mutation { createProspects(input: { prospects: [{ firstName: "A" }] }) { id } }`,
    );
    const batch = await call(
      first,
      `mutation($w: ID!, $p: [String!]) { createBatch(workflowId: $w, input: { prospectIds: $p }) { id } }`,
      {
        w: workflow.createWorkflow.id,
        p: [prospects.createProspects[0].id],
      },
    );
    const batchId = batch.createBatch.id;
    const client = wsClient(first.url, apiKey);
    const progress = followProgress(client, batchId);
    await progress.until(() => progress.events.length >= 1);
    await call(second, `mutation($id: ID!) { updateBatchStatus(id: $id, status: PAUSED) { status } }`, { id: batchId });
    await progress.until(() => progress.events.at(-1)?.status === 'PAUSED');
    progress.stop();
    await client.dispose();
  });
});
