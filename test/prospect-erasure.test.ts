// Erasing a person through the real server: DELETE /org/{org_id}/prospects/
// {prospect_id} (both prefixes) and GraphQL `eraseProspect`. After it, the
// person's name, e-mail, number and what was said on their calls appear in no
// response (the prospect, its run with its attempts and records, E6's runs
// listing), in no webhook event written afterwards, and no search of the
// records' words finds them; the run's outcome and the batch's counts stay.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, flows } from './support/flows.ts';
import { heldCalls } from './support/held-calls.ts';
import { expectErrorBody, restClient } from './support/rest.ts';
import { startTestServer, type TestServer } from './support/server.ts';

const person = {
  firstName: 'Zebulon',
  lastName: 'Quixotewright',
  email: 'zebulon.q@erasure.example',
  phone: '+14155550123',
  timezone: 'America/Los_Angeles',
};
/** Words said on the call, reported in the record, and what the agent extracted. */
const said = ['Xylophonist', 'Marmalade', 'Kumquatfarm'];
const recordingUrl = 'https://recordings.example.com/zebulon-call.wav';
const variable = 'Zebsecretvar';

/** Everything that must be gone, as the wire would write it. */
const needles = [
  person.firstName,
  person.lastName,
  person.email,
  person.phone,
  person.timezone,
  ...said,
  recordingUrl,
  variable,
];
const mentioned = (haystack: string) => needles.filter((needle) => haystack.includes(needle));

