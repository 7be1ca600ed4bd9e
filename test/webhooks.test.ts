// Webhook endpoints through the real server, with a real HTTP receiver that
// verifies every delivery with the `standardwebhooks` package: the event
// catalog (each event's data is what GET answers for its object), retries
// with the same webhook-id, order per endpoint and object, replay, rotation,
// refused private addresses, disabling an endpoint that keeps failing, the
// outbox written in the change's transaction (or not at all), metrics.
import { afterEach, describe, expect, it } from 'vitest';
import { defaultWebhookSettings } from '../src/config/webhook-settings.ts';
import { ConfigError, loadConfig } from '../src/config.ts';
import { Outbox } from '../src/domain/webhook-events.ts';
import { eventually, flows } from './support/flows.ts';
import { ManualClock } from './support/manual-clock.ts';
import { expectErrorBody, restClient } from './support/rest.ts';
import { startTestServer, type TestServer, type TestServerOptions } from './support/server.ts';
import { type Receiver, startReceiver } from './support/webhook-receiver.ts';

type Rest = ReturnType<typeof restClient>;

interface World {
  server: TestServer;
  /** More receivers, closed with the world. */
  receivers: Receiver[];
  rest: Rest;
  api: ReturnType<typeof flows>;
  organizationId: string;
  apiKey: string;
  receiver: Receiver;
}

const worlds: World[] = [];
afterEach(async () => {
  for (const world of worlds.splice(0)) {
    await world.server.close();
    for (const receiver of [world.receiver, ...world.receivers]) await receiver.close();
  }
});

async function world(options: TestServerOptions = {}): Promise<World> {
  const server = await startTestServer({ ...options, webhooks: { deliver: true, ...options.webhooks } });
  const receiver = await startReceiver();
  const { organizationId, apiKey } = await server.createOrganization();
  const created = {
    server,
    receiver,
    receivers: [],
    organizationId,
    apiKey,
    rest: restClient(server, organizationId, apiKey),
    api: flows(server, apiKey),
  };
  worlds.push(created);
  return created;
}

/** Another receiver, closed with the world. */
async function anotherReceiver(of: World) {
  const receiver = await startReceiver();
  of.receivers.push(receiver);
  return receiver;
}

