// Call records through the real server: POST /runs/{run_id}/attempts/{attempt}/record
// and reportCallRecord, during a call and after it, read back on the run, the
// attempt and in the `call.record.completed` event.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallResult } from '../src/engine/dialer.ts';
import { batchIn } from './support/batch-checks.ts';
import { eventually, flows } from './support/flows.ts';
import { heldCalls } from './support/held-calls.ts';
import { expectErrorBody, type RestResponse, restClient } from './support/rest.ts';
import { startTestServer, type TestServer } from './support/server.ts';

const answered: CallResult = { outcome: 'answered', durationSeconds: 42, reason: null };

const turns = [
  { role: 'agent', text: 'Hello, this is Ada from Acme.', started_ms: 0, ended_ms: 1800 },
  { role: 'callee', text: 'Hi! Call me on +1 415 555 0100 or mail jo@example.com', started_ms: 2000, ended_ms: 5200 },
];

describe('call records', () => {
  const calls = heldCalls();
  let server: TestServer;
  let rest: ReturnType<typeof restClient>;
  let apiKey: string;
  let api: ReturnType<typeof flows>;

  beforeAll(async () => {
    server = await startTestServer({ engine: { dialer: calls.dialer, concurrency: 20 } });
    const organization = await server.createOrganization('Acme');
    apiKey = organization.apiKey;
    rest = restClient(server, organization.organizationId, apiKey);
    api = flows(server, apiKey);
    // Events are written only for an organization with an endpoint that wants them.
    const endpoint = await rest('POST', '/org/{org}/webhook-endpoints', {
      body: { url: 'https://crm.example.com/hooks', events: ['call.record.completed', 'call.attempt_ended'] },
    });
    expect(endpoint.status).toBe(201);
  });
  afterAll(() => server.close());

  /** A run of a one-call batch, its call in flight. */
  async function runInFlight(extra: Record<string, unknown> = {}) {
    const batchId = await api.batch(await api.workflow([{ id: 'dial', type: 'call' }]), await api.prospects(1), extra);
    const runId = await eventually(async () => {
      const run = await server.db.prisma.run.findFirst({ where: { batchId } });
      return run?.id;
    });
    await calls.inFlight(runId);
    return { batchId, runId };
  }

  const report = (runId: string, body: unknown, attempt = 1, prefix = '') =>
    rest('POST', `${prefix}/org/{org}/runs/${runId}/attempts/${attempt}/record`, { body });

  const eventsOf = async (type: string, runId: string) =>
    (await server.db.prisma.webhookEvent.findMany({ where: { type, objectId: runId }, orderBy: { id: 'asc' } })).map(
      (event) => (event.payload as { data: Record<string, any> }).data,
    );

  it('merges parts reported during the call, masks personal data, and ends the attempt as the detection says', async () => {
    const { batchId, runId } = await runInFlight();
    const first = await report(runId, {
      transcript: turns,
      detection: { result: 'voicemail', confidence: 0.93, detected_ms: 2100 },
    });
    expect(first.status).toBe(200);
    expect(first.body.transcript).toEqual([turns[0], { ...turns[1], text: 'Hi! Call me on [phone] or mail [email]' }]);
    expect(first.body).toMatchObject({ run_id: runId, attempt: 1, batch_id: batchId, summary: null, evaluations: [] });
    // A later part adds a turn, corrects one, and adds members; nothing reported before is lost.
    const second = await report(runId, {
      transcript: [
        { role: 'agent', text: 'Hello, this is Ada from Acme Corp.', started_ms: 0, ended_ms: 1800 },
        { role: 'agent', text: 'I will call back.', started_ms: 6000, ended_ms: 7000 },
      ],
      summary: 'Left a message; card 4111 1111 1111 1111',
      sentiment: 0.4,
    });
    expect(second.status).toBe(200);
    expect(second.body.transcript.map((turn: { text: string }) => turn.text)).toEqual([
      'Hello, this is Ada from Acme Corp.',
      'Hi! Call me on [phone] or mail [email]',
      'I will call back.',
    ]);
    expect(second.body).toMatchObject({ summary: 'Left a message; card [card]', sentiment: 0.4 });
    expect(second.body.detection).toEqual({ result: 'voicemail', confidence: 0.93, detected_ms: 2100 });
    // The same part twice changes nothing.
    const again = await report(runId, { summary: 'Left a message; card 4111 1111 1111 1111', sentiment: 0.4 });
    expect(again.body.updated_at).toBe(second.body.updated_at);

    calls.end(runId, answered);
    await batchIn(server.db, batchId, ['FINISHED']);
    const run = await rest('GET', `/org/{org}/runs/${runId}`);
    expect(run.body.call_attempts[0].outcome).toBe('voicemail');
    expect(run.body.last_outcome).toBe('voicemail');
    expect(run.body.call_attempts[0].record).toEqual(second.body);
    // The attempt's end sends the record reported during the call, once.
    const [completed, ...more] = await eventsOf('call.record.completed', runId);
    expect(more).toEqual([]);
    expect(completed).toEqual({ run_id: runId, attempt: 1, record: second.body });
  });

  it('takes parts after the call (post-call analysis), each sent as an event; GraphQL reads the same record', async () => {
    const { batchId, runId } = await runInFlight();
    calls.end(runId, answered);
    await batchIn(server.db, batchId, ['FINISHED']);
    expect(await eventsOf('call.record.completed', runId)).toEqual([]);
    const agentId = await agentOfRun(runId);
    const evaluation = await rest('POST', '/org/{org}/agents/evals', {
      body: { agent_id: agentId, title: 'Greets', score: 90 },
    });
    expect(evaluation.status).toBe(201);
    const evaluationId = evaluation.body.id as number;
    const analysed = await report(runId, {
      summary: 'Booked a demo',
      disposition: { label: 'demo booked', category: 'success' },
      data: { slot: '2026-12-01T10:00:00Z' },
      ended_by: 'callee',
      recording_url: 'https://recordings.example.com/r/1.ogg',
      latency: { p50_ms: 620, p95_ms: 1400 },
      evaluations: [{ evaluation_id: evaluationId, score: 80, passed: true, reason: 'greeted by name' }],
      outcome: 'busy',
    });
    expect(analysed.status).toBe(200);
    expect(analysed.body).toMatchObject({
      disposition: { label: 'demo booked', category: 'success' },
      data: { slot: '2026-12-01T10:00:00Z' },
      ended_by: 'callee',
      evaluations: [{ evaluation_id: evaluationId, score: 80, passed: true, reason: 'greeted by name' }],
    });
    // An ended attempt keeps its outcome.
    const attempt = await server.db.prisma.runAttempt.findFirstOrThrow({ where: { runId } });
    expect(attempt.outcome).toBe('answered');
    expect(await eventsOf('call.record.completed', runId)).toEqual([
      { run_id: runId, attempt: 1, record: analysed.body },
    ]);
    // The part's statement appended its audit event with it.
    const audited = await server.db.prisma.auditEvent.findMany({
      where: { operation: 'reportCallRecord', resourceId: runId },
    });
    expect(audited).toEqual([
      expect.objectContaining({ resourceType: 'Run', keyId: expect.any(String), changes: null }),
    ]);

    const { body } = await server.graphql(
      apiKey,
      `query($id: ID!) { run(id: $id) { lastRecord { id summary disposition { label category } evaluations { evaluationId passed }
        latency { p95Ms } } callAttempts { record { attemptNumber endedBy transcript { role } } } } }`,
      { id: runId },
    );
    expect(body.errors).toBeUndefined();
    expect(body.data.run.lastRecord).toEqual({
      id: analysed.body.id,
      summary: 'Booked a demo',
      disposition: { label: 'demo booked', category: 'success' },
      evaluations: [{ evaluationId, passed: true }],
      latency: { p95Ms: 1400 },
    });
    expect(body.data.run.callAttempts).toEqual([{ record: { attemptNumber: 1, endedBy: 'callee', transcript: [] } }]);
  });

  it('keeps every part of parts reported side by side for one attempt: each merges into what the others wrote', async () => {
    const { batchId, runId } = await runInFlight();
    calls.end(runId, answered);
    await batchIn(server.db, batchId, ['FINISHED']);
    const parts = Array.from({ length: 6 }, (_, index) => ({
      transcript: [{ role: 'agent', text: `Part ${index}`, started_ms: index * 1000, ended_ms: index * 1000 + 500 }],
    }));
    const answers = await Promise.all(parts.map((part) => report(runId, part)));
    expect(answers.map((answer) => answer.status)).toEqual(parts.map(() => 200));
    const record = await server.db.prisma.callRecord.findFirstOrThrow({ where: { runId } });
    expect((record.transcript as { text: string }[]).map((turn) => turn.text)).toEqual(
      parts.map((_, index) => `Part ${index}`),
    );
    // The last part written answers the whole transcript.
    expect(answers.map((answer) => answer.body.transcript.length)).toContain(parts.length);
  });

  async function agentOfRun(runId: string) {
    const run = await server.db.prisma.run.findFirstOrThrow({ where: { id: runId }, include: { batch: true } });
    const version = await server.db.prisma.workflowVersion.findFirstOrThrow({ where: { id: run.workflowVersionId } });
    return (version.definition as { steps: { agent_id: string }[] }).steps[0]!.agent_id;
  }

  it('refuses members past their bounds, naming them, and writes nothing', async () => {
    const { runId } = await runInFlight();
    const other = await api.agent();
    const otherEvaluation = await rest('POST', '/org/{org}/agents/evals', { body: { agent_id: other, score: 1 } });
    const refusals: [unknown, string][] = [
      [{ transcript: Array.from({ length: 2001 }, (_, index) => ({ ...turns[0], started_ms: index })) }, 'transcript'],
      [{ transcript: [{ ...turns[0], text: 'x'.repeat(10_001) }] }, 'transcript.0.text'],
      [{ transcript: [{ ...turns[0], ended_ms: -1 }] }, 'transcript.0.ended_ms'],
      [{ summary: 'x'.repeat(20_001) }, 'summary'],
      [{ data: { blob: 'x'.repeat(70_000) } }, 'data'],
      [{ recording_url: 'http://recordings.example.com/1.ogg' }, 'recording_url'],
      [{ sentiment: 2 }, 'sentiment'],
      [{ detection: { result: 'fax', confidence: 1, detected_ms: 0 } }, 'detection.result'],
      [
        { evaluations: [{ evaluation_id: otherEvaluation.body.id, score: 1, passed: false }] },
        'evaluations.0.evaluation_id',
      ],
      [{ callback_at: 'tomorrow' }, 'callback_at'],
      [{ unknown: 1 }, ''],
    ];
    for (const [body, path] of refusals) {
      const answer = expectErrorBody(await report(runId, body), 400);
      expect(JSON.stringify(answer.error), JSON.stringify(body).slice(0, 80)).toContain(`"${path}`);
    }
    expect(await server.db.prisma.callRecord.count({ where: { runId } })).toBe(0);
    calls.end(runId, answered);
  });

  it("answers 404 for another organization's run or an attempt that does not exist, under both prefixes", async () => {
    const { runId } = await runInFlight();
    const globex = await server.createOrganization('Globex');
    const otherRest = restClient(server, globex.organizationId, globex.apiKey);
    expectErrorBody(
      await otherRest('POST', `/org/{org}/runs/${runId}/attempts/1/record`, { body: { summary: 'x' } }),
      404,
    );
    expectErrorBody(await report(runId, { summary: 'x' }, 2), 404);
    // Another organization's evaluation is not the agent's.
    const theirAgent = await flows(server, globex.apiKey).agent();
    const theirs = await otherRest('POST', '/org/{org}/agents/evals', { body: { agent_id: theirAgent, score: 5 } });
    const refused = expectErrorBody(
      await report(runId, { evaluations: [{ evaluation_id: theirs.body.id, score: 5, passed: true }] }),
      400,
    );
    expect(refused.error).toEqual([expect.objectContaining({ path: 'evaluations.0.evaluation_id' })]);
    expectErrorBody(await report('run_missing', { summary: 'x' }), 404);
    const underApi: RestResponse = await report(runId, { summary: 'via /api' }, 1, '/api');
    expect(underApi.status).toBe(200);
    expect(underApi.body.summary).toBe('via /api');
    calls.end(runId, answered);
  });

  it("keeps personal data when the organization's redact_pii is off; searches in its transcript_language", async () => {
    const settings = await rest('PATCH', '/org/{org}/settings', {
      body: { redact_pii: false, transcript_language: 'simple' },
    });
    expect(settings.body).toMatchObject({ redact_pii: false, transcript_language: 'simple' });
    const refused = expectErrorBody(
      await rest('PATCH', '/org/{org}/settings', { body: { transcript_language: 'klingon' } }),
      400,
    );
    expect(JSON.stringify(refused.error)).toContain('transcript_language');
    try {
      const { runId } = await runInFlight();
      const kept = await report(runId, { transcript: [turns[1]] });
      expect(kept.body.transcript[0].text).toBe(turns[1]!.text);
      calls.end(runId, answered);
    } finally {
      await rest('PATCH', '/org/{org}/settings', { body: { redact_pii: true, transcript_language: 'english' } });
    }
  });

  it('hands a call in flight to a person, simulated without LiveKit; refuses one that is not in a call (409) and a bad address', async () => {
    const { runId } = await runInFlight();
    const transfer = (body: unknown) => rest('POST', `/org/{org}/runs/${runId}/attempts/1/transfer`, { body });
    expectErrorBody(await transfer({ to: 'desk' }), 400);
    expectErrorBody(await transfer({ to: '+14155550199', mode: 'warm' }), 400);
    const moved = await transfer({ to: '+14155550199' });
    expect(moved.status).toBe(200);
    expect(moved.body.transfer).toMatchObject({
      to: '+14155550199',
      mode: 'cold',
      status: 'transferred',
      reason: null,
    });
    // The worker's later parts keep it.
    expect((await report(runId, { summary: 'Handed to sales' })).body.transfer).toEqual(moved.body.transfer);
    calls.end(runId, answered);
    await eventually(async () =>
      (await server.db.prisma.runAttempt.findFirst({ where: { runId, endedAt: { not: null } } })) ? true : undefined,
    );
    expectErrorBody(await transfer({ to: '+14155550199' }), 409);
  });
});
