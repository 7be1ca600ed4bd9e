// Requests made on a tenant's behalf (an agent's pre-call webhook, a
// workflow's webhook steps, webhook deliveries) never reach the service's own
// network with the default settings: refused when their URL is saved (a 400
// naming the member) and again on every request, on the addresses the
// connection would use, in every spelling of a loopback address. A listener on
// the loopback interface stands for the host's internal services (the cloud
// metadata service, an admin port): it must never see a connection.
import { lookup } from 'node:dns';
import http from 'node:http';
import { type AddressInfo, isIP } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { batchIn } from './support/batch-checks.ts';
import { eventually, flows } from './support/flows.ts';
import { expectErrorBody, type RestResponse, restClient } from './support/rest.ts';
import { startTestServer, type TestServer } from './support/server.ts';

/** A listener standing for an internal service: it counts every connection made to it. */
async function canary(host: string) {
  const seen: string[] = [];
  const server = http.createServer((request, response) => {
    seen.push(`${request.method} ${request.url}`);
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ variables: { instance_token: 'internal-secret' } }));
  });
  let connections = 0;
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return {
    port: (server.address() as AddressInfo).port,
    seen,
    get connections() {
      return connections;
    },
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}

/**
 * Stands for DNS, which this machine cannot reach: the names set here answer
 * with their address, every other name goes to the system resolver.
 */
function dnsDouble() {
  const records = new Map<string, string>();
  return {
    records,
    resolve: (host: string) =>
      new Promise<{ address: string; family: number }[]>((resolve, reject) => {
        const address = records.get(host);
        if (address) return resolve([{ address, family: address.includes(':') ? 6 : 4 }]);
        lookup(host, { all: true }, (error, addresses) => (error ? reject(error) : resolve(addresses)));
      }),
  };
}

let v4: Awaited<ReturnType<typeof canary>>;
let v6: Awaited<ReturnType<typeof canary>>;
const dns = dnsDouble();
beforeAll(async () => {
  v4 = await canary('127.0.0.1');
  v6 = await canary('::1');
  // A public-looking name that resolves to the loopback address.
  dns.records.set('metadata.attacker.example', '127.0.0.1');
});
afterAll(async () => {
  await v4.close();
  await v6.close();
});
afterEach(() => {
  expect(v4.connections, `the loopback listener was reached: ${v4.seen.join(', ')}`).toBe(0);
  expect(v6.connections, `the ::1 listener was reached: ${v6.seen.join(', ')}`).toBe(0);
});

/** Every spelling of an address inside the host's network that the tests try. */
const internalUrls = () => [
  `http://127.0.0.1:${v4.port}/latest/meta-data`,
  `http://[::1]:${v6.port}/internal-admin`,
  `http://[::ffff:127.0.0.1]:${v4.port}/`,
  `http://0x7f.1:${v4.port}/`,
  `http://2130706433:${v4.port}/`,
  `http://0177.0.0.1:${v4.port}/`,
  `http://127.1:${v4.port}/`,
  `http://[::127.0.0.1]:${v4.port}/`,
  `http://[64:ff9b::7f00:1]:${v4.port}/`,
  `http://localhost:${v4.port}/`,
  `http://metadata.attacker.example:${v4.port}/`,
  `http://0.0.0.0:${v4.port}/`,
  'http://169.254.169.254/latest/meta-data',
  'http://[fd00:ec2::254]/latest/meta-data',
  'http://100.100.100.200/latest/meta-data',
  'http://10.0.0.1/',
  'http://192.168.1.1/',
];

async function withServer(
  options: { allowPrivate: boolean; engine?: boolean; deliver?: boolean },
  work: (
    server: TestServer,
    rest: ReturnType<typeof restClient>,
    api: ReturnType<typeof flows>,
    organizationId: string,
  ) => Promise<void>,
) {
  const server = await startTestServer({
    webhooks: {
      allowPrivate: options.allowPrivate,
      allowHttp: true,
      resolve: dns.resolve,
      retryScheduleMs: [],
      deliver: options.deliver,
    },
    engine: options.engine ? { callMs: 5 } : undefined,
  });
  try {
    const { organizationId, apiKey } = await server.createOrganization();
    await work(server, restClient(server, organizationId, apiKey), flows(server, apiKey), organizationId);
  } finally {
    await server.close();
  }
}