async function endpoint(rest: Rest, url: string, events: string[] = ['*']) {
  const created = await rest('POST', '/org/{org}/webhook-endpoints', {
    body: { url, events, description: 'test receiver' },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body as { id: string; secret: string };
}

/** A batch that waits (scheduled far away): only its client moves change it. */
async function waitingBatch(api: World['api']) {
  const workflowId = await api.workflow([{ id: 'dial', type: 'call' }]);
  const prospectIds = await api.prospects(2);
  return api.batch(workflowId, prospectIds, { scheduledAt: '2099-01-01T00:00:00Z' });
}

const verifiedOf = (receiver: Receiver, secret: string, count: number, what = `${count} verified deliveries`) =>
  eventually(
    async () => {
      const verified = receiver.verified(secret);
      return verified.length >= count ? verified : undefined;
    },
    20_000,
    what,
  );

describe('webhook endpoints', () => {
  it('are created with a secret shown once (kept sealed for an Idempotency-Key replay), listed, read, changed and deleted', async () => {
    const { rest, server, receiver } = await world();
    const key = { 'idempotency-key': 'create-endpoint-1' };
    const body = { url: receiver.url, events: ['batch.status_changed', 'run.finished'], description: 'CRM' };
    const created = await rest('POST', '/org/{org}/webhook-endpoints', { body, headers: key });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      url: receiver.url,
      events: ['batch.status_changed', 'run.finished'],
      description: 'CRM',
      enabled: true,
    });
    expect(created.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(created.body.id).toMatch(/^whe_/);
    // The answer kept for the key holds the secret sealed, never in the clear; the replay shows it.
    const records = await server.db.prisma.idempotencyRecord.findMany();
    expect(JSON.stringify(records)).not.toContain(created.body.secret);
    expect(JSON.stringify(records)).not.toContain(created.body.secret.slice(6, 30));
    const replayed = await rest('POST', '/api/org/{org}/webhook-endpoints', { body, headers: key });
    expect(replayed.status).toBe(201);
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    expect(replayed.body).toEqual(created.body);

    const { secret, ...shown } = created.body;
    expect(secret).toBeDefined();
    expect((await rest('GET', `/org/{org}/webhook-endpoints/${shown.id}`)).body).toEqual(shown);
    expect((await rest('GET', '/org/{org}/webhook-endpoints')).body).toEqual({ data: [shown] });
    const changed = await rest('PATCH', `/org/{org}/webhook-endpoints/${shown.id}`, {
      body: { events: ['*'], description: 'all' },
    });
    expect(changed.body).toMatchObject({ events: ['*'], description: 'all', url: receiver.url });
    expect(JSON.stringify(changed.body)).not.toContain('whsec_');
    expectErrorBody(
      await rest('PATCH', `/org/{org}/webhook-endpoints/${shown.id}`, { body: { events: ['batch.exploded'] } }),
      400,
    );
    expectErrorBody(
      await rest('POST', '/org/{org}/webhook-endpoints', { body: { url: receiver.url, events: [] } }),
      400,
    );
    expectErrorBody(
      await rest('POST', '/org/{org}/webhook-endpoints', { body: { url: 'not a url', events: ['*'] } }),
      400,
    );

    expect((await rest('DELETE', `/org/{org}/webhook-endpoints/${shown.id}`)).body).toEqual({});
    expectErrorBody(await rest('GET', `/org/{org}/webhook-endpoints/${shown.id}`), 404);
    expectErrorBody(await rest('DELETE', `/org/{org}/webhook-endpoints/${shown.id}`), 404);
  });
  it('are the same in GraphQL: webhookEndpoints, webhookEndpoint { deliveries }, node, and the mutations', async () => {
    const { server, apiKey, api, receiver } = await world();
    const ok = api.ok;
    const { createWebhookEndpoint: created } = await ok(
      `mutation($input: WebhookEndpointCreateInput!) { createWebhookEndpoint(input: $input) { secret endpoint { id url events enabled } } }`,
      { input: { url: receiver.url, events: ['batch.status_changed'], description: 'GraphQL' } },
    );
    expect(created).toMatchObject({
      secret: expect.stringMatching(/^whsec_/),
      endpoint: { url: receiver.url, events: ['batch.status_changed'], enabled: true },
    });
    await api.setStatus(await waitingBatch(api), 'PAUSED');
    const [delivered] = await verifiedOf(receiver, created.secret, 1);
    const read = await eventually(async () => {
      const data = await ok(
        `query($id: ID!) { webhookEndpoints { totalCount nodes { id } } webhookEndpoint(id: $id) { description
          deliveries { totalCount nodes { id eventId eventType status attempts lastResponseCode } } }
          node(id: $id) { __typename id } }`,
        { id: created.endpoint.id },
      );
      return data.webhookEndpoint.deliveries.nodes[0]?.status === 'delivered' ? data : undefined;
    });
    expect(read.webhookEndpoints).toEqual({ totalCount: 1, nodes: [{ id: created.endpoint.id }] });
    expect(read.node).toEqual({ __typename: 'WebhookEndpoint', id: created.endpoint.id });
    const [delivery] = read.webhookEndpoint.deliveries.nodes;
    expect(delivery).toMatchObject({
      eventId: delivered!.id,
      eventType: 'batch.status_changed',
      attempts: 1,
      lastResponseCode: 204,
    });
    const { replayWebhookDelivery: replayed } = await ok(
      `mutation($id: ID!) { replayWebhookDelivery(id: $id) { id status } }`,
      { id: delivery.id },
    );
    expect(replayed).toEqual({ id: delivery.id, status: 'pending' });
    await verifiedOf(receiver, created.secret, 2);
    const { updateWebhookEndpoint: updated } = await ok(
      `mutation($id: ID!, $input: WebhookEndpointUpdateInput!) { updateWebhookEndpoint(id: $id, input: $input) { enabled events } }`,
      { id: created.endpoint.id, input: { enabled: false, events: ['*'] } },
    );
    expect(updated).toEqual({ enabled: false, events: ['*'] });
    const { rotateWebhookEndpointSecret: rotated } = await ok(
      `mutation($id: ID!) { rotateWebhookEndpointSecret(id: $id) { secret } }`,
      { id: created.endpoint.id },
    );
    expect(rotated.secret).not.toBe(created.secret);
    expect(await ok(`mutation($id: ID!) { deleteWebhookEndpoint(id: $id) }`, { id: created.endpoint.id })).toEqual({
      deleteWebhookEndpoint: created.endpoint.id,
    });
    const missing = await server.graphql(apiKey, `mutation($id: ID!) { deleteWebhookEndpoint(id: $id) }`, {
      id: created.endpoint.id,
    });
    expect(missing.body.errors[0].extensions.code).toBe('NOT_FOUND');
  });
});

describe('events', () => {
  it("a batch's client moves: one batch.status_changed each, signed, its data what GET /batches/{id} answers", async () => {
    const { rest, api, receiver } = await world();
    const { secret } = await endpoint(rest, receiver.url, ['batch.status_changed']);
    const batchId = await waitingBatch(api);
    await api.setStatus(batchId, 'PAUSED');
    const [paused] = await verifiedOf(receiver, secret, 1);
    const shown = (await rest('GET', `/org/{org}/batches/${batchId}`)).body;
    expect(shown.status).toBe('PAUSED');
    expect(paused!.payload).toEqual({ type: 'batch.status_changed', timestamp: expect.any(String), data: shown });
    expect(paused!.id).toMatch(/^evt_[0-9a-f]{36}$/);
    // The body's members in the documented order.
    expect(Object.keys(JSON.parse(receiver.received[0]!.body))).toEqual(['type', 'timestamp', 'data']);

    await api.setStatus(batchId, 'PENDING');
    await api.setStatus(batchId, 'CANCELLED');
    const all = await verifiedOf(receiver, secret, 3);
    expect(all.map(({ payload }) => payload.data.status)).toEqual(['PAUSED', 'PENDING', 'CANCELLED']);
    // The ids of one object's events sort in the order of its changes.
    expect(all.map(({ id }) => id)).toEqual(all.map(({ id }) => id).sort());
    expect(receiver.received).toHaveLength(3);
  });

  it('the engine: run.status_changed, call.attempt_ended, run.finished / run.failed, batch.status_changed and batch.finished, in order per object', async () => {
    const engine = { callMs: 5, outcomes: { answered: 0.5, busy: 0.5 } };
    const { rest, api, server, receiver } = await world({ engine });
    const { secret } = await endpoint(rest, receiver.url);
    const workflowId = await api.workflow([{ id: 'dial', type: 'call' }]);
    const prospectIds = await api.prospects(6);
    const batchId = await api.batch(workflowId, prospectIds);
    const finished = await eventually(async () => {
      const batch = (await rest('GET', `/org/{org}/batches/${batchId}`)).body;
      return batch.status === 'FINISHED' || batch.status === 'FAILED' ? batch : undefined;
    });
    // The batch's three (IN_PROGRESS, its end twice); each run's four (IN_PROGRESS, its attempt, its end twice).
    const events = await verifiedOf(receiver, secret, 3 + 6 * 4);
    // Once no delivery is pending, nothing more is sent.
    const pending = () => server.db.prisma.webhookDelivery.count({ where: { status: 'pending' } });
    await eventually(async () => ((await pending()) === 0 ? true : undefined));
    expect(receiver.received).toHaveLength(3 + 6 * 4);

    const ofBatch = events.filter(({ payload }) => payload.data.id === batchId);
    expect(ofBatch.map(({ payload }) => [payload.type, payload.data.status])).toEqual([
      ['batch.status_changed', 'IN_PROGRESS'],
      ['batch.status_changed', finished.status],
      ['batch.finished', finished.status],
    ]);
    expect(ofBatch.at(-1)!.payload.data).toEqual(finished);

    for (const runId of new Set(
      events.filter(({ payload }) => payload.type.startsWith('run.')).map(({ payload }) => payload.data.id),
    )) {
      const ofRun = events.filter(({ payload }) => payload.data.id === runId || payload.data.run_id === runId);
      const run = (await rest('GET', `/org/{org}/runs/${runId}`)).body;
      const ended = run.status === 'FINISHED' ? 'run.finished' : 'run.failed';
      expect(ofRun.map(({ payload }) => payload.type)).toEqual([
        'run.status_changed',
        'call.attempt_ended',
        'run.status_changed',
        ended,
      ]);
      expect(ofRun[0]!.payload.data.status).toBe('IN_PROGRESS');
      expect(ofRun[1]!.payload.data).toEqual({
        ...run.call_attempts[0],
        run_id: runId,
        batch_id: batchId,
        prospect_id: run.prospect_id,
      });
      expect(ofRun[3]!.payload.data).toEqual(run);
      // Delivered in the order they happened, their ids in that order.
      expect(ofRun.map(({ id }) => id)).toEqual(ofRun.map(({ id }) => id).sort());
    }
  });

  it('agent.updated (E1 and the tools), integration.connected: data as GET answers', async () => {
    const { rest, api, receiver } = await world();
    const { secret } = await endpoint(rest, receiver.url, ['agent.updated', 'integration.connected']);
    const agentId = await api.agent();
    const updated = await rest('PATCH', `/org/{org}/agents/${agentId}`, {
      body: { name: 'Ava', llm_config: { provider: 'openai', model: 'gpt-4o', temperature: 0.2 } },
    });
    expect(updated.status).toBe(200);
    await api.ok(
      `mutation($a: ID!) { setAgentTools(agentId: $a, tools: [{ name: "lookup", url: "https://crm.example/lookup", parameters: [{ name: "q" }] }]) { id } }`,
      {
        a: agentId,
      },
    );
    const connected = await rest('POST', '/org/{org}/integrations', {
      body: { slug: 'slack', credentials: { bot_token: 'xoxb-1' }, settings: { channel: '#calls' } },
    });
    expect(connected.status).toBe(201);
    // Events of one object arrive in order; those of different objects may pass each other.
    const delivered = await verifiedOf(receiver, secret, 3);
    const [renamed, tooled] = delivered.filter((event) => event.payload.type === 'agent.updated');
    const integration = delivered.find((event) => event.payload.type === 'integration.connected');
    expect(renamed!.payload.type).toBe('agent.updated');
    expect(renamed!.payload.data).toMatchObject({
      id: agentId,
      name: 'Ava',
      llm_config: { provider: 'openai', model: 'gpt-4o', temperature: 0.2 },
      tools: [],
    });
    expect(tooled!.payload.data).toEqual((await rest('GET', `/org/{org}/agents/${agentId}`)).body);
    expect(integration!.payload).toMatchObject({
      type: 'integration.connected',
      data: (await rest('GET', `/org/{org}/integrations/${connected.body.id}`)).body,
    });
    expect(JSON.stringify(integration!.payload)).not.toContain('xoxb-1');
  });

  it('are written only where an endpoint subscribes: no endpoint, no event row (the outbox statement is the check)', async () => {
    const { rest, api, server, receiver } = await world({ engine: { callMs: 5 } });
    await endpoint(rest, receiver.url, ['agent.updated']);
    const workflowId = await api.workflow([{ id: 'dial', type: 'call' }]);
    const batchId = await api.batch(workflowId, await api.prospects(3));
    await eventually(async () =>
      (await rest('GET', `/org/{org}/batches/${batchId}`)).body.status === 'FINISHED' ? true : undefined,
    );
    expect(await server.db.prisma.webhookEvent.count()).toBe(0);
    expect(await server.db.prisma.webhookDelivery.count()).toBe(0);
  });

  it('are written in the transaction of their change: rolled back with it', async () => {
    const { rest, api, server, receiver, organizationId } = await world();
    await endpoint(rest, receiver.url);
    const batchId = await waitingBatch(api);
    await expect(
      server.db.prisma.$transaction(async (tx) => {
        await new Outbox().batchMoved(organizationId, batchId, 'PAUSED').write(tx, new Date());
        expect(await tx.webhookEvent.count()).toBe(1);
        expect(await tx.webhookDelivery.count()).toBe(1);
        throw new Error('the change failed');
      }),
    ).rejects.toThrow('the change failed');
    expect(await server.db.prisma.webhookEvent.count()).toBe(0);
    expect(await server.db.prisma.webhookDelivery.count()).toBe(0);
    expect(receiver.received).toHaveLength(0);
    // A later change's events are delivered, and they are all the receiver gets: the rolled-back one never went out.
    await api.setStatus(batchId, 'CANCELLED');
    const delivered = await eventually(async () => {
      const deliveries = await server.db.prisma.webhookDelivery.findMany();
      const settled = deliveries.length > 0 && deliveries.every((delivery) => delivery.status === 'delivered');
      return settled ? deliveries : undefined;
    });
    const sentIds = receiver.received.map((request) => request.headers['webhook-id']);
    expect(sentIds.sort()).toEqual(delivered.map((delivery) => delivery.eventId).sort());
  });
});

describe('deliveries', () => {
  it('a receiver that fails twice then succeeds gets the event three times, with the same webhook-id; the deliveries list says so', async () => {
    const { rest, api, receiver } = await world({ webhooks: { retryScheduleMs: [100, 200, 60_000] } });
    receiver.answer = (_request, index) => (index < 2 ? 503 : 200);
    const { id: endpointId, secret } = await endpoint(rest, receiver.url, ['batch.status_changed']);
    const batchId = await waitingBatch(api);
    await api.setStatus(batchId, 'PAUSED');
    const attempts = await verifiedOf(receiver, secret, 3);
    expect(new Set(attempts.map(({ id }) => id)).size).toBe(1);
    expect(attempts.map(({ payload }) => payload)).toEqual([
      attempts[0]!.payload,
      attempts[0]!.payload,
      attempts[0]!.payload,
    ]);
    // The schedule's waits between them (100 ms, then 200 ms).
    const [first, second, third] = receiver.received.map((request) => request.at);
    expect(second! - first!).toBeGreaterThanOrEqual(90);
    expect(third! - second!).toBeGreaterThanOrEqual(190);

    const listed = await eventually(async () => {
      const page = (await rest('GET', `/org/{org}/webhook-endpoints/${endpointId}/deliveries`)).body;
      return page.data[0]?.status === 'delivered' ? page : undefined;
    });
    expect(listed).toEqual({
      data: [
        {
          id: expect.stringMatching(/^dlv_/),
          event_id: attempts[0]!.id,
          event_type: 'batch.status_changed',
          endpoint_id: endpointId,
          status: 'delivered',
          attempts: 3,
          last_response_code: 200,
          last_error: null,
          latency_ms: expect.any(Number),
          next_attempt_at: null,
          created_at: expect.any(String),
          delivered_at: expect.any(String),
        },
      ],
      pagination: { page: 1, limit: 20, total: 1, total_pages: 1 },
    });
  });

  it('a delivery that fails every attempt is failed (the answer and error kept); a replay sends it again with the same webhook-id', async () => {
    const { rest, api, receiver } = await world({ webhooks: { retryScheduleMs: [50] } });
    receiver.answer = (_request, index) => (index < 2 ? 500 : 204);
    const { id: endpointId, secret } = await endpoint(rest, receiver.url);
    await api.setStatus(await waitingBatch(api), 'PAUSED');
    const failed = await eventually(async () => {
      const [delivery] = (await rest('GET', `/org/{org}/webhook-endpoints/${endpointId}/deliveries`)).body.data;
      return delivery?.status === 'failed' ? delivery : undefined;
    });
    expect(failed).toMatchObject({
      attempts: 2,
      last_response_code: 500,
      last_error: 'answered 500',
      next_attempt_at: null,
      delivered_at: null,
    });
    // Failed is final: nothing is left to send until the replay.
    expect(receiver.received).toHaveLength(2);

    const replayed = await rest('POST', `/org/{org}/webhook-deliveries/${failed.id}/replay`);
    expect(replayed.status).toBe(200);
    expect(replayed.body).toMatchObject({ id: failed.id, status: 'pending', attempts: 0 });
    const [, , again] = await verifiedOf(receiver, secret, 3);
    expect(again!.id).toBe(failed.event_id);
    expect(receiver.received.map((request) => request.headers['webhook-id'])).toEqual([
      failed.event_id,
      failed.event_id,
      failed.event_id,
    ]);
    await eventually(async () => {
      const [delivery] = (await rest('GET', `/org/{org}/webhook-endpoints/${endpointId}/deliveries`)).body.data;
      return delivery.status === 'delivered' && delivery.attempts === 1 ? true : undefined;
    });
    expectErrorBody(
      await rest('POST', '/org/{org}/webhook-deliveries/dlv_00000000000000000000000000000000/replay'),
      404,
    );
  });

  it('keep the order of one object per endpoint: a newer event waits while an older one is retried', async () => {
    // The retry comes when the test moves the clock, not 300 ms after the failure, whatever the machine's load.
    const clock = new ManualClock('2030-01-07T12:00:00.000Z');
    const { rest, api, server, receiver } = await world({ webhooks: { clock, retryScheduleMs: [300, 300] } });
    receiver.answer = (_request, index) => (index === 0 ? 500 : 204);
    const { secret } = await endpoint(rest, receiver.url, ['batch.status_changed']);
    const batchId = await waitingBatch(api);
    const otherBatchId = await waitingBatch(api);
    await api.setStatus(batchId, 'PAUSED');
    await eventually(async () => (receiver.received.length === 1 ? true : undefined));
    await api.setStatus(batchId, 'PENDING');
    await api.setStatus(otherBatchId, 'PAUSED');
    await eventually(async () => (receiver.received.length === 2 ? true : undefined));
    // Once the failure is recorded, its retry due 300 ms later on this clock.
    const failed = () => server.db.prisma.webhookDelivery.count({ where: { lastResponseCode: 500 } });
    await eventually(async () => ((await failed()) === 1 ? true : undefined));
    clock.advance(300);
    const delivered = await verifiedOf(receiver, secret, 4);
    const statuses = delivered.map(
      ({ payload }) => `${payload.data.id === batchId ? 'first' : 'other'} ${payload.data.status}`,
    );
    // The other batch's event does not wait; the first batch's resume waits for its pause to be delivered.
    expect(statuses).toEqual(['first PAUSED', 'other PAUSED', 'first PAUSED', 'first PENDING']);
  });

  it('are signed with the current secret: after a rotation the old one no longer verifies', async () => {
    const { rest, api, receiver } = await world();
    const { id, secret: old } = await endpoint(rest, receiver.url, ['batch.status_changed']);
    const batchId = await waitingBatch(api);
    await api.setStatus(batchId, 'PAUSED');
    await verifiedOf(receiver, old, 1);
    const rotated = await rest('POST', `/org/{org}/webhook-endpoints/${id}/rotate-secret`);
    expect(rotated.status).toBe(200);
    expect(rotated.body).toMatchObject({ id, url: receiver.url, secret: expect.stringMatching(/^whsec_/) });
    expect(rotated.body.secret).not.toBe(old);
    await api.setStatus(batchId, 'PENDING');
    await verifiedOf(receiver, rotated.body.secret, 1);
    expect(receiver.received).toHaveLength(2);
    expect(receiver.verified(old).map(({ payload }) => payload.data.status)).toEqual(['PAUSED']);
    expect(receiver.verified(rotated.body.secret).map(({ payload }) => payload.data.status)).toEqual(['PENDING']);
    expect((await rest('GET', `/org/{org}/webhook-endpoints/${id}`)).body).not.toHaveProperty('secret');
  });

  it('report to /metrics: deliveries by outcome, their latency, the outbox depth', async () => {
    const { server, rest, api, receiver } = await world({ webhooks: { retryScheduleMs: [60_000] } });
    receiver.answer = () => 500;
    await endpoint(rest, receiver.url, ['batch.status_changed']);
    await api.setStatus(await waitingBatch(api), 'PAUSED');
    await eventually(async () => (receiver.received.length === 1 ? true : undefined));
    const metrics = await eventually(async () => {
      const text = await server.metrics();
      return text.includes('gateway_webhook_deliveries_total{outcome="retrying"} 1') ? text : undefined;
    });
    expect(metrics).toMatch(/gateway_webhook_delivery_duration_seconds_count 1\b/);
    expect(metrics).toMatch(/gateway_webhook_outbox_depth 1\b/);
  });
});

describe('safety', () => {
  it('refuses, with WEBHOOK_ALLOW_PRIVATE off, URLs whose host is or resolves to a loopback, private, link-local or metadata address; http without WEBHOOK_ALLOW_HTTP', async () => {
    const { rest } = await world({ webhooks: { allowPrivate: false, allowHttp: false } });
    for (const url of [
      'https://127.0.0.1/hook',
      'https://localhost:8443/hook',
      'https://[::1]/hook',
      'https://10.1.2.3/hook',
      'https://192.168.0.10/hook',
      'https://169.254.169.254/latest/meta-data',
      'https://[fd00:ec2::254]/latest',
      'https://[::ffff:127.0.0.1]/hook',
      'https://100.100.100.200/hook',
    ]) {
      const refused = expectErrorBody(
        await rest('POST', '/org/{org}/webhook-endpoints', { body: { url, events: ['*'] } }),
        400,
      );
      expect(refused.error, url).toEqual([expect.objectContaining({ path: 'url', rule: 'public address' })]);
    }
    const http = expectErrorBody(
      await rest('POST', '/org/{org}/webhook-endpoints', { body: { url: 'http://203.0.113.7/hook', events: ['*'] } }),
      400,
    );
    expect(http.error).toEqual([expect.objectContaining({ path: 'url', rule: 'https' })]);
    const credentials = expectErrorBody(
      await rest('POST', '/org/{org}/webhook-endpoints', { body: { url: 'https://u:p@203.0.113.7/', events: ['*'] } }),
      400,
    );
    expect(credentials.error).toEqual([expect.objectContaining({ path: 'url' })]);
    // A public address is accepted (nothing is sent to it here).
    expect(
      (
        await rest('POST', '/org/{org}/webhook-endpoints', {
          body: { url: 'https://203.0.113.7/hook', events: ['agent.updated'] },
        })
      ).status,
    ).toBe(201);
    expectErrorBody(
      await rest(
        'PATCH',
        `/org/{org}/webhook-endpoints/${(await rest('GET', '/org/{org}/webhook-endpoints')).body.data[0].id}`,
        { body: { url: 'https://127.0.0.2/' } },
      ),
      400,
    );
  });

  it('checks the addresses again at each delivery: a name that resolves to a private address by then is refused, nothing sent', async () => {
    const { rest, api, server, receiver, organizationId } = await world({
      webhooks: { allowPrivate: false, retryScheduleMs: [] },
    });
    // As if `localhost` had resolved to a public address when the endpoint was created (DNS rebinding).
    const rebound = await server.db.prisma.webhookEndpoint.create({
      data: {
        organizationId,
        url: `http://localhost:${receiver.port}/hook`,
        events: ['*'],
        secretEncrypted: server.secrets.seal('whsec_AAAA'),
      },
    });
    await api.setStatus(await waitingBatch(api), 'PAUSED');
    const [delivery] = await eventually(async () => {
      const page = (await rest('GET', `/org/{org}/webhook-endpoints/${rebound.id}/deliveries`)).body.data;
      return page[0]?.status === 'failed' ? page : undefined;
    });
    expect(delivery.last_error).toBe('refused: localhost is not a public address');
    expect(delivery.last_response_code).toBeNull();
    expect(receiver.received).toHaveLength(0);
  });

  it('bounds each attempt: a hung receiver times out, a redirect is not followed, an endless answer is read up to 64 KiB', async () => {
    // Long enough for a loaded machine's answers (the redirect's, the endless one's first 64 KiB), short for a test.
    const current = await world({ webhooks: { timeoutMs: 3000, retryScheduleMs: [] } });
    const { rest, api, receiver } = current;
    const http = await import('node:http');
    // 200 and a body that never ends: the status counts once 64 KiB are read.
    const endless = http.createServer((_request, response) => {
      response.writeHead(200);
      const chunk = Buffer.alloc(16 * 1024, 'x');
      const timer = setInterval(() => response.write(chunk), 5);
      response.on('close', () => clearInterval(timer));
    });
    await new Promise<void>((resolve) => endless.listen(0, '127.0.0.1', resolve));
    try {
      const redirect = await anotherReceiver(current);
      receiver.answer = () => 'hang';
      redirect.answer = () => 302;
      const hung = await endpoint(rest, receiver.url, ['batch.status_changed']);
      const redirected = await endpoint(rest, redirect.url, ['batch.status_changed']);
      const streamed = await endpoint(rest, `http://127.0.0.1:${(endless.address() as { port: number }).port}/hook`, [
        'batch.status_changed',
      ]);
      await api.setStatus(await waitingBatch(api), 'PAUSED');
      const outcome = async (id: string) =>
        eventually(async () => {
          const [delivery] = (await rest('GET', `/org/{org}/webhook-endpoints/${id}/deliveries`)).body.data;
          return delivery && delivery.status !== 'pending' ? delivery : undefined;
        });
      expect(await outcome(hung.id)).toMatchObject({
        status: 'failed',
        last_error: 'no answer within 3000 ms',
        last_response_code: null,
      });
      expect(await outcome(redirected.id)).toMatchObject({
        status: 'failed',
        last_response_code: 302,
        last_error: 'answered 302 (redirects are not followed)',
      });
      expect(await outcome(streamed.id)).toMatchObject({ status: 'delivered', last_response_code: 200 });
      expect(redirect.received).toHaveLength(1);
    } finally {
      endless.closeAllConnections();
      await new Promise((resolve) => endless.close(resolve));
    }
  });
});

describe('an endpoint that keeps failing', () => {
  it('is disabled after WEBHOOK_DISABLE_AFTER without a success, its pending deliveries failed, with webhook_endpoint.disabled to the others', async () => {
    const clock = new ManualClock('2030-01-07T12:00:00.000Z');
    const current = await world({
      webhooks: { clock, disableAfterMs: 3_600_000, retryScheduleMs: [60_000, 60_000, 60_000] },
    });
    const { rest, api, server, receiver } = current;
    const watcher = await anotherReceiver(current);
    receiver.answer = () => 500;
    const failing = await endpoint(rest, receiver.url, ['batch.status_changed']);
    const { secret } = await endpoint(rest, watcher.url, ['webhook_endpoint.disabled']);
    const firstBatch = await waitingBatch(api);
    await api.setStatus(firstBatch, 'PAUSED');
    await eventually(async () => (receiver.received.length === 1 ? true : undefined));
    // The failure is recorded once its answer is back, after the receiver saw the request.
    const failingEndpoint = await eventually(async () => {
      const shown = (await rest('GET', `/org/{org}/webhook-endpoints/${failing.id}`)).body;
      return shown.failing_since ? shown : undefined;
    });
    expect(failingEndpoint).toMatchObject({ enabled: true, failing_since: '2030-01-07T12:00:00.000Z' });

    // Retried a minute later, and failing still: not yet an hour. Another event fails as well.
    clock.advance(60_000);
    await eventually(async () => (receiver.received.length === 2 ? true : undefined));
    await api.setStatus(await waitingBatch(api), 'PAUSED');
    await eventually(async () => (receiver.received.length === 3 ? true : undefined));
    expect((await rest('GET', `/org/{org}/webhook-endpoints/${failing.id}`)).body.enabled).toBe(true);

    // An hour after the first failure, the next one disables it.
    clock.advance(3_600_000);
    const [disabled] = await verifiedOf(watcher, secret, 1);
    expect(disabled!.payload).toMatchObject({
      type: 'webhook_endpoint.disabled',
      data: { id: failing.id, enabled: false, url: receiver.url },
    });
    const shown = (await rest('GET', `/org/{org}/webhook-endpoints/${failing.id}`)).body;
    expect(shown).toMatchObject({
      enabled: false,
      failing_since: '2030-01-07T12:00:00.000Z',
      disabled_at: '2030-01-07T13:01:00.000Z',
    });
    expect(disabled!.payload.data).toEqual(shown);
    const deliveries = (await rest('GET', `/org/{org}/webhook-endpoints/${failing.id}/deliveries`)).body.data;
    expect(
      deliveries.map((delivery: { status: string; last_error: string }) => [delivery.status, delivery.last_error]),
    ).toEqual([
      ['failed', 'the endpoint was disabled: failing since 2030-01-07T12:00:00.000Z'],
      ['failed', 'the endpoint was disabled: failing since 2030-01-07T12:00:00.000Z'],
    ]);
    // Nothing more is sent there, and a replay is refused until it is enabled again.
    const sent = receiver.received.length;
    clock.advance(600_000);
    await api.setStatus(firstBatch, 'PENDING');
    // The change's events were written in its transaction: none is pending for the disabled endpoint, so none is sent.
    const stillPending = { endpointId: failing.id, status: 'pending' } as const;
    expect(await server.db.prisma.webhookDelivery.count({ where: stillPending })).toBe(0);
    expect(receiver.received).toHaveLength(sent);
    expectErrorBody(await rest('POST', `/org/{org}/webhook-deliveries/${deliveries[0].id}/replay`), 409);
    const enabled = await rest('PATCH', `/org/{org}/webhook-endpoints/${failing.id}`, { body: { enabled: true } });
    expect(enabled.body).toMatchObject({ enabled: true, failing_since: null, disabled_at: null });
    receiver.answer = () => 204;
    expect((await rest('POST', `/org/{org}/webhook-deliveries/${deliveries[0].id}/replay`)).status).toBe(200);
    await eventually(async () => (receiver.received.length === sent + 1 ? true : undefined));
    expect(receiver.received.at(-1)!.headers['webhook-id']).toBe(deliveries[0].event_id);
  });
});

describe('settings', () => {
  it('are read from the environment: https only, no private address, the default schedule, 5 days, unless told otherwise', () => {
    expect(loadConfig({}).webhooks).toEqual(defaultWebhookSettings);
    expect(defaultWebhookSettings).toMatchObject({
      allowHttp: false,
      allowPrivate: false,
      retryScheduleMs: [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000],
      disableAfterMs: 5 * 86_400_000,
    });
    const given = loadConfig({
      WEBHOOK_ALLOW_HTTP: 'on',
      WEBHOOK_ALLOW_PRIVATE: 'on',
      WEBHOOK_RETRY_SCHEDULE_MS: '100, 2000',
      WEBHOOK_DISABLE_AFTER: '12h',
      WEBHOOK_TIMEOUT_MS: '2500',
    }).webhooks;
    expect(given).toEqual({
      allowHttp: true,
      allowPrivate: true,
      retryScheduleMs: [100, 2000],
      disableAfterMs: 43_200_000,
      timeoutMs: 2500,
    });
    expect(loadConfig({ WEBHOOK_DISABLE_AFTER: '90000' }).webhooks.disableAfterMs).toBe(90_000);
    expect(() => loadConfig({ WEBHOOK_RETRY_SCHEDULE_MS: '5s,10s' })).toThrow(ConfigError);
    expect(() => loadConfig({ WEBHOOK_DISABLE_AFTER: 'five days' })).toThrow(/WEBHOOK_DISABLE_AFTER/);
  });
});
