// One tenant cannot spend another's share of the gateway through a side door:
// operations over graphql-ws and SSE count against the organization's rate
// limit like its HTTP requests; subscriptions are capped per connection and
// per organization; all of an organization's keys share its one quota, and
// their number is capped. Each test has a noisy organization do what a
// hostile tenant would, while a quiet one's requests are checked.
import type { Client, FormattedExecutionResult } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueApiKey } from '../src/domain/organizations.ts';
import { wsClient } from './support/graphql-ws.ts';
import { expectErrorBody, type RestResponse, restClient } from './support/rest.ts';
import { startTestServer, type TestServer } from './support/server.ts';

const LIMIT = 200;
const WINDOW_MS = 60_000;
const rateLimits = { perOrganization: LIMIT, agentUpdate: 60, windowMs: WINDOW_MS };

const CREATE_TAG = 'mutation($name: String!) { createTag(input: { name: $name }) { id } }';
const PROGRESS = 'subscription($id: ID!) { batchProgress(batchId: $id) { status } }';

type ExecutionResult = FormattedExecutionResult<Record<string, unknown>, unknown>;

interface Tenant {
  organizationId: string;
  apiKey: string;
  rest: ReturnType<typeof restClient>;
}

async function tenant(server: TestServer, name: string): Promise<Tenant> {
  const { organizationId, apiKey } = await server.createOrganization(name);
  return { organizationId, apiKey, rest: restClient(server, organizationId, apiKey) };
}

/** A client connected at once (not at its first operation). */
const eagerClient = (server: TestServer, apiKey: string): Client => wsClient(server.url, apiKey, { lazy: false });

/** What one operation over graphql-ws got: its result, or the errors of the protocol's error message. */
type Outcome = { result: ExecutionResult } | { refused: { message: string; extensions?: Record<string, unknown> }[] };

function wsOperation(client: Client, query: string, variables: Record<string, unknown> = {}): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    let result: ExecutionResult | undefined;
    client.subscribe(
      { query, variables },
      {
        next: (value) => {
          result = value;
        },
        error: (error) => (Array.isArray(error) ? resolve({ refused: error }) : reject(error)),
        complete: () => resolve({ result: result! }),
      },
    );
  });
}

/** A subscription over graphql-ws, followed: its first event (or refusal) awaited, and its end. */
function wsSubscription(client: Client, batchId: string) {
  let stop = () => {};
  const first = new Promise<Outcome>((resolve, reject) => {
    stop = client.subscribe(
      { query: PROGRESS, variables: { id: batchId } },
      {
        next: (result) => resolve({ result }),
        error: (error) => (Array.isArray(error) ? resolve({ refused: error }) : reject(error)),
        complete: () => {},
      },
    );
  });
  return { first, stop: () => stop() };
}

