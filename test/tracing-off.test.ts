// Traces are off without OTEL_* variables: no SDK registered, no ids in the
// log line, no traceparent sent. (test/tracing.test.ts turns them on in its
// own process.)
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTracing } from '../src/observability/tracing.ts';
import { batchIn } from './support/batch-checks.ts';
import { eventually, flows } from './support/flows.ts';
import { startTestServer, type TestServer } from './support/server.ts';
import { startReceiver } from './support/webhook-receiver.ts';

describe('without OTEL_* variables', () => {
  let server: TestServer;
  const logLines: Record<string, unknown>[] = [];
  beforeAll(async () => {
    for (const name of Object.keys(process.env)) if (name.startsWith('OTEL_')) delete process.env[name];
    const stream = new Writable({
      write(chunk, _encoding, done) {
        for (const line of String(chunk).split('\n').filter(Boolean)) logLines.push(JSON.parse(line));
        done();
      },
    });
    server = await startTestServer({ log: { level: 'info', stream }, engine: {}, webhooks: { deliver: true } });
  });
  afterAll(() => server.close());

  it('registers no SDK, logs no trace ids and sends no traceparent', async () => {
    const tracing = await startTracing(process.env);
    expect(tracing.fastifyPlugin).toBeNull();
    expect(tracing.graphqlPlugin).toBeNull();
    // @opentelemetry/api keeps its registrations here once anything registers.
    expect((globalThis as Record<symbol, unknown>)[Symbol.for('opentelemetry.js.api.1')]).toBeUndefined();

    const receiver = await startReceiver();
    try {
      const { apiKey } = await server.createOrganization();
      const api = flows(server, apiKey);
      await api.ok(
        `mutation($input: WebhookEndpointCreateInput!) { createWebhookEndpoint(input: $input) { secret } }`,
        {
          input: { url: receiver.url, events: ['batch.finished'] },
        },
      );
      const batchId = await api.batch(
        await api.workflow([{ id: 'pause', type: 'wait', seconds: 0.01 }]),
        await api.prospects(1),
      );
      expect((await batchIn(server.db, batchId, ['FINISHED', 'FAILED'])).status).toBe('FINISHED');
      const delivered = await eventually(async () =>
        receiver.received.find((request) => request.body.includes(batchId)),
      );
      expect(delivered.headers.traceparent).toBeUndefined();
    } finally {
      await receiver.close();
    }
    const requests = logLines.filter((line) => line.msg === 'request');
    expect(requests.length).toBeGreaterThan(0);
    for (const line of requests) expect(line).not.toHaveProperty('traceId');
  });
});