const refusedAt = (response: RestResponse, path: string, url: string) => {
  const body = expectErrorBody(response, 400);
  expect(body.error).toEqual([expect.objectContaining({ path, rule: 'public address' })]);
  // The message names the host it was given, never what a name resolves to.
  if (isIP(new URL(url).hostname.replace(/[[\]]/g, '')) === 0) expect(body.message).not.toContain('127.0.0.1');
};

describe('with WEBHOOK_ALLOW_PRIVATE off (the default)', () => {
  it('refuses to save a pre-call webhook, a webhook step or a webhook endpoint that leads inside, under both prefixes and through GraphQL', async () => {
    await withServer({ allowPrivate: false }, async (server, rest, api) => {
      const agent = (await rest('POST', '/org/{org}/agents', { body: { name: 'Ava' } })).body.id as string;
      for (const [index, url] of internalUrls().entries()) {
        const prefix = index % 2 === 0 ? '' : '/api';
        const precall = { method: 'GET', url, headers: { 'Metadata-Flavor': 'Google' } };
        refusedAt(
          await rest('POST', `${prefix}/org/{org}/agents`, { body: { name: 'Eve', precall_webhook: precall } }),
          'precall_webhook.url',
          url,
        );
        refusedAt(
          await rest('PATCH', `${prefix}/org/{org}/agents/${agent}`, { body: { precall_webhook: precall } }),
          'precall_webhook.url',
          url,
        );
        refusedAt(
          await rest('POST', `${prefix}/org/{org}/workflows`, {
            body: { name: 'Hook', definition: { steps: [{ id: 'hook', type: 'webhook', url }] } },
          }),
          'definition.steps.0.url',
          url,
        );
        refusedAt(
          await rest('POST', `${prefix}/org/{org}/webhook-endpoints`, {
            body: { url: url.replace(/^http:/, 'https:'), events: ['*'] },
          }),
          'url',
          url,
        );
      }
      const workflow = (
        await rest('POST', '/org/{org}/workflows', { body: { name: 'Later', definition: { steps: [] } } })
      ).body.id;
      refusedAt(
        await rest('POST', `/org/{org}/workflows/${workflow}/versions`, {
          body: {
            definition: {
              steps: [
                { id: 'wait', type: 'wait', seconds: 1 },
                { id: 'hook', type: 'webhook', url: internalUrls()[0] },
              ],
            },
          },
        }),
        'definition.steps.1.url',
        internalUrls()[0]!,
      );
      const graphql = await server.graphql(
        (await server.createOrganization()).apiKey,
        'mutation($input: AgentCreateInput!) { createAgent(input: $input) { id } }',
        { input: { name: 'Eve', precallWebhook: { method: 'GET', url: internalUrls()[3] } } },
      );
      expect(graphql.body.errors[0].extensions).toMatchObject({
        code: 'BAD_INPUT',
        detail: [expect.objectContaining({ path: 'precall_webhook.url', rule: 'public address' })],
      });
      // Nothing was written by the refused requests.
      expect(await server.db.prisma.agent.count({ where: { precallWebhook: { not: null as never } } })).toBe(0);
      expect(await server.db.prisma.webhookEndpoint.count()).toBe(0);
      expect(await api.ok('{ workflows { totalCount } }')).toEqual({ workflows: { totalCount: 1 } });
    });
  });

  it('saves a public address, and a name that does not resolve yet (checked when it is used)', async () => {
    await withServer({ allowPrivate: false }, async (_server, rest) => {
      for (const url of ['http://203.0.113.7/precall', 'https://not-yet-registered.invalid/precall']) {
        const saved = await rest('POST', '/org/{org}/agents', {
          body: { name: 'Ava', precall_webhook: { method: 'POST', url } },
        });
        expect(saved.status, JSON.stringify(saved.body)).toBe(201);
      }
      const step = await rest('POST', '/org/{org}/workflows', {
        body: { name: 'Hook', definition: { steps: [{ id: 'hook', type: 'webhook', url: 'https://203.0.113.7/x' }] } },
      });
      expect(step.status).toBe(201);
    });
  });

  it('sends nothing inside at run time either: URLs saved before (or names that rebind since) fail the attempt or the step, with one reason whatever listens there', async () => {
    await withServer({ allowPrivate: false, engine: true }, async (server, rest, api, organizationId) => {
      // Public when saved, the loopback address when used (DNS rebinding).
      dns.records.set('rebinding.attacker.example', '203.0.113.9');
      const rebinding = `http://rebinding.attacker.example:${v4.port}/latest/meta-data`;
      const saved = await rest('POST', '/org/{org}/agents', {
        body: { name: 'Rebound', precall_webhook: { method: 'GET', url: rebinding } },
      });
      expect(saved.status).toBe(201);
      dns.records.set('rebinding.attacker.example', '127.0.0.1');
      // The other spellings as rows written before the check existed.
      const agents = [saved.body.id as string];
      for (const url of internalUrls()) {
        const agent = await server.db.prisma.agent.create({
          data: {
            organizationId,
            name: url,
            precallWebhook: { method: 'GET', url, headers: { 'Metadata-Flavor': 'Google' } },
          },
        });
        agents.push(agent.id);
      }
      const prospects = await api.prospects(1);
      const calls = [];
      for (const agent of agents) {
        const workflow = await api.workflow([{ id: 'dial', type: 'call', agent_id: agent }]);
        calls.push(await api.batch(workflow, prospects));
      }
      // A webhook step's URL is a member of a published version: written as one too.
      const hooks = [];
      const closedPort = await (async () => {
        const probe = await canary('127.0.0.1');
        await probe.close();
        return probe.port;
      })();
      for (const url of [rebinding, ...internalUrls(), `http://127.0.0.1:${closedPort}/latest/meta-data`]) {
        const workflow = await api.workflow([{ id: 'wait', type: 'wait', seconds: 0 }]);
        await server.db.prisma.workflowVersion.updateMany({
          where: { workflowId: workflow },
          data: { definition: { steps: [{ id: 'hook', type: 'webhook', method: 'GET', url }] } },
        });
        hooks.push({ url, batch: await api.batch(workflow, prospects) });
      }
      for (const batch of calls) {
        expect((await batchIn(server.db, batch, ['FINISHED', 'FAILED'])).status).toBe('FAILED');
        const [attempt] = await server.db.prisma.runAttempt.findMany({ where: { batchId: batch } });
        // The pre-call answer's variables never reach the attempt.
        expect(attempt).toMatchObject({ outcome: 'failed', reason: 'precall_webhook', dynamicVariables: null });
      }
      const errors = new Map<string, string>();
      for (const { url, batch } of hooks) {
        expect((await batchIn(server.db, batch, ['FINISHED', 'FAILED'])).status).toBe('FAILED');
        const [run] = await server.db.prisma.run.findMany({ where: { batchId: batch } });
        const host = new URL(url).hostname;
        expect(run!.error).toBe(`step hook: GET ${url} failed: refused: ${host} is not a public address`);
        errors.set(url, run!.error!.replace(url, 'URL'));
      }
      // An open port and a closed one read alike: refusals map nothing.
      expect(errors.get(internalUrls()[0]!)).toBe(errors.get(`http://127.0.0.1:${closedPort}/latest/meta-data`));
    });
  });

  it('refuses a webhook delivery to an endpoint whose name rebinds inside, with the same reason', async () => {
    await withServer({ allowPrivate: false, engine: false, deliver: true }, async (server, rest, api) => {
      dns.records.set('hooks.attacker.example', '203.0.113.10');
      const created = await rest('POST', '/org/{org}/webhook-endpoints', {
        body: { url: `https://hooks.attacker.example:${v4.port}/hook`, events: ['agent.updated'] },
      });
      expect(created.status).toBe(201);
      dns.records.set('hooks.attacker.example', '127.0.0.1');
      await api.agent({ name: 'Ava' }).then((id) => rest('PATCH', `/org/{org}/agents/${id}`, { body: { name: 'B' } }));
      const delivery = await eventually(async () => {
        const [first] = (await rest('GET', `/org/{org}/webhook-endpoints/${created.body.id}/deliveries`)).body.data;
        return first?.status === 'failed' ? first : undefined;
      });
      expect(delivery).toMatchObject({
        last_error: 'refused: hooks.attacker.example is not a public address',
        last_response_code: null,
      });
      expect(server.webhooks).not.toBeNull();
    });
  });
});

