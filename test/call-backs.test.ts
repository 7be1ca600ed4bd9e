// A callee who asks to be called back (a call record's callback_at) gets the
// next attempt then: during the call or after it, inside the batch's calling
// window, counted against max_attempts only if the batch says so, cancelled
// with the batch. Through the real server, on the engine's manual clock.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallResult } from '../src/engine/dialer.ts';
import { batchIn, expectStatsMatchRuns } from './support/batch-checks.ts';
import { eventually, flows } from './support/flows.ts';
import { heldCalls } from './support/held-calls.ts';
import { ManualClock } from './support/manual-clock.ts';
import { expectErrorBody, restClient } from './support/rest.ts';
import { startTestServer, type TestServer } from './support/server.ts';

const answered: CallResult = { outcome: 'answered', durationSeconds: 30, reason: null };
const HOUR = 3_600_000;

describe('call-backs', () => {
  const calls = heldCalls();
  // The domain reads the real time; the engine's clock starts a minute after it (new runs are due at once) and
  // moves only when told.
  const clock = new ManualClock(new Date(Date.now() + 60_000));
  let server: TestServer;
  let rest: ReturnType<typeof restClient>;
  let api: ReturnType<typeof flows>;
  let apiKey: string;

  beforeAll(async () => {
    server = await startTestServer({ engine: { dialer: calls.dialer, clock, concurrency: 20 } });
    const organization = await server.createOrganization('Acme');
    apiKey = organization.apiKey;
    rest = restClient(server, organization.organizationId, organization.apiKey);
    api = flows(server, organization.apiKey);
  });
  afterAll(() => server.close());

  async function runInFlight(extra: Record<string, unknown> = {}) {
    const batchId = await api.batch(await api.workflow([{ id: 'dial', type: 'call' }]), await api.prospects(1), extra);
    const runId = await eventually(async () => (await server.db.prisma.run.findFirst({ where: { batchId } }))?.id);
    await calls.inFlight(runId);
    return { batchId, runId };
  }

  const report = (runId: string, body: unknown) => rest('POST', `/org/{org}/runs/${runId}/attempts/1/record`, { body });
  const runOf = async (runId: string) => (await rest('GET', `/org/{org}/runs/${runId}`)).body;

  it('asked during the call: the next attempt is then, whatever the retry policy, and the run finishes after it', async () => {
    const { batchId, runId } = await runInFlight();
    const at = new Date(clock.now().getTime() + 2 * HOUR);
    expect((await report(runId, { callback_at: at.toISOString() })).status).toBe(200);
    calls.end(runId, answered);
    const waiting = await eventually(async () => {
      const run = await runOf(runId);
      return run.status === 'PENDING' ? run : undefined;
    });
    expect(waiting.next_attempt_at).toBe(at.toISOString());
    const { body } = await server.graphql(apiKey, 'query($id: ID!) { run(id: $id) { status nextAttemptAt } }', {
      id: runId,
    });
    expect(body.data.run).toEqual({ status: 'PENDING', nextAttemptAt: at.toISOString() });
    clock.advance(2 * HOUR);
    await calls.inFlight(runId, 2);
    calls.end(runId, answered, 2);
    await batchIn(server.db, batchId, ['FINISHED']);
    expect((await runOf(runId)).attempts).toBe(2);
    await expectStatsMatchRuns(server.db, batchId);
  });

  it('shows the next attempt in every GraphQL list of runs, as REST does', async () => {
    const { batchId, runId } = await runInFlight();
    const at = new Date(clock.now().getTime() + 3 * HOUR).toISOString();
    await report(runId, { callback_at: at });
    calls.end(runId, answered);
    const waiting = await eventually(async () => {
      const run = await runOf(runId);
      return run.status === 'PENDING' ? run : undefined;
    });
    expect(waiting.next_attempt_at).toBe(at);
    // Written by PostgreSQL (under the workflow: Batch.runs of columns only) and by the resolvers (under an
    // interface, or with a field that has a resolver).
    const { body } = await server.graphql(
      apiKey,
      `query($b: ID!, $w: ID!) {
        batch: node(id: $b) { ... on Batch {
          runs { nodes { id nextAttemptAt } }
          named: runs { nodes { nextAttemptAt batchName } }
          prospects: runs { nodes { prospect { runs { nodes { nextAttemptAt } } } } }
        } }
        workflow(id: $w) {
          runs { nodes { nextAttemptAt } }
          batches { nodes { runs { nodes { id nextAttemptAt } } } }
        }
        runs(workflowId: $w, filter: { status: "PENDING" }) { edges { node { nextAttemptAt status } } }
      }`,
      { b: batchId, w: waiting.workflow_id },
    );
    expect(body.errors).toBeUndefined();
    expect(body.data.batch.runs.nodes).toEqual([{ id: runId, nextAttemptAt: at }]);
    expect(body.data.batch.named.nodes[0].nextAttemptAt).toBe(at);
    expect(body.data.batch.prospects.nodes[0].prospect.runs.nodes).toEqual([{ nextAttemptAt: at }]);
    expect(body.data.workflow.runs.nodes).toEqual([{ nextAttemptAt: at }]);
    expect(body.data.workflow.batches.nodes).toEqual([{ runs: { nodes: [{ id: runId, nextAttemptAt: at }] } }]);
    expect(body.data.runs.edges).toEqual([{ node: { nextAttemptAt: at, status: 'PENDING' } }]);
  });

  it('asked outside the calling window: at its next opening in the prospect’s zone', async () => {
    const now = clock.now();
    // A window of every day, 09:00 to 17:00 UTC; the call-back is asked for at 23:00 UTC.
    const window = {
      days: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'],
      start: '00:00',
      end: '24:00',
      timezone: 'UTC',
    };
    const { batchId, runId } = await runInFlight({ callingWindow: window });
    await rest('PATCH', `/org/{org}/batches/${batchId}/settings`, {
      body: { calling_window: { ...window, start: '09:00', end: '17:00' } },
    });
    const asked = new Date(now.getTime() + 24 * HOUR);
    asked.setUTCHours(23, 0, 0, 0);
    expect((await report(runId, { callback_at: asked.toISOString() })).status).toBe(200);
    calls.end(runId, answered);
    const expected = new Date(asked.getTime() + 10 * HOUR); // 09:00 the next day
    const waiting = await eventually(async () => {
      const run = await runOf(runId);
      return run.status === 'PENDING' ? run : undefined;
    });
    expect(waiting.next_attempt_at).toBe(expected.toISOString());
    await api.setStatus(batchId, 'CANCELLED');
    expect((await runOf(runId)).status).toBe('CANCELLED');
  });

  it('asked after the call: a finished run and batch wait again; a cancelled batch, or more than 14 days ahead, get none', async () => {
    const { batchId, runId } = await runInFlight();
    calls.end(runId, answered);
    await batchIn(server.db, batchId, ['FINISHED']);
    const tooFar = new Date(clock.now().getTime() + 15 * 24 * HOUR).toISOString();
    const refused = expectErrorBody(await report(runId, { callback_at: tooFar }), 400);
    expect(refused.error).toEqual([expect.objectContaining({ path: 'callback_at' })]);

    const at = new Date(clock.now().getTime() + HOUR);
    expect((await report(runId, { summary: 'Asked to call back', callback_at: at.toISOString() })).status).toBe(200);
    const batch = (await rest('GET', `/org/{org}/batches/${batchId}`)).body;
    expect(batch.status).toBe('PENDING');
    expect(batch.stats).toMatchObject({ pending_count: 1, finished_count: 0 });
    expect(await runOf(runId)).toMatchObject({ status: 'PENDING', next_attempt_at: at.toISOString() });
    // The same part again asks for nothing more.
    await report(runId, { summary: 'Asked to call back', callback_at: at.toISOString() });
    expect((await server.db.prisma.run.findFirstOrThrow({ where: { id: runId } })).callbacks).toBe(1);
    await expectStatsMatchRuns(server.db, batchId);

    await api.setStatus(batchId, 'CANCELLED');
    const later = new Date(clock.now().getTime() + 3 * HOUR).toISOString();
    expect((await report(runId, { callback_at: later })).status).toBe(200);
    expect((await runOf(runId)).status).toBe('CANCELLED');
    await expectStatsMatchRuns(server.db, batchId);
  });

  it('counts against max_attempts only when the batch says so', async () => {
    const counted = await runInFlight({ retry: { maxAttempts: 1, countCallbacks: true } });
    await report(counted.runId, { callback_at: new Date(clock.now().getTime() + HOUR).toISOString() });
    calls.end(counted.runId, answered);
    await batchIn(server.db, counted.batchId, ['FINISHED']);
    expect((await runOf(counted.runId)).attempts).toBe(1);
  });
});
