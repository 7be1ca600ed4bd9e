import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody, restClient } from './support/rest.ts';
import { startTestServer, type TestServer } from './support/server.ts';

describe('Idempotency-Key on creates', () => {
  let server: TestServer;
  let rest: ReturnType<typeof restClient>;
  let trunkId: string;
  let agentId: string;
  let workflowId: string;
  let prospectId: string;
  beforeAll(async () => {
    server = await startTestServer();
    const org = await server.createOrganization();
    rest = restClient(server, org.organizationId, org.apiKey);
    trunkId = (
      await rest('POST', '/org/{org}/sip-trunks', {
        body: { name: 'T', address: 'sip.example.com', provider: 'telnyx', phone_numbers: ['+14155550001'] },
      })
    ).body.outbound_trunk.id;
    agentId = (await rest('POST', '/org/{org}/agents', { body: { name: 'A' } })).body.id;
    workflowId = (await rest('POST', '/org/{org}/workflows', { body: { name: 'W' } })).body.id;
    prospectId = (await rest('POST', '/org/{org}/prospects', { body: { first_name: 'P' } })).body.created[0].id;
  });
  afterAll(() => server.close());

  const creates = () => [
    {
      name: 'E4',
      path: `/workflows/${workflowId}/batches`,
      body: { prospect_ids: [prospectId] },
      count: () => server.db.prisma.batch.count(),
    },
    {
      name: 'E10',
      path: '/integrations',
      body: { slug: 'telnyx', credentials: { api_key: 'k' } },
      count: () => server.db.prisma.organizationIntegration.count(),
    },
    {
      name: 'E15',
      path: '/sip-trunks',
      body: { name: 'T2', address: 'sip.example.com', provider: 'twilio', phone_numbers: ['+14155550002'] },
      count: () => server.db.prisma.sipTrunk.count(),
    },
    {
      name: 'E16',
      path: '/phone-numbers',
      body: { number: '+14155550003', sip_trunk_id: trunkId },
      count: () => server.db.prisma.phoneNumber.count(),
    },
    {
      name: 'E17',
      path: '/phone-numbers/bulk',
      body: { numbers: [{ number: '+14155550004' }], sip_trunk_id: trunkId },
      count: () => server.db.prisma.phoneNumber.count(),
    },
    {
      name: 'E18',
      path: '/agents/evals',
      body: { agent_id: agentId, score: 80 },
      count: () => server.db.prisma.evaluation.count(),
    },
    {
      name: 'prospects',
      path: '/prospects',
      body: { first_name: 'Q' },
      count: () => server.db.prisma.prospect.count(),
    },
  ];

  it('gives a retried create its first answer and creates nothing twice, on every create', async () => {
    for (const create of creates()) {
      const key = `retry-${create.name}`;
      const first = await rest('POST', `/org/{org}${create.path}`, {
        body: create.body,
        headers: { 'idempotency-key': key },
      });
      expect(first.status, create.name).toBe(201);
      const before = await create.count();
      const again = await rest('POST', `/api/org/{org}${create.path}`, {
        body: create.body,
        headers: { 'idempotency-key': key },
      });
      expect(again.status, create.name).toBe(201);
      expect(again.body, create.name).toEqual(first.body);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(await create.count(), create.name).toBe(before);
    }
  });

  it('refuses the same key with another request, and lets a failed request be retried', async () => {
    const key = 'reused';
    expect(
      (await rest('POST', '/org/{org}/tags', { body: { name: 'one' }, headers: { 'idempotency-key': key } })).status,
    ).toBe(201);
    const other = await rest('POST', '/org/{org}/tags', { body: { name: 'two' }, headers: { 'idempotency-key': key } });
    expect(expectErrorBody(other, 409).error).toEqual({ idempotency_key: key });

    const failing = await rest('POST', '/org/{org}/phone-numbers', {
      body: { number: '+14155550003', sip_trunk_id: trunkId },
      headers: { 'idempotency-key': 'after-failure' },
    });
    expectErrorBody(failing, 409); // the number exists already
    const fixed = await rest('POST', '/org/{org}/phone-numbers', {
      body: { number: '+14155550009', sip_trunk_id: trunkId },
      headers: { 'idempotency-key': 'after-failure-2' },
    });
    expect(fixed.status).toBe(201);
  });

  it('creates once when the same request races with itself', async () => {
    const before = await server.db.prisma.prospect.count();
    const answers = await Promise.all(
      Array.from({ length: 6 }, () =>
        rest('POST', '/org/{org}/prospects', { body: { first_name: 'Racer' }, headers: { 'idempotency-key': 'race' } }),
      ),
    );
    expect(answers.filter((answer) => answer.status === 201).length).toBeGreaterThanOrEqual(1);
    for (const answer of answers) expect([201, 409]).toContain(answer.status);
    expect(await server.db.prisma.prospect.count()).toBe(before + 1);
  });

  it('refuses a malformed key', async () => {
    expectErrorBody(
      await rest('POST', '/org/{org}/tags', { body: { name: 'x' }, headers: { 'idempotency-key': 'a'.repeat(256) } }),
      400,
    );
  });
});