describe('whatever the address policy', () => {
  it('follows no redirect: a pre-call webhook, a webhook step and a delivery answered 302 to an internal address stop there', async () => {
    // Private addresses allowed, as a deployment inside a private network may: the redirect still goes nowhere.
    const redirecting = http.createServer((_request, response) => {
      response.writeHead(302, { location: `http://127.0.0.1:${v4.port}/latest/meta-data` });
      response.end();
    });
    let redirects = 0;
    redirecting.on('request', () => redirects++);
    await new Promise<void>((resolve) => redirecting.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(redirecting.address() as AddressInfo).port}/hook`;
    try {
      await withServer({ allowPrivate: true, engine: true, deliver: true }, async (server, rest, api) => {
        await rest('POST', '/org/{org}/webhook-endpoints', { body: { url, events: ['agent.updated'] } });
        const agent = await api.agent({ precallWebhook: { method: 'POST', url } });
        await rest('PATCH', `/org/{org}/agents/${agent}`, { body: { name: 'Eve' } });
        const prospects = await api.prospects(1);
        const call = await api.batch(await api.workflow([{ id: 'dial', type: 'call', agent_id: agent }]), prospects);
        const step = await api.batch(await api.workflow([{ id: 'hook', type: 'webhook', url }]), prospects);
        expect((await batchIn(server.db, call, ['FINISHED', 'FAILED'])).status).toBe('FAILED');
        expect(await server.db.prisma.runAttempt.findFirst({ where: { batchId: call } })).toMatchObject({
          reason: 'precall_webhook',
          dynamicVariables: null,
        });
        expect((await batchIn(server.db, step, ['FINISHED', 'FAILED'])).status).toBe('FAILED');
        expect((await server.db.prisma.run.findFirst({ where: { batchId: step } }))!.error).toBe(
          `step hook: POST ${url} answered 302`,
        );
        await eventually(async () =>
          (await server.db.prisma.webhookDelivery.findFirst())?.status === 'failed' ? true : undefined,
        );
        expect((await server.db.prisma.webhookDelivery.findFirst())!.lastError).toBe(
          'answered 302 (redirects are not followed)',
        );
        expect(redirects).toBe(3);
      });
    } finally {
      redirecting.closeAllConnections();
      await new Promise((resolve) => redirecting.close(resolve));
    }
  });
});

describe("a tenant's own headers", () => {
  it('may not be one the gateway sets, in any case: refused when saved, dropped when sent from a row saved before', async () => {
    const received: { headers: http.IncomingHttpHeaders; body: string }[] = [];
    const receiver = http.createServer((request, response) => {
      let body = '';
      request.on('data', (chunk) => (body += chunk));
      request.on('end', () => {
        received.push({ headers: request.headers, body });
        response.end('{}');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/precall`;
    try {
      await withServer({ allowPrivate: true, engine: true }, async (server, rest, api, organizationId) => {
        for (const name of ['Webhook-Signature', 'CONTENT-TYPE', 'traceparent', 'Host', 'Transfer-Encoding']) {
          const precall = await rest('POST', '/org/{org}/agents', {
            body: { name: 'Eve', precall_webhook: { method: 'POST', url, headers: { [name]: 'forged' } } },
          });
          expect(expectErrorBody(precall, 400).error).toEqual([
            expect.objectContaining({ path: `precall_webhook.headers.${name}`, rule: 'not reserved' }),
          ]);
          const step = await rest('POST', '/org/{org}/workflows', {
            body: {
              name: 'Hook',
              definition: { steps: [{ id: 'hook', type: 'webhook', url, headers: { [name]: 'x' } }] },
            },
          });
          expect(expectErrorBody(step, 400).error).toEqual([
            expect.objectContaining({ path: `definition.steps.0.headers.${name}`, rule: 'not reserved' }),
          ]);
        }
        const { secret } = (await rest('POST', '/org/{org}/signing-secret/rotate')).body;
        const agent = await server.db.prisma.agent.create({
          data: {
            organizationId,
            name: 'Saved before',
            precallWebhook: {
              method: 'POST',
              url,
              headers: { 'Webhook-Signature': 'v1,forged', 'Content-Type': 'text/plain', 'X-Crm-Account': '42' },
            },
          },
        });
        const batch = await api.batch(
          await api.workflow([{ id: 'dial', type: 'call', agent_id: agent.id }]),
          await api.prospects(1),
        );
        await batchIn(server.db, batch, ['FINISHED', 'FAILED']);
        expect(received).toHaveLength(1);
        const [{ headers, body }] = received as [(typeof received)[number]];
        // One value each, the gateway's; the tenant's other headers go as given.
        expect(() => new Webhook(secret).verify(body, headers as Record<string, string>)).not.toThrow();
        expect(headers['webhook-signature']).not.toContain('forged');
        expect(headers['content-type']).toBe('application/json');
        expect(headers['x-crm-account']).toBe('42');
      });
    } finally {
      receiver.closeAllConnections();
      await new Promise((resolve) => receiver.close(resolve));
    }
  });
});
