import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.ts';
import { consoleOperations } from '../src/console-operations/console-operations.ts';
import { eventually } from './support/flows.ts';
import { acmeAndGlobex, expectErrorBody, restClient } from './support/rest.ts';
import { startTestServer, TEST_METRICS_TOKEN, type TestServer } from './support/server.ts';

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
    const response = await fetch(`${server.url}/metrics`, {
      headers: { authorization: `Bearer ${TEST_METRICS_TOKEN}` },
    });
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

describe('/metrics between tenants', () => {
  let server: TestServer;
  let tenants: Awaited<ReturnType<typeof acmeAndGlobex>>;
  beforeAll(async () => {
    server = await startTestServer();
    tenants = await acmeAndGlobex(server);
  });
  afterAll(() => server.close());

  const scrape = async (headers: Record<string, string>) => {
    const response = await fetch(`${server.url}/metrics`, { headers });
    const text = await response.text();
    return {
      status: response.status,
      headers: response.headers,
      text,
      body: text.startsWith('{') ? JSON.parse(text) : text,
    };
  };

  it('answers the metrics token only: not nobody, not a tenant key (in either header), not another token', async () => {
    const attempts: Record<string, string>[] = [
      {},
      { 'x-api-key': tenants.apiKey },
      { authorization: `Bearer ${tenants.otherKey}` },
      { authorization: `Bearer ${TEST_METRICS_TOKEN}x` },
      { authorization: TEST_METRICS_TOKEN },
    ];
    for (const headers of attempts) {
      const refused = await scrape(headers);
      expectErrorBody(refused, 401);
      expect(refused.body.message).toContain('METRICS_TOKEN');
      expect(refused.headers.get('www-authenticate')).toBe('Bearer realm="metrics"');
      expect(refused.text).not.toContain('gateway_');
    }
    const answered = await scrape({ authorization: `Bearer ${TEST_METRICS_TOKEN}` });
    expect(answered.status).toBe(200);
    expect(answered.text).toContain('gateway_http_request_duration_seconds');
  });

  it('is off, to everyone, without METRICS_TOKEN', async () => {
    const off = await startTestServer({ metricsToken: null, sharing: server });
    try {
      const attempts: Record<string, string>[] = [{}, { authorization: `Bearer ${TEST_METRICS_TOKEN}` }];
      for (const headers of attempts) {
        const response = await fetch(`${off.url}/metrics`, { headers });
        const refused = expectErrorBody(
          { status: response.status, headers: response.headers, body: await response.json() },
          404,
        );
        expect(refused.message).toContain('METRICS_TOKEN');
      }
    } finally {
      await off.close();
    }
  });

  it('takes METRICS_TOKEN of 16 characters or more, without spaces; a refusal never shows the value', () => {
    expect(loadConfig({}).metricsToken).toBeUndefined();
    expect(loadConfig({ METRICS_TOKEN: TEST_METRICS_TOKEN }).metricsToken).toBe(TEST_METRICS_TOKEN);
    for (const bad of ['short-secret', 'sixteen chars or more']) {
      expect(() => loadConfig({ METRICS_TOKEN: bad })).toThrow(ConfigError);
      expect(() => loadConfig({ METRICS_TOKEN: bad })).toThrow(/METRICS_TOKEN: .*\(its value not shown\)/);
      expect(() => loadConfig({ METRICS_TOKEN: bad })).not.toThrow(bad);
    }
  });

  it("measures operations that are not persisted as one label: 50 names of 20,000 characters add one, another tenant's names never show", async () => {
    const persisted = consoleOperations.find((operation) => !operation.text.includes('$'))!;
    // Warm every series the requests below touch but the one under test: the text's growth is that one's.
    await server.graphql(tenants.apiKey, persisted.text);
    await server.graphql(tenants.apiKey, 'query Warm { organization { id } }');
    const before = await server.metrics();
    for (let index = 0; index < 50; index++) {
      const name = `Q${index}_${'x'.repeat(20_000 - String(index).length - 2)}`;
      const answered = await server.graphql(tenants.apiKey, `query ${name} { organization { id } }`);
      expect(answered.body.errors).toBeUndefined();
    }
    await server.graphql(tenants.otherKey, 'query GlobexSecretPlan { organization { id } }');
    const after = await server.metrics();

    expect(after).not.toMatch(/Q\d+_x/);
    expect(after).not.toContain('GlobexSecretPlan');
    expect(after).toContain(`operation="${persisted.name}"`);
    const otherCount = /gateway_graphql_operation_duration_seconds_count\{operation="other",type="query"\} (\d+)/;
    expect(Number(after.match(otherCount)?.[1]) - Number(before.match(otherCount)?.[1])).toBe(51);
    const labels = (text: string) => new Set([...text.matchAll(/operation="([^"]*)"/g)].map((match) => match[1]));
    expect(labels(after)).toEqual(labels(before));
    // The counts' digits may grow; no series is added (one of those names alone would be 20,000 bytes per line).
    expect(after.length - before.length).toBeLessThan(1000);
  });
});
