import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from './support/flows.ts';
import { restClient } from './support/rest.ts';
import { startTestServer, type TestServer } from './support/server.ts';

describe('observability', () => {
  let server: TestServer;
  let logs = '';
  let org: { organizationId: string; apiKey: string };
  beforeAll(async () => {
    const stream = new PassThrough();
    stream.on('data', (chunk) => (logs += chunk));
    server = await startTestServer({ engine: { callMs: 5 }, log: { level: 'info', stream } });
    org = await server.createOrganization();
  });
  afterAll(() => server.close());

  const lines = () =>
    logs
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));

  it('logs one structured line per request: request id, organization, route, operation, status, latency', async () => {
    const rest = restClient(server, org.organizationId, org.apiKey);
    const created = await rest('POST', '/org/{org}/workflows', {
      body: { name: 'Logged' },
      headers: { 'x-request-id': 'trace-123' },
    });
    expect(created.headers.get('x-request-id')).toBe('trace-123');
    await server.graphql(org.apiKey, 'query Mine { organization { id } }');
    const restLine = lines().find((line) => line.reqId === 'trace-123');
    expect(restLine).toMatchObject({
      msg: 'request',
      method: 'POST',
      route: '/org/:org_id/workflows',
      status: 201,
      organizationId: org.organizationId,
      operation: 'createWorkflow',
    });
    expect(restLine.latencyMs).toBeGreaterThan(0);
    const graphqlLine = lines().find((line) => line.operation === 'Mine');
    expect(graphqlLine).toMatchObject({ route: '/graphql', status: 200, organizationId: org.organizationId });
    expect(graphqlLine.reqId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('exposes Prometheus metrics: latency by route and operation, statements, subscriptions, engine throughput and queue', async () => {
    const rest = restClient(server, org.organizationId, org.apiKey);
    const agent = await rest('POST', '/org/{org}/agents', { body: { name: 'Caller' } });
    const steps = [{ id: 'dial', type: 'call', agent_id: agent.body.id }];
    const workflow = await rest('POST', '/org/{org}/workflows', { body: { name: 'M', definition: { steps } } });
    const prospects = await rest('POST', '/org/{org}/prospects', {
      body: {
        prospects: [
          { first_name: 'A', phone: '+14155550100' },
          { first_name: 'B', phone: '+14155550101' },
        ],
      },
    });
    const batch = await rest('POST', `/org/{org}/workflows/${workflow.body.id}/batches`, {
      body: { prospect_ids: prospects.body.created.map((prospect: { id: string }) => prospect.id) },
    });
    const status = async () => (await rest('GET', `/org/{org}/batches/${batch.body.id}`)).body.status;
    await eventually(async () => ((await status()) === 'FINISHED' ? true : undefined));
    const response = await fetch(`${server.url}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/plain');
    const text = await response.text();
    expect(text).toMatch(
      /gateway_http_request_duration_seconds_bucket\{[^}]*method="POST",route="\/org\/:org_id\/workflows",status="201"/,
    );
    expect(text).toMatch(
      /gateway_graphql_operation_duration_seconds_count\{operation="createBatch",type="mutation"\} [1-9]/,
    );
    expect(text).toMatch(/gateway_db_statements_total [1-9]\d*/);
    expect(text).toMatch(/gateway_subscriptions_active 0/);
    expect(text).toMatch(/gateway_engine_runs_completed_total [2-9]/);
    expect(text).toMatch(/gateway_engine_queue_depth 0/);
    expect(text).toContain('process_resident_memory_bytes');
  });
});
