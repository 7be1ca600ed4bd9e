// The audit trail through the real server: a write through REST or GraphQL
// appends exactly one event in its transaction (a refused write none), with
// the key, the source address and User-Agent, the operation and the object,
// and an update's changed members before and after with secrets masked; read
// with `keys:admin` through GET /audit-events (both prefixes) and
// `auditEvents`, never another organization's. The table refuses UPDATE,
// DELETE and TRUNCATE from its owner; only the retention job deletes, and
// only events past the period.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuditRetention } from '../src/engine/audit-retention.ts';
import { fullAgent } from './support/agent-configs.ts';
import { ManualClock } from './support/manual-clock.ts';
import { acmeAndGlobex, expectErrorBody, type restClient } from './support/rest.ts';
import { startTestServer, type TestServer } from './support/server.ts';
import { onPostgres } from './support/storage.ts';

const DAY_MS = 86_400_000;

describe('the audit log', () => {
  let server: TestServer;
  let rest: ReturnType<typeof restClient>;
  let otherRest: ReturnType<typeof restClient>;
  let apiKey: string;
  let organizationId: string;

  const events = async (query = '') => {
    const answer = await rest('GET', `/org/{org}/audit-events${query}`);
    expect(answer.status).toBe(200);
    return answer.body as { data: Record<string, any>[]; pagination: Record<string, number> };
  };
  const count = async () => (await events()).pagination.total!;

  beforeAll(async () => {
    server = await startTestServer();
    ({ rest, otherRest, apiKey, organizationId } = await acmeAndGlobex(server));
  });
  afterAll(() => server?.close());

  it('records a REST write once, with its key, origin, operation and object', async () => {
    const before = await count();
    const created = await rest('POST', '/org/{org}/agents', {
      body: { name: 'Audited' },
      headers: { 'user-agent': 'audit-test/1.0' },
    });
    expect(created.status).toBe(201);
    const { data, pagination } = await events();
    expect(pagination.total).toBe(before + 1);
    const key = (await rest('GET', '/org/{org}/api-keys')).body.data[0];
    expect(data[0]).toEqual({
      id: expect.stringMatching(/^aud_[0-9a-f]{32}$/),
      at: expect.any(String),
      key_id: key.id,
      key_name: key.name,
      source_ip: '127.0.0.1',
      user_agent: 'audit-test/1.0',
      operation: 'createAgent',
      resource_type: 'Agent',
      resource_id: created.body.id,
      changes: null,
    });
    expect(JSON.stringify(data[0])).not.toContain(apiKey);
  });

  it('records a write that calls out (a SIP trunk) once it has committed, and none when it is refused', async () => {
    const before = await count();
    const body = { name: 'Audited trunk', address: 'sip.example', provider: 'other', phone_numbers: ['+14155550199'] };
    const created = await rest('POST', '/org/{org}/sip-trunks', { body });
    expect(created.status).toBe(201);
    expect((await rest('POST', '/org/{org}/sip-trunks', { body })).status).toBe(409);
    const { data, pagination } = await events('?operation=createSipTrunk');
    expect(await count()).toBe(before + 1);
    expect(pagination.total).toBe(1);
    expect(data[0]).toMatchObject({
      operation: 'createSipTrunk',
      source_ip: '127.0.0.1',
      changes: null,
      // The pair's inbound trunk, the first object its answer holds.
      resource_type: 'SipTrunk',
      resource_id: created.body.inbound_trunk.id,
    });
  });

  it('names the object every create made, the first one when it made several', async () => {
    const trunk = await rest('POST', '/org/{org}/sip-trunks', {
      body: { name: 'Named trunk', address: 'sip.named', provider: 'other', phone_numbers: ['+14155550160'] },
    });
    const sipTrunkId = trunk.body.outbound_trunk.id;
    const one = await rest('POST', '/org/{org}/phone-numbers', {
      body: { number: '+14155550161', sip_trunk_id: sipTrunkId, label: 'one' },
    });
    const bulk = await rest('POST', '/org/{org}/phone-numbers/bulk', {
      body: {
        sip_trunk_id: sipTrunkId,
        numbers: [
          { number: '+14155550162', label: 'a' },
          { number: '+14155550163', label: 'b' },
        ],
      },
    });
    const prospects = await rest('POST', '/org/{org}/prospects', {
      body: { prospects: [{ first_name: 'Ada' }, { first_name: 'Bob' }] },
    });
    for (const answer of [one, bulk, prospects]) expect(answer.status, JSON.stringify(answer.body)).toBeLessThan(300);
    const made = async (operation: string) => (await events(`?operation=${operation}`)).data[0];
    expect(await made('createPhoneNumber')).toMatchObject({ resource_type: 'PhoneNumber', resource_id: one.body.id });
    expect(await made('createPhoneNumbers')).toMatchObject({
      resource_type: 'PhoneNumber',
      resource_id: bulk.body.created[0].id,
    });
    expect(await made('createProspects')).toMatchObject({
      resource_type: 'Prospect',
      resource_id: prospects.body.created[0].id,
    });
    // Found by the object it names.
    const byResource = await events(`?resource_id=${bulk.body.created[0].id}`);
    expect(byResource.data.map((event) => event.operation)).toEqual(['createPhoneNumbers']);
  });

  it("shows an update's changed members before and after, secrets and headers masked", async () => {
    const agent = (await rest('POST', '/org/{org}/agents', { body: { name: 'Before' } })).body;
    const updated = await rest('PATCH', `/org/{org}/agents/${agent.id}`, {
      body: { name: 'After', precall_webhook: fullAgent.precall_webhook },
    });
    expect(updated.status).toBe(200);
    const [event] = (await events(`?resource_id=${agent.id}&operation=updateAgent`)).data;
    expect(event!.operation).toBe('updateAgent');
    expect(event!.changes.name).toEqual({ before: 'Before', after: 'After' });
    expect(event!.changes.precallWebhook.before).toBeNull();
    expect(event!.changes.precallWebhook.after.url).toBe(fullAgent.precall_webhook.url);
    expect(event!.changes.precallWebhook.after.headers).toEqual({
      Authorization: '[redacted]',
      'X-Trace': '[redacted]',
    });
    expect(JSON.stringify(event)).not.toContain('Bearer abc');
    expect(event!.changes).not.toHaveProperty('updatedAt');

    // A sealed secret changes: only that it did.
    const endpoint = (
      await rest('POST', '/org/{org}/webhook-endpoints', { body: { url: 'https://crm.example.com/h', events: ['*'] } })
    ).body;
    const rotated = await rest('POST', `/org/{org}/webhook-endpoints/${endpoint.id}/rotate-secret`);
    expect(rotated.status).toBe(200);
    const [rotation] = (await events(`?resource_id=${endpoint.id}&operation=rotateWebhookEndpointSecret`)).data;
    expect(rotation!.changes).toEqual({ secretEncrypted: { before: '[redacted]', after: '[redacted]' } });
    expect(JSON.stringify(rotation)).not.toContain(rotated.body.secret);
  });

  it('appends nothing for a refused write (the same transaction)', async () => {
    const before = await count();
    const agent = (await rest('POST', '/org/{org}/agents', { body: { name: 'Kept' } })).body;
    // Refused after the write's transaction has opened: an unknown agent, a bad body, a missing object.
    expectErrorBody(await rest('PATCH', `/org/{org}/agents/agt_${'0'.repeat(32)}`, { body: { name: 'x' } }), 404);
    expectErrorBody(await rest('PATCH', `/org/{org}/agents/${agent.id}`, { body: { name: '' } }), 400);
    expectErrorBody(await rest('POST', '/org/{org}/batches', { body: { workflow_id: `wf_${'0'.repeat(32)}` } }), 404);
    expect(await count()).toBe(before + 1);
  });

  it('records GraphQL mutations the same way, and reads them as a connection', async () => {
    const created = await server.graphql(apiKey, 'mutation { createAgent(input: { name: "G" }) { id } }');
    const id = created.body.data.createAgent.id;
    await server.graphql(apiKey, `mutation { deleteAgent(id: "${id}") { deletedAgentId } }`);
    const read = await server.graphql(
      apiKey,
      `query($id: ID) { auditEvents(resourceId: $id, first: 10) { totalCount nodes { operation resourceType resourceId changes keyName } } }`,
      { id },
    );
    expect(read.body.errors).toBeUndefined();
    expect(read.body.data.auditEvents.totalCount).toBe(2);
    expect(read.body.data.auditEvents.nodes.map((event: { operation: string }) => event.operation)).toEqual([
      'deleteAgent',
      'createAgent',
    ]);
    expect(read.body.data.auditEvents.nodes[0]).toMatchObject({ resourceType: 'Agent', resourceId: id, changes: null });
  });

  it('filters by key, operation and time, on both prefixes', async () => {
    const key = (await rest('GET', '/org/{org}/api-keys')).body.data[0].id;
    const all = await events(`?key_id=${key}&limit=100`);
    expect(all.data.length).toBeGreaterThan(0);
    expect(all.data.every((event) => event.key_id === key)).toBe(true);
    const none = await events(`?key_id=key_${'0'.repeat(32)}`);
    expect(none.pagination.total).toBe(0);
    const newest = all.data[0]!.at as string;
    const later = await events(`?from=${encodeURIComponent(new Date(Date.parse(newest) + 1).toISOString())}`);
    expect(later.pagination.total).toBe(0);
    const earlier = await events(`?to=${encodeURIComponent(newest)}&operation=createAgent`);
    expect(earlier.data.every((event) => event.operation === 'createAgent' && event.at < newest)).toBe(true);
    const prefixed = await rest('GET', '/api/org/{org}/audit-events?operation=createAgent');
    expect(prefixed.status).toBe(200);
    expect(prefixed.body.pagination.total).toBe((await events('?operation=createAgent')).pagination.total);
    expectErrorBody(await rest('GET', '/org/{org}/audit-events?from=yesterday'), 400);
  });

  it('shows another organization nothing, and needs keys:admin', async () => {
    const theirs = await otherRest('GET', '/org/{org}/audit-events');
    expect(theirs.status).toBe(200);
    expect(theirs.body.data).toEqual([]);
    expectErrorBody(await otherRest('GET', `/org/${organizationId}/audit-events`), 404);
    const reader = await rest('POST', '/org/{org}/api-keys', { body: { name: 'reader', scopes: ['read'] } });
    const refused = await rest('GET', '/org/{org}/audit-events', { apiKey: reader.body.api_key });
    expectErrorBody(refused, 403);
    expect(refused.body.message).toContain('keys:admin');
  });

  it('refuses UPDATE, DELETE and TRUNCATE, from the role that owns the table', async () => {
    const owner = await server.db.sql.query<{ owner: boolean }>(
      `SELECT tableowner = current_user AS owner FROM pg_tables WHERE tablename = 'AuditEvent'`,
    );
    expect(owner.rows[0]!.owner).toBe(true);
    expect(await count()).toBeGreaterThan(0);
    for (const statement of [
      `UPDATE "AuditEvent" SET operation = 'forged'`,
      `DELETE FROM "AuditEvent"`,
      `TRUNCATE "AuditEvent"`,
      // The retention job's setting does not let a recent event go.
      `SELECT set_config('gateway.audit_retention', 'on', false); DELETE FROM "AuditEvent"`,
    ]) {
      await expect(server.db.sql.exec(statement), statement).rejects.toThrow(/append-only/);
    }
    await server.db.sql.exec(`RESET gateway.audit_retention`);
    expect((await events('?operation=forged')).pagination.total).toBe(0);
  });

  it.runIf(onPostgres)('refuses them to a role that owns the table without being a superuser', async () => {
    const refusal = server.db.sql.transaction(async (tx) => {
      await tx.exec(`CREATE ROLE audit_owner_test NOLOGIN; ALTER TABLE "AuditEvent" OWNER TO audit_owner_test`);
      await tx.exec(`SET LOCAL ROLE audit_owner_test`);
      await tx.exec(`DELETE FROM "AuditEvent"`);
    });
    await expect(refusal).rejects.toThrow(/append-only/);
  });

  it('deletes events older than the retention period (AUDIT_RETENTION_DAYS), and only those', async () => {
    const now = new Date();
    await server.db.sql.query(
      `INSERT INTO "AuditEvent" ("organizationId", at, operation) VALUES ($1, $2, 'old'), ($1, $3, 'kept')`,
      [organizationId, new Date(now.getTime() - 401 * DAY_MS), new Date(now.getTime() - 399 * DAY_MS)],
    );
    const before = await count();
    const retention = new AuditRetention(server.db.prisma, 400, new ManualClock(now), server.app.log);
    expect(await retention.runOnce()).toBe(1);
    expect(await count()).toBe(before - 1);
    expect((await events('?operation=old')).pagination.total).toBe(0);
    expect((await events('?operation=kept')).pagination.total).toBe(1);
    // The job's setting was its transaction's only.
    await expect(server.db.sql.exec(`DELETE FROM "AuditEvent" WHERE operation = 'kept'`)).rejects.toThrow(
      /append-only/,
    );
  });
});