describe('erasing a prospect', () => {
  const calls = heldCalls();
  let server: TestServer;
  let rest: ReturnType<typeof restClient>;
  let other: ReturnType<typeof restClient>;
  let api: ReturnType<typeof flows>;
  let prospectId: string;
  let workflowId: string;
  let batchId: string;
  let runId: string;

  beforeAll(async () => {
    server = await startTestServer({ engine: { dialer: calls.dialer, concurrency: 5 } });
    const acme = await server.createOrganization('Acme');
    const globex = await server.createOrganization('Globex');
    rest = restClient(server, acme.organizationId, acme.apiKey);
    other = restClient(server, globex.organizationId, globex.apiKey);
    api = flows(server, acme.apiKey);
    // Events are written only for an organization with an endpoint that wants them.
    const endpoint = await rest('POST', '/org/{org}/webhook-endpoints', {
      body: { url: 'https://crm.example.com/hooks', events: ['*'] },
    });
    expect(endpoint.status).toBe(201);

    prospectId = (await api.prospects(1, () => person))[0]!;
    const tag = await rest('POST', '/org/{org}/tags', { body: { name: 'vip' } });
    await rest('POST', `/org/{org}/prospects/${prospectId}/tags`, { body: { tag_ids: [tag.body.id] } });
    await rest('POST', '/org/{org}/prospect-lists', { body: { name: 'Callers', prospect_ids: [prospectId] } });
    // What an import's extra columns would hold.
    await server.db.prisma.prospect.updateMany({
      where: { id: prospectId },
      data: { attributes: { nickname: person.firstName } },
    });

    workflowId = await api.workflow([{ id: 'dial', type: 'call' }]);
    batchId = await api.batch(workflowId, [prospectId]);
    runId = await eventually(async () => (await server.db.prisma.run.findFirst({ where: { batchId } }))?.id);
    await calls.inFlight(runId);
    // What a pre-call webhook's answer would have handed the dialer.
    await server.db.prisma.runAttempt.updateMany({
      where: { runId },
      data: { dynamicVariables: { caller_name: variable } },
    });
    const reported = await rest('POST', `/org/{org}/runs/${runId}/attempts/1/record`, {
      body: {
        transcript: [
          { role: 'agent', text: 'Hello, is this the Xylophonist?', started_ms: 0, ended_ms: 1500 },
          { role: 'callee', text: 'Yes, I love Marmalade.', started_ms: 1600, ended_ms: 3000 },
        ],
        summary: 'The Xylophonist likes Marmalade.',
        data: { farm: 'Kumquatfarm' },
        recording_url: recordingUrl,
        disposition: { label: 'interested', category: 'success' },
        sentiment: 0.5,
      },
    });
    expect(reported.status).toBe(200);
    calls.end(runId, { outcome: 'answered', durationSeconds: 42, reason: null });
    await eventually(async () => {
      const run = await rest('GET', `/org/{org}/runs/${runId}`);
      return run.body.status === 'FINISHED' ? true : undefined;
    });
  });
  afterAll(() => server.close());

  /** What the organization can read about the person and their run. */
  async function everythingRead() {
    const answers = await Promise.all([
      rest('GET', `/org/{org}/prospects/${prospectId}`),
      rest('GET', `/org/{org}/runs/${runId}`),
      rest('GET', `/api/org/{org}/runs/${runId}`),
      rest('GET', `/org/{org}/workflows/${workflowId}/runs`),
      rest('GET', `/org/{org}/workflows/${workflowId}/runs?prospect_id=${prospectId}`),
      rest('GET', `/org/{org}/batches/${batchId}`),
    ]);
    for (const answer of answers) expect([answer.status, answer.body]).toEqual([200, answer.body]);
    return answers.map((answer) => answer.body);
  }

  /** Records whose searched words hold one of the words said. */
  const found = async () =>
    (
      await server.db.prisma.$queryRaw<{ n: number }[]>`
        SELECT count(*)::int AS n FROM "CallRecord"
        WHERE "searchVector" @@ to_tsquery('english', ${said.join(' | ')})`
    )[0]!.n;

  it('scrubs the person everywhere, keeps outcomes and counts, writes prospect.erased', async () => {
    const before = await everythingRead();
    // The checks below can fail: everything is there before the erasure.
    expect(mentioned(JSON.stringify(before)).sort()).toEqual([...needles].sort());
    expect(await found()).toBe(1);
    const [, runBefore, , , , batchBefore] = before;

    // The events written before about the person's run (run.*, call.*) carry them, as their deliveries would send them.
    const stored = await server.db.prisma.webhookEvent.findMany({ orderBy: { id: 'asc' } });
    const earlier = new Set(stored.map((event) => event.id));
    const personal = (payloads: unknown[]) => mentioned(JSON.stringify(payloads)).sort();
    expect(personal(stored.map((event) => event.payload))).toEqual(
      [person.firstName, person.lastName, person.email, person.phone, ...said, recordingUrl, variable].sort(),
    );
    const erased = await rest('DELETE', `/org/{org}/prospects/${prospectId}`);
    expect(erased.status).toBe(200);
    expect(erased.body).toEqual({});

    const after = await everythingRead();
    expect(mentioned(JSON.stringify(after))).toEqual([]);
    expect(await found()).toBe(0);
    const [prospect, run, , , , batch] = after;
    expect(prospect).toMatchObject({ id: prospectId, first_name: '', last_name: '', email: '', phone: '', tags: [] });
    expect(prospect.timezone).toBeNull();
    // The run, its attempt's outcome and the batch's counts add up as before.
    expect(run).toMatchObject({ id: runId, status: runBefore.status, prospect_id: prospectId });
    expect(run.call_attempts).toHaveLength(1);
    expect(run.call_attempts[0]).toMatchObject({
      outcome: runBefore.call_attempts[0].outcome,
      duration_seconds: runBefore.call_attempts[0].duration_seconds,
      to_number: '',
      dynamic_variables: null,
    });
    expect(run.call_attempts[0].record).toMatchObject({
      transcript: [],
      summary: null,
      data: null,
      recording_url: null,
      disposition: { label: 'interested', category: 'success' },
      sentiment: 0.5,
    });
    expect(batch).toEqual({ ...batchBefore, updated_at: batch.updated_at });

    // Tags, lists and imported attributes are gone too.
    const row = await server.db.prisma.prospect.findFirstOrThrow({ where: { id: prospectId } });
    expect(row.attributes).toEqual({});
    expect(row.erasedAt).not.toBeNull();
    expect(await server.db.prisma.prospectListMember.count({ where: { prospectId } })).toBe(0);
    expect(await server.db.prisma.prospectTag.count({ where: { prospectId } })).toBe(0);

    // An event said so, with the id and time only; a later change to the record
    // writes an event about it that carries nothing of the person.
    const late = await rest('POST', `/org/{org}/runs/${runId}/attempts/1/record`, { body: { sentiment: 0.6 } });
    expect(late.status).toBe(200);
    expect(mentioned(JSON.stringify(late.body))).toEqual([]);
    const events = (await server.db.prisma.webhookEvent.findMany({ orderBy: { id: 'asc' } })).filter(
      (event) => !earlier.has(event.id),
    );
    const erasedEvents = events.filter((event) => event.type === 'prospect.erased');
    expect(erasedEvents).toHaveLength(1);
    expect(erasedEvents[0]!.payload).toMatchObject({ type: 'prospect.erased' });
    const data = (erasedEvents[0]!.payload as { data: Record<string, unknown> }).data;
    expect(Object.keys(data).sort()).toEqual(['erased_at', 'id']);
    expect(data.id).toBe(prospectId);
    expect(data.erased_at).toBe(row.erasedAt!.toISOString());
    expect(events.some((event) => event.type === 'call.record.completed')).toBe(true);
    expect(mentioned(JSON.stringify(events.map((event) => event.payload)))).toEqual([]);
    // Those written before are scrubbed too, so a delivery still due or a replay (which send the stored
    // payload) never sends the person again; what they say of the run's progress stays.
    const rewritten = await server.db.prisma.webhookEvent.findMany({ where: { id: { in: [...earlier] } } });
    expect(rewritten).toHaveLength(stored.length);
    expect(personal(rewritten.map((event) => event.payload))).toEqual([]);
    const finished = rewritten.find((event) => event.type === 'run.finished')!.payload as { data: any };
    expect(finished.data).toMatchObject({
      id: runId,
      status: 'FINISHED',
      prospect: { first_name: '', last_name: '', email: '', phone: '' },
    });
    expect(finished.data.call_attempts[0]).toMatchObject({
      outcome: runBefore.call_attempts[0].outcome,
      to_number: '',
      dynamic_variables: null,
      record: { transcript: [], summary: null, sentiment: 0.5 },
    });

    // Again, under the other prefix: the same answer, no second event, the first time kept.
    const again = await rest('DELETE', `/api/org/{org}/prospects/${prospectId}`);
    expect(again.status).toBe(200);
    expect(again.body).toEqual({});
    expect(
      await server.db.prisma.webhookEvent.count({ where: { type: 'prospect.erased', objectId: prospectId } }),
    ).toBe(1);
    const still = await server.db.prisma.prospect.findFirstOrThrow({ where: { id: prospectId } });
    expect(still.erasedAt).toEqual(row.erasedAt);
  });

  it("is a 404 for another organization's prospect and an unknown one, and touches nothing", async () => {
    const [ownId] = await api.prospects(1, () => ({ firstName: 'Keepme', phone: '+14155550999' }));
    for (const prefix of ['', '/api']) {
      const foreign = await other('DELETE', `${prefix}/org/{org}/prospects/${ownId}`);
      expectErrorBody(foreign, 404);
      const unknown = await rest('DELETE', `${prefix}/org/{org}/prospects/prs_00000000000000000000000000000000`);
      expect(unknown.status).toBe(404);
    }
    const kept = await rest('GET', `/org/{org}/prospects/${ownId}`);
    expect(kept.body).toMatchObject({ first_name: 'Keepme', phone: '+14155550999' });
  });

  it('GraphQL eraseProspect answers the id and erases the same way', async () => {
    const [id] = await api.prospects(1, () => ({ firstName: 'Graphqlia', email: 'g@erasure.example' }));
    const data = await api.ok(`mutation($id: ID!) { eraseProspect(id: $id) { erasedProspectId } }`, { id });
    expect(data.eraseProspect).toEqual({ erasedProspectId: id });
    const read = await rest('GET', `/org/{org}/prospects/${id}`);
    expect(read.body).toMatchObject({ first_name: '', email: '', phone: '' });
  });
});
