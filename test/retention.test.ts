// Retention through the real server: an organization's `retention_days`
// (PATCH /org/{org_id}/settings, GraphQL updateOrganizationSettings), and the
// job that scrubs the personal data of runs that ended longer ago than that
// (src/engine/retention-job.ts), in bounded batches, as an erasure would:
// attempts' numbers and variables, call records' words, webhook events'
// copies; outcomes, counters and the runs themselves stay.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RetentionJob } from '../src/engine/retention-job.ts';
import { eventually, flows } from './support/flows.ts';
import { expectErrorBody, restClient } from './support/rest.ts';
import { startTestServer, type TestServer } from './support/server.ts';

const DAY_MS = 86_400_000;
const said = 'Quokkaberry';

describe('retention', () => {
  let server: TestServer;
  let rest: ReturnType<typeof restClient>;
  let api: ReturnType<typeof flows>;
  let organizationId: string;
  let apiKey: string;
  let batchId: string;
  let runIds: string[];

  beforeAll(async () => {
    server = await startTestServer({ engine: { concurrency: 5, callMs: 5 } });
    ({ organizationId, apiKey } = await server.createOrganization('Keeper'));
    rest = restClient(server, organizationId, apiKey);
    api = flows(server, apiKey);
    const endpoint = await rest('POST', '/org/{org}/webhook-endpoints', {
      body: { url: 'https://crm.example.com/hooks', events: ['*'] },
    });
    expect(endpoint.status).toBe(201);
    const prospects = await api.prospects(3, (index) => ({ firstName: `Keep${index}`, phone: `+1415555020${index}` }));
    batchId = await api.batch(await api.workflow([{ id: 'dial', type: 'call' }]), prospects);
    runIds = await eventually(async () => {
      const runs = await server.db.prisma.run.findMany({ where: { batchId }, orderBy: { id: 'asc' } });
      return runs.length === 3 && runs.every((run) => run.status === 'FINISHED')
        ? runs.map((run) => run.id)
        : undefined;
    });
    for (const runId of runIds) {
      const reported = await rest('POST', `/org/{org}/runs/${runId}/attempts/1/record`, {
        body: {
          transcript: [{ role: 'callee', text: `I grow ${said}.`, started_ms: 0, ended_ms: 900 }],
          summary: `Grows ${said}.`,
          disposition: { label: 'interested', category: 'success' },
          sentiment: 0.25,
        },
      });
      expect(reported.status).toBe(200);
    }
  });
  afterAll(() => server.close());

  it('is a setting: null by default, bounded, changed over REST and GraphQL', async () => {
    expect((await rest('GET', '/org/{org}/settings')).body).toMatchObject({ retention_days: null });
    for (const value of [0, -1, 1.5, 'ten', 3651]) {
      const refused = expectErrorBody(
        await rest('PATCH', '/org/{org}/settings', { body: { retention_days: value } }),
        400,
      );
      expect(refused.error).toEqual([expect.objectContaining({ path: 'retention_days' })]);
    }
    expect(await rest('PATCH', '/api/org/{org}/settings', { body: { retention_days: 3650 } })).toMatchObject({
      status: 200,
      body: { retention_days: 3650 },
    });
    const { body } = await server.graphql(
      apiKey,
      'mutation { updateOrganizationSettings(input: { retentionDays: null }) { retentionDays } }',
    );
    expect(body.data).toEqual({ updateOrganizationSettings: { retentionDays: null } });
    expect((await server.graphql(apiKey, '{ organization { settings { retentionDays } } }')).body.data).toEqual({
      organization: { settings: { retentionDays: null } },
    });
  });

  it('scrubs the runs that ended before retention_days, in batches, keeping outcomes and counts', async () => {
    const now = new Date();
    // Two of the three runs ended 40 days ago.
    const [oldA, oldB, recent] = runIds as [string, string, string];
    await server.db.prisma.run.updateMany({
      where: { id: { in: [oldA, oldB] } },
      data: { endedAt: new Date(now.getTime() - 40 * DAY_MS) },
    });
    const read = async () =>
      Object.fromEntries(
        await Promise.all(runIds.map(async (id) => [id, (await rest('GET', `/org/{org}/runs/${id}`)).body])),
      );
    const before = await read();
    const batchBefore = (await rest('GET', `/org/{org}/batches/${batchId}`)).body;
    const eventsOf = async (id: string) =>
      JSON.stringify((await server.db.prisma.webhookEvent.findMany({ where: { objectId: id } })).map((e) => e.payload));
    for (const id of runIds) {
      expect(JSON.stringify(before[id])).toContain(said);
      expect(await eventsOf(id)).toContain(said);
    }

    const job = new RetentionJob(server.db.prisma, { intervalMs: 0, log: console, batchRuns: 1 });
    // Without retention_days nothing is scrubbed.
    expect(await job.runOnce(now)).toMatchObject({ runs: 0 });
    expect((await rest('PATCH', '/org/{org}/settings', { body: { retention_days: 30 } })).status).toBe(200);
    const pass = await job.runOnce(now);
    // One run a transaction: two, then one that found none left.
    expect(pass).toMatchObject({ runs: 2, attempts: 2, records: 2, batches: 3 });
    expect(pass.events).toBeGreaterThan(0);

    const after = await read();
    for (const id of [oldA, oldB]) {
      expect(JSON.stringify(after[id])).not.toContain(said);
      expect(await eventsOf(id)).not.toContain(said);
      expect(await eventsOf(id)).not.toContain(before[id].call_attempts[0].to_number);
      expect(after[id]).toMatchObject({ status: 'FINISHED', last_outcome: before[id].last_outcome });
      expect(after[id].call_attempts[0]).toMatchObject({
        outcome: before[id].call_attempts[0].outcome,
        duration_seconds: before[id].call_attempts[0].duration_seconds,
        to_number: '',
        dynamic_variables: null,
        record: { transcript: [], summary: null, sentiment: 0.25, disposition: { label: 'interested' } },
      });
    }
    // The recent run is kept whole; the batch's counts are as before.
    expect(after[recent]).toEqual(before[recent]);
    expect(await eventsOf(recent)).toContain(said);
    expect((await rest('GET', `/org/{org}/batches/${batchId}`)).body).toEqual(batchBefore);
    // The next pass goes on from where this one stopped: nothing read again, nothing scrubbed.
    expect(await job.runOnce(now)).toMatchObject({ runs: 0, batches: 1 });
    // Once the recent run is old enough too, it goes.
    expect(await job.runOnce(new Date(now.getTime() + 31 * DAY_MS))).toMatchObject({ runs: 1 });
    expect(JSON.stringify((await rest('GET', `/org/{org}/runs/${recent}`)).body)).not.toContain(said);
  });
  it('skips an organization another instance is scrubbing (its advisory lock held), on PostgreSQL', async () => {
    // The embedded database has one connection: no second instance can hold the lock meanwhile.
    if (server.db.storage.kind !== 'postgres') return;
    const later = new Date(Date.now() + 365 * DAY_MS);
    // From the start again: scrubbing is idempotent, every run is due.
    await server.db.prisma.organization.update({
      where: { id: organizationId },
      data: { retainedAfterAt: null, retainedAfterRunId: null },
    });
    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let taken: () => void = () => {};
    const lockTaken = new Promise<void>((resolve) => {
      taken = resolve;
    });
    const holder = server.db.prisma.$transaction(
      async (tx) => {
        await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`retention ${organizationId}`}))`;
        taken();
        await released;
      },
      { timeout: 60_000 },
    );
    await lockTaken;
    const job = new RetentionJob(server.db.prisma, { intervalMs: 0, log: console });
    expect(await job.runOnce(later)).toMatchObject({ runs: 0, batches: 0 });
    release();
    await holder;
    expect(await job.runOnce(later)).toMatchObject({ runs: 3, batches: 1 });
  });
});