/** An operation over SSE (POST /graphql asking for text/event-stream); the stream, or a refusal's body. */
async function sseCall(server: TestServer, apiKey: string, query: string, variables: Record<string, unknown>) {
  const controller = new AbortController();
  const response = await fetch(`${server.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'x-api-key': apiKey },
    body: JSON.stringify({ query, variables }),
    signal: controller.signal,
  });
  return { response, abort: () => controller.abort() };
}

/** The first `data:` event of an SSE stream. */
async function firstEvent(response: Response): Promise<ExecutionResult> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    const match = buffer.match(/data: (.+)\n/);
    if (match) {
      reader.releaseLock();
      return JSON.parse(match[1]!);
    }
    const { value, done } = await reader.read();
    if (done) throw new Error(`stream ended: ${buffer}`);
    buffer += decoder.decode(value, { stream: true });
  }
}

async function asRest(response: Response): Promise<RestResponse> {
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
}

function expectRateLimitedOverWebSocket(outcome: Outcome) {
  expect('refused' in outcome, JSON.stringify(outcome)).toBe(true);
  const [error] = (outcome as { refused: { message: string; extensions?: Record<string, unknown> }[] }).refused;
  expect(error!.message).toMatch(/^rate limit exceeded: retry in \d+ s$/);
  expect(error!.extensions).toMatchObject({ code: 'RATE_LIMITED', status: 429 });
  const retryAfter = error!.extensions!.retryAfterSeconds as number;
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(WINDOW_MS / 1000);
}

/** The quiet organization's request: answered, counted against its own quota only. */
async function expectQuietAnswered(quiet: Tenant, used: number) {
  const response = await quiet.rest('GET', '/org/{org}/sip-trunks');
  expect(response.status).toBe(200);
  expect(response.headers.get('x-ratelimit-remaining')).toBe(String(LIMIT - used));
}

const tagsOf = (server: TestServer, organizationId: string) =>
  server.db.prisma.tag.count({ where: { organizationId } });

describe('one rate limit per organization on every transport', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ rateLimits, apiKeysPerOrganization: 300 });
  });
  afterAll(() => server.close());

  it("counts operations over graphql-ws against the organization's quota, and refuses those beyond it", async () => {
    const noisy = await tenant(server, 'Noisy');
    const quiet = await tenant(server, 'Quiet');
    await expectQuietAnswered(quiet, 1);
    const socket = eagerClient(server, noisy.apiKey);
    const outcomes = await Promise.all(
      Array.from({ length: LIMIT + 20 }, (_, index) => wsOperation(socket, CREATE_TAG, { name: `tag ${index}` })),
    );
    const written = outcomes.filter((outcome) => 'result' in outcome);
    expect(written).toHaveLength(LIMIT);
    for (const outcome of written) expect((outcome as { result: ExecutionResult }).result.errors).toBeUndefined();
    const refused = outcomes.filter((outcome) => 'refused' in outcome);
    expect(refused).toHaveLength(20);
    for (const outcome of refused) expectRateLimitedOverWebSocket(outcome);
    // Refused operations ran nothing.
    expect(await tagsOf(server, noisy.organizationId)).toBe(LIMIT);

    // The same counter as HTTP: the organization's next request is a 429, whichever key it carries.
    expectErrorBody(await noisy.rest('GET', '/org/{org}/sip-trunks'), 429);
    const otherKey = (await issueApiKey(server.db.prisma, noisy.organizationId)).apiKey;
    expectErrorBody(await noisy.rest('GET', '/org/{org}/sip-trunks', { apiKey: otherKey }), 429);
    // And the socket stays refused (its query too), without being closed.
    expectRateLimitedOverWebSocket(await wsOperation(socket, '{ organization { id } }'));

    // The quiet organization's quota did not move, over HTTP or graphql-ws.
    await expectQuietAnswered(quiet, 2);
    const quietSocket = eagerClient(server, quiet.apiKey);
    const quietOutcome = await wsOperation(quietSocket, CREATE_TAG, { name: 'quiet' });
    expect(quietOutcome).toEqual({ result: { data: { createTag: { id: expect.any(String) } } } });
    await expectQuietAnswered(quiet, 4);
    await Promise.all([socket.dispose(), quietSocket.dispose()]);
  });

  it("counts operations over SSE against the organization's quota, refused beyond it with 429", async () => {
    const noisy = await tenant(server, 'Noisy');
    const quiet = await tenant(server, 'Quiet');
    const statuses = await Promise.all(
      Array.from({ length: LIMIT + 20 }, async (_, index) => {
        const { response } = await sseCall(server, noisy.apiKey, CREATE_TAG, { name: `tag ${index}` });
        if (response.status !== 200) {
          const body = expectErrorBody(await asRest(response), 429);
          expect(body.message).toMatch(/^rate limit exceeded: retry in \d+ s$/);
          expect(response.headers.get('retry-after')).toMatch(/^\d+$/);
          return 429;
        }
        expect(response.headers.get('content-type')).toContain('text/event-stream');
        const event = await firstEvent(response);
        expect(event.errors).toBeUndefined();
        return 200;
      }),
    );
    expect(statuses.filter((status) => status === 200)).toHaveLength(LIMIT);
    expect(statuses.filter((status) => status === 429)).toHaveLength(20);
    expect(await tagsOf(server, noisy.organizationId)).toBe(LIMIT);

    // One counter: the organization's plain HTTP requests and graphql-ws operations are refused too.
    expectErrorBody(await noisy.rest('GET', '/org/{org}/sip-trunks'), 429);
    const socket = eagerClient(server, noisy.apiKey);
    expectRateLimitedOverWebSocket(await wsOperation(socket, CREATE_TAG, { name: 'never' }));
    expect(await tagsOf(server, noisy.organizationId)).toBe(LIMIT);
    await socket.dispose();

    await expectQuietAnswered(quiet, 1);
    const { response } = await sseCall(server, quiet.apiKey, CREATE_TAG, { name: 'quiet' });
    expect(response.status).toBe(200);
    expect((await firstEvent(response)).data).toEqual({ createTag: { id: expect.any(String) } });
  });

  it('gives freshly minted keys no quota of their own: 221 keys, one request each, against 200 a minute', async () => {
    const noisy = await tenant(server, 'Noisy');
    const quiet = await tenant(server, 'Quiet');
    // Minted outside HTTP, so that minting spends none of the quota the keys then try.
    const keys = [];
    for (let index = 0; index < LIMIT + 21; index++) {
      keys.push((await issueApiKey(server.db.prisma, noisy.organizationId, { maxActiveKeys: 300 })).apiKey);
    }
    const responses = await Promise.all(keys.map((apiKey) => noisy.rest('GET', '/org/{org}/sip-trunks', { apiKey })));
    expect(responses.filter((response) => response.status === 200)).toHaveLength(LIMIT);
    const refused = responses.filter((response) => response.status !== 200);
    expect(refused).toHaveLength(21);
    for (const response of refused) {
      expect(expectErrorBody(response, 429).message).toMatch(/^rate limit exceeded: retry in \d+ s$/);
      expect(response.headers.get('x-ratelimit-limit')).toBe(String(LIMIT));
      expect(response.headers.get('x-ratelimit-remaining')).toBe('0');
    }
    await expectQuietAnswered(quiet, 1);
  });
});

describe('subscriptions and keys are capped', () => {
  const PER_CONNECTION = 3;
  const PER_ORGANIZATION = 5;
  const KEYS = 3;
  let server: TestServer;
  let noisy: Tenant;
  let quiet: Tenant;
  // Closed before the server, whatever a test left open.
  const sockets: Client[] = [];
  const streams: (() => void)[] = [];
  const open = (client: Client) => {
    sockets.push(client);
    return client;
  };

  /** A batch of the organization's, to follow. */
  async function batchOf(owner: Tenant): Promise<string> {
    const call = async (query: string, variables?: Record<string, unknown>) => {
      const { body } = await server.graphql(owner.apiKey, query, variables);
      expect(body.errors).toBeUndefined();
      return body.data;
    };
    const workflow = await call('mutation { createWorkflow(input: { name: "W" }) { id } }');
    const prospects = await call('mutation { createProspects(input: { prospects: [{ firstName: "A" }] }) { id } }');
    const batch = await call(
      'mutation($w: ID!, $p: [String!]) { createBatch(workflowId: $w, input: { prospectIds: $p }) { id } }',
      { w: workflow.createWorkflow.id, p: [prospects.createProspects[0].id] },
    );
    return batch.createBatch.id;
  }

  function expectTooMany(outcome: Outcome, message: RegExp) {
    expect('refused' in outcome, JSON.stringify(outcome)).toBe(true);
    const [error] = (outcome as { refused: { message: string; extensions?: Record<string, unknown> }[] }).refused;
    expect(error!.message).toMatch(message);
    expect(error!.extensions).toMatchObject({ code: 'TOO_MANY_SUBSCRIPTIONS', status: 429 });
  }
  const expectFollowing = async (outcome: Promise<Outcome>) =>
    expect(await outcome).toEqual({ result: { data: { batchProgress: { status: 'PENDING' } } } });

  beforeAll(async () => {
    server = await startTestServer({
      subscriptionLimits: { perConnection: PER_CONNECTION, perOrganization: PER_ORGANIZATION },
      apiKeysPerOrganization: KEYS,
    });
    noisy = await tenant(server, 'Noisy');
    quiet = await tenant(server, 'Quiet');
  });
  afterAll(async () => {
    for (const abort of streams) abort();
    await Promise.all(sockets.map((socket) => socket.dispose()));
    await server.close();
  });

  it('refuses subscriptions beyond the per-connection and per-organization caps, over graphql-ws and SSE, and gives slots back', async () => {
    const [noisyBatch, quietBatch] = await Promise.all([batchOf(noisy), batchOf(quiet)]);
    const first = open(eagerClient(server, noisy.apiKey));
    const held = Array.from({ length: PER_CONNECTION }, () => wsSubscription(first, noisyBatch));
    for (const subscription of held) await expectFollowing(subscription.first);
    // The connection's cap: a fourth on it is refused, though the organization has slots left.
    expectTooMany(await wsSubscription(first, noisyBatch).first, /SUBSCRIPTIONS_PER_CONNECTION/);
    // Queries and mutations on that connection still run.
    expect(await wsOperation(first, '{ organization { name } }')).toEqual({
      result: { data: { organization: { name: 'Noisy' } } },
    });

    // The organization's cap, across connections and SSE.
    const second = open(eagerClient(server, noisy.apiKey));
    const more = Array.from({ length: PER_ORGANIZATION - PER_CONNECTION }, () => wsSubscription(second, noisyBatch));
    for (const subscription of more) await expectFollowing(subscription.first);
    expectTooMany(await wsSubscription(second, noisyBatch).first, /SUBSCRIPTIONS_PER_ORGANIZATION/);
    const overSse = await sseCall(server, noisy.apiKey, PROGRESS, { id: noisyBatch });
    streams.push(overSse.abort);
    const refusal = await firstEvent(overSse.response);
    expect(refusal.data).toBeUndefined();
    expect(refusal.errors).toMatchObject([
      {
        message: expect.stringMatching(/SUBSCRIPTIONS_PER_ORGANIZATION/),
        extensions: { code: 'TOO_MANY_SUBSCRIPTIONS' },
      },
    ]);
    overSse.abort();
    // Only the subscriptions admitted follow the batch: the refused ones ran nothing.
    expect(server.services.events.subscriberCount).toBe(PER_ORGANIZATION);

    // The quiet organization subscribes as usual, over graphql-ws and SSE.
    const quietSocket = open(eagerClient(server, quiet.apiKey));
    await expectFollowing(wsSubscription(quietSocket, quietBatch).first);
    const quietSse = await sseCall(server, quiet.apiKey, PROGRESS, { id: quietBatch });
    streams.push(quietSse.abort);
    expect((await firstEvent(quietSse.response)).data).toEqual({ batchProgress: { status: 'PENDING' } });

    // A completed subscription gives its slot back; so does a closed connection, for each of its own.
    held[0]!.stop();
    await expectFollowing(wsSubscription(first, noisyBatch).first);
    expectTooMany(await wsSubscription(second, noisyBatch).first, /SUBSCRIPTIONS_PER_ORGANIZATION/);
    await first.dispose();
    // Its three slots come back once the server has seen it close.
    const third = open(eagerClient(server, noisy.apiKey));
    const admitted = async (client: Client) => 'result' in (await wsSubscription(client, noisyBatch).first);
    await expect.poll(() => admitted(third), { interval: 20 }).toBe(true);
    const afterClose = await sseCall(server, noisy.apiKey, PROGRESS, { id: noisyBatch });
    streams.push(afterClose.abort);
    expect((await firstEvent(afterClose.response)).data).toEqual({ batchProgress: { status: 'PENDING' } });
    await expectFollowing(wsSubscription(third, noisyBatch).first);
    expectTooMany(await wsSubscription(third, noisyBatch).first, /SUBSCRIPTIONS_PER_ORGANIZATION/);
    // An SSE subscription's slot goes with its response.
    afterClose.abort();
    await expect.poll(() => admitted(third), { interval: 20 }).toBe(true);
    expectTooMany(await wsSubscription(third, noisyBatch).first, /SUBSCRIPTIONS_PER_CONNECTION/);
  });

  it('refuses a key beyond API_KEYS_PER_ORGANIZATION with CONFLICT, and issues again once one is revoked', async () => {
    const create = (owner: Tenant, name: string) =>
      server.graphql(owner.apiKey, 'mutation($n: String) { createApiKey(name: $n) { apiKeyId apiKey } }', { n: name });
    // The initial key and two more.
    const issued = [];
    for (let index = 1; index < KEYS; index++) {
      const { body } = await create(noisy, `key ${index}`);
      expect(body.errors).toBeUndefined();
      issued.push(body.data.createApiKey);
    }
    const refused = await create(noisy, 'one too many');
    expect(refused.body.data).toBeNull();
    expect(refused.body.errors).toMatchObject([
      {
        message: expect.stringMatching(/has 3 active API keys, the most it may have \(API_KEYS_PER_ORGANIZATION\)/),
        extensions: { code: 'CONFLICT', status: 409, detail: { rule: 'API_KEYS_PER_ORGANIZATION', limit: KEYS } },
      },
    ]);
    expect(await server.db.prisma.apiKey.count({ where: { organizationId: noisy.organizationId } })).toBe(KEYS);

    // Another organization's count is its own.
    expect((await create(quiet, 'quiet')).body.errors).toBeUndefined();

    // Revoked keys do not count.
    const revoked = await server.graphql(noisy.apiKey, 'mutation($id: ID!) { revokeApiKey(id: $id) { id } }', {
      id: issued[0].apiKeyId,
    });
    expect(revoked.body.errors).toBeUndefined();
    expect((await create(noisy, 'replacement')).body.errors).toBeUndefined();
    expect((await create(noisy, 'again too many')).body.errors).toMatchObject([{ extensions: { code: 'CONFLICT' } }]);
  });

  it('refuses keys issued at once past the cap: each issue counts those committed before it', async () => {
    const crowd = await tenant(server, 'Crowd');
    const results = await Promise.allSettled(
      Array.from({ length: 6 }, () => issueApiKey(server.db.prisma, crowd.organizationId, { maxActiveKeys: KEYS })),
    );
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(KEYS - 1);
    expect(await server.db.prisma.apiKey.count({ where: { organizationId: crowd.organizationId } })).toBe(KEYS);
  });
});

describe.runIf(process.env.TEST_REDIS_URL)('one quota per organization across instances (Redis)', () => {
  let first: TestServer;
  let second: TestServer;
  const shared = { perOrganization: 6, agentUpdate: 2, windowMs: WINDOW_MS };
  beforeAll(async () => {
    first = await startTestServer({ rateLimits: shared, redisUrl: process.env.TEST_REDIS_URL });
    second = await startTestServer({ rateLimits: shared, redisUrl: process.env.TEST_REDIS_URL, sharing: first });
  });
  afterAll(async () => {
    await second.close();
    await first.close();
  });

  it("shares the organization's quota between HTTP on one instance, graphql-ws on the other, and all its keys", async () => {
    const noisy = await tenant(first, 'Noisy');
    const quiet = await tenant(first, 'Quiet');
    const otherKey = (await issueApiKey(first.db.prisma, noisy.organizationId)).apiKey;
    const socket = eagerClient(second, otherKey);
    for (let request = 0; request < 3; request++) {
      expect((await noisy.rest('GET', '/org/{org}/sip-trunks')).status).toBe(200);
      expect(await wsOperation(socket, CREATE_TAG, { name: `tag ${request}` })).toMatchObject({
        result: { data: { createTag: { id: expect.any(String) } } },
      });
    }
    expectRateLimitedOverWebSocket(await wsOperation(socket, CREATE_TAG, { name: 'never' }));
    expectErrorBody(await noisy.rest('GET', '/org/{org}/sip-trunks'), 429);
    expectErrorBody(await restClient(second, noisy.organizationId, otherKey)('GET', '/org/{org}/sip-trunks'), 429);
    expect(await tagsOf(first, noisy.organizationId)).toBe(3);
    // The quiet organization, on either instance, has its whole quota.
    const quietRest = restClient(second, quiet.organizationId, quiet.apiKey);
    const answered = await quietRest('GET', '/org/{org}/sip-trunks');
    expect(answered.status).toBe(200);
    expect(answered.headers.get('x-ratelimit-remaining')).toBe(String(shared.perOrganization - 1));
    await socket.dispose();
  });
});
