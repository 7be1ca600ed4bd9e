// Traces (OpenTelemetry), exported over OTLP/HTTP to a receiver in this test.
// Tracing is process-wide: this file turns it on for its own process (vitest
// runs each test file in a process of its own), as OTEL_EXPORTER_OTLP_ENDPOINT
// does for the gateway.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Dialer } from '../src/engine/dialer.ts';
import { startTracing, type Tracing, tracingConfigured } from '../src/observability/tracing.ts';
import { batchIn } from './support/batch-checks.ts';
import { eventually, flows } from './support/flows.ts';
import { restClient } from './support/rest.ts';
import { startTestServer, type TestServer } from './support/server.ts';
import { startReceiver } from './support/webhook-receiver.ts';

interface ExportedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  attributes: Record<string, unknown>;
  links: { traceId: string; spanId: string }[];
}

type OtlpValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number };
const otlpValue = (value: OtlpValue) =>
  value.stringValue ?? (value.intValue !== undefined ? Number(value.intValue) : (value.boolValue ?? value.doubleValue));
const attributesOf = (list: { key: string; value: OtlpValue }[] = []) =>
  Object.fromEntries(list.map(({ key, value }) => [key, otlpValue(value)]));

/** An OTLP/HTTP receiver: keeps every span of every JSON export request. */
async function startCollector() {
  const spans: ExportedSpan[] = [];
  const paths = new Set<string>();
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      paths.add(`${request.method} ${request.url} ${request.headers['content-type']}`);
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      for (const resource of body.resourceSpans ?? []) {
        for (const scope of resource.scopeSpans ?? []) {
          for (const span of scope.spans ?? []) {
            spans.push({
              traceId: span.traceId,
              spanId: span.spanId,
              parentSpanId: span.parentSpanId || undefined,
              name: span.name,
              attributes: { ...attributesOf(resource.resource?.attributes), ...attributesOf(span.attributes) },
              links: (span.links ?? []).map((link: { traceId: string; spanId: string }) => ({
                traceId: link.traceId,
                spanId: link.spanId,
              })),
            });
          }
        }
      }
      response.setHeader('content-type', 'application/json');
      response.end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    paths,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Whether `ancestor` is `span`'s parent, or its parent's, and so on. */
function descends(spans: ExportedSpan[], span: ExportedSpan, ancestor: ExportedSpan): boolean {
  for (
    let parent = span.parentSpanId;
    parent;
    parent = spans.find((candidate) => candidate.spanId === parent)?.parentSpanId
  ) {
    if (parent === ancestor.spanId) return true;
  }
  return false;
}

const isStatement = (span: ExportedSpan) => span.name === 'prisma:client:db_query' || span.name === 'db_query';

let collector: Awaited<ReturnType<typeof startCollector>>;
let traces: Tracing;

beforeAll(async () => {
  collector = await startCollector();
  process.env.OTEL_EXPORTER_OTLP_ENDPOINT = collector.url;
  process.env.OTEL_SERVICE_NAME = 'gateway-under-test';
  // Exported every 50 ms, not every 5 s: the test waits for them.
  process.env.OTEL_BSP_SCHEDULE_DELAY = '50';
  traces = await startTracing(process.env);
});
afterAll(async () => {
  await traces.shutdown();
  await collector.close();
});

describe('tracing configuration', () => {
  it('is off without OTEL_* variables, on with an endpoint or the otlp exporter, off when disabled', () => {
    expect(tracingConfigured({})).toBe(false);
    expect(tracingConfigured({ OTEL_SERVICE_NAME: 'x' })).toBe(false);
    expect(tracingConfigured({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe(true);
    expect(tracingConfigured({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' })).toBe(true);
    expect(tracingConfigured({ OTEL_TRACES_EXPORTER: 'otlp' })).toBe(true);
    expect(
      tracingConfigured({ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }),
    ).toBe(false);
    expect(tracingConfigured({ OTEL_SDK_DISABLED: 'true', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe(
      false,
    );
  });
});

describe('a GraphQL request', () => {
  let server: TestServer;
  const logLines: Record<string, unknown>[] = [];
  beforeAll(async () => {
    const stream = new Writable({
      write(chunk, _encoding, done) {
        for (const line of String(chunk).split('\n').filter(Boolean)) logLines.push(JSON.parse(line));
        done();
      },
    });
    server = await startTestServer({ log: { level: 'info', stream } });
  });
  afterAll(() => server.close());

  it('is one trace: the HTTP request, the operation under it, its SQL statements (without values) under the operation', async () => {
    const { apiKey } = await server.createOrganization();
    const api = flows(server, apiKey);
    const workflowId = await api.workflow([{ id: 'pause', type: 'wait', seconds: 1 }]);
    const prospects = await api.prospects(3);
    for (let index = 0; index < 2; index++) await api.batch(workflowId, prospects);
    const dashboard = `query Dashboard($w: ID!) { workflow(id: $w) { id name batches(first: 20) { edges { node {
      id status stats { totalCount } runs(first: 50) { edges { node { id status prospect { firstName phone } } } } } } } } }`;
    const { body } = await server.graphql(apiKey, dashboard, { w: workflowId });
    expect(body.errors).toBeUndefined();
    expect(body.data.workflow.batches.edges).toHaveLength(2);

    const operation = await eventually(async () => collector.spans.find((span) => span.name === 'query.Dashboard'));
    expect(operation.attributes).toMatchObject({
      'graphql.execute.operationName': 'Dashboard',
      'graphql.execute.operationType': 'query',
      // The cost GRAPHQL_MAX_COST bounds (src/graphql/operation-cost.ts): the values the answer may hold,
      // 2 + 1 + 1 + 20 × (2 + 2 + 2 + 1 + 1 + (2 + 1) + 50 × (2 + 2 + 2 + 1 + 1 + (2 + 1 + 1))).
      'graphql.operation.complexity': 12_224,
      'service.name': 'gateway-under-test',
    });
    // The request ends after the operation: its span is exported last.
    const request = await eventually(async () =>
      collector.spans.find(
        (span) => span.traceId === operation.traceId && span.name === 'POST /graphql' && !span.parentSpanId,
      ),
    );
    expect(request.attributes).toMatchObject({
      'http.request.method': 'POST',
      'http.route': '/graphql',
      'http.response.status_code': 200,
    });
    expect(descends(collector.spans, operation, request)).toBe(true);

    const trace = collector.spans.filter((span) => span.traceId === operation.traceId);
    expect(trace.filter((span) => !span.parentSpanId)).toEqual([request]);
    const statements = trace.filter(isStatement);
    const underOperation = statements.filter((span) => descends(trace, span, operation));
    // The workflow, its batches with their stats, their runs with their prospects.
    expect(underOperation.length).toBeGreaterThanOrEqual(3);
    expect(underOperation.map((span) => span.attributes['db.query.text']).join('\n')).toMatch(/"Run"/);
    // Outside the operation, only the API key's lookup (the context is made before the operation runs).
    for (const span of statements.filter((span) => !underOperation.includes(span))) {
      expect(span.attributes['db.query.text']).toMatch(/"ApiKey"/);
    }
    // Values travel as parameters, never in a statement's text.
    for (const span of statements) expect(String(span.attributes['db.query.text'])).not.toContain(workflowId);

    // The request's log line names its trace and span.
    const line = await eventually(async () =>
      logLines.find((entry) => entry.msg === 'request' && entry.traceId === operation.traceId),
    );
    expect(line).toMatchObject({ route: '/graphql', operation: 'Dashboard', spanId: request.spanId });
  });

  it('is one trace for a REST route too: the request named by its route, the route’s handler, the operation it runs, its statements', async () => {
    const { organizationId, apiKey } = await server.createOrganization();
    const response = await restClient(server, organizationId, apiKey)('GET', '/org/{org}/agents');
    expect(response.status).toBe(200);
    const request = await eventually(async () =>
      collector.spans.find((span) => span.name === 'GET /org/:org_id/agents'),
    );
    expect(request.attributes).toMatchObject({ 'http.route': '/org/:org_id/agents', 'http.response.status_code': 200 });
    const trace = collector.spans.filter((span) => span.traceId === request.traceId);
    const handler = trace.find((span) => span.name.startsWith('handler') && span.parentSpanId === request.spanId)!;
    expect(handler.attributes['http.route']).toBe('/org/:org_id/agents');
    expect(handler.name).toBe('handler - jsonRoutes');
    // REST's operations are unnamed: the span is named as logs and metrics name them, by the first root field.
    const operation = trace.find((span) => span.name === 'query.agents')!;
    expect(descends(trace, operation, handler)).toBe(true);
    expect(trace.filter(isStatement).some((span) => descends(trace, span, operation))).toBe(true);
  });

  it('continues the caller’s trace (W3C traceparent)', async () => {
    const { apiKey } = await server.createOrganization();
    const callerTrace = '4bf92f3577b34da6a3ce929d0e0e4736';
    const response = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-api-key': apiKey,
        traceparent: `00-${callerTrace}-00f067aa0ba902b7-01`,
      },
      body: JSON.stringify({ query: 'query Caller { workflows(first: 1) { totalCount } }' }),
    });
    expect(response.status).toBe(200);
    const operation = await eventually(async () => collector.spans.find((span) => span.name === 'query.Caller'));
    expect(operation.traceId).toBe(callerTrace);
  });
});

describe('the engine and the webhook worker', () => {
  let precall: http.Server;
  let precallUrl: string;
  const precallHeaders: http.IncomingHttpHeaders[] = [];
  beforeAll(async () => {
    precall = http.createServer((request, response) => {
      precallHeaders.push(request.headers);
      request.resume().on('end', () => response.setHeader('content-type', 'application/json').end('{"variables":{}}'));
    });
    await new Promise<void>((resolve) => precall.listen(0, '127.0.0.1', resolve));
    precallUrl = `http://127.0.0.1:${(precall.address() as AddressInfo).port}/precall`;
  });
  afterAll(() => new Promise<void>((resolve) => precall.close(() => resolve())));

  it('traces each attempt and each delivery on its own, linked to the request that created the batch; outgoing requests carry traceparent', async () => {
    const dialer: Dialer = { dial: async () => ({ outcome: 'answered', durationSeconds: 1, reason: null }) };
    const receiver = await startReceiver();
    const server = await startTestServer({ engine: { dialer }, webhooks: { deliver: true } });
    try {
      const { apiKey } = await server.createOrganization();
      const api = flows(server, apiKey);
      await api.ok(
        `mutation($input: WebhookEndpointCreateInput!) { createWebhookEndpoint(input: $input) { secret } }`,
        {
          input: { url: receiver.url, events: ['batch.finished'] },
        },
      );
      const agentId = await api.agent({
        precallWebhook: { method: 'POST', url: precallUrl, bodyTemplate: { run: '{{run.id}}' }, timeoutSeconds: 5 },
      });
      const workflowId = await api.workflow([{ id: 'dial', type: 'call', agent_id: agentId }]);
      const created = await api.ok(
        `mutation CreateBatch($w: ID!, $input: BatchCreateInput!) { createBatch(workflowId: $w, input: $input) { id } }`,
        {
          w: workflowId,
          input: { prospectIds: await api.prospects(1) },
        },
      );
      const batchId: string = created.createBatch.id;
      expect((await batchIn(server.db, batchId, ['FINISHED', 'FAILED'])).status).toBe('FINISHED');
      const creationTrace = (
        await eventually(async () => collector.spans.find((span) => span.name === 'mutation.CreateBatch'))
      ).traceId;
      // The link is stored with the batch: an instance that did not create it (or a restarted one) links to it too.
      const { traceparent } = await server.db.prisma.batch.findFirstOrThrow({ where: { id: batchId } });
      expect(traceparent).toMatch(new RegExp(`^00-${creationTrace}-[0-9a-f]{16}-01$`));

      const attempt = await eventually(async () =>
        collector.spans.find((span) => span.name === 'run.attempt' && span.attributes['batch.id'] === batchId),
      );
      expect(attempt.parentSpanId).toBeUndefined();
      expect(attempt.traceId).not.toBe(creationTrace);
      expect(attempt.links.map((link) => link.traceId)).toEqual([creationTrace]);
      const inAttempt = await eventually(async () => {
        const spans = collector.spans.filter((span) => span.traceId === attempt.traceId);
        return spans.some((span) => span.name === 'run.finish') ? spans : undefined;
      });
      expect(inAttempt.map((span) => span.name)).toEqual(
        expect.arrayContaining(['run.claim', 'run.precall_webhook', 'run.dial', 'run.finish']),
      );
      expect(inAttempt.filter(isStatement).length).toBeGreaterThan(0);

      // The pre-call request carries the attempt's trace, its precall span as the parent.
      const precallSpan = inAttempt.find((span) => span.name === 'run.precall_webhook')!;
      expect(precallHeaders.at(-1)!.traceparent).toBe(`00-${attempt.traceId}-${precallSpan.spanId}-01`);

      // The delivery of batch.finished: a trace of its own, linked to the batch's creation, its traceparent sent.
      const delivered = await eventually(async () =>
        receiver.received.find((request) => request.body.includes(batchId)),
      );
      const delivery = await eventually(async () =>
        collector.spans.find(
          (span) => span.name === 'webhook.deliver' && span.attributes['webhook.event_type'] === 'batch.finished',
        ),
      );
      expect(delivery.parentSpanId).toBeUndefined();
      expect(delivery.links.map((link) => link.traceId)).toEqual([creationTrace]);
      expect(delivered.headers.traceparent).toBe(`00-${delivery.traceId}-${delivery.spanId}-01`);
    } finally {
      await server.close();
      await receiver.close();
    }
  });
});
