// From dispatch to a complete call record: the real gateway (its server
// bundle, DIALER=livekit) started by the test, LiveKit's side met by the
// gateway's LiveKit protocol double (test/support/livekit-double.ts: the
// rooms, the dispatch with its metadata, the dial, the SIP transfer, the
// room_finished webhook), a batch of two prospects. The worker's job handler
// (src/call.ts) takes each dispatch's metadata as LiveKit hands it over and
// plays a scripted conversation on a fake session: the turns LiveKit would add,
// the AMD verdict, the model's tool calls (its real LiveKit function tools),
// and a scripted model for the post-call analysis. One call is cut by a
// worker restart: a second instance resumes it from the journal. The records
// are then read through REST.
import { mkdtemp, readdir } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type DialedCall, LiveKitDouble } from '../../test/support/livekit-double.ts';
import type { AnalysisModel } from '../src/analysis.ts';
import { AgentCall, type CallEnvironment } from '../src/call.ts';
import type { ConductedSession, EndReason } from '../src/conductor.ts';
import type { RetryPolicy } from '../src/gateway.ts';
import { CallJournals } from '../src/journal.ts';
import { startFaultyProxy } from './support/faulty-proxy.ts';
import { type GatewayProcess, startGateway } from './support/gateway-process.ts';
import { ManualTimers } from './support/manual-timers.ts';

const TRANSFER_DESK = '+14155550199';

let double: LiveKitDouble;
let gateway: GatewayProcess;
let proxy: Awaited<ReturnType<typeof startFaultyProxy>>;
let precall: Server;
let workerKey: string;
let journalDir: string;
let evaluationId: number;
let runs: { ada: string; bob: string };
let dials: { ada: DialedCall; bob: DialedCall };

const rest = (method: string, route: string, body?: unknown) => gateway.rest(method, route, body);

/** Reads `read` until `done` holds (the gateway's engine and LiveKit's webhook work on their own time). */
async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

beforeAll(async () => {
  double = await new LiveKitDouble().start();
  // Answered, and in flight until the worker hangs up (the test's hangUp: LiveKit's room_finished).
  double.script = () => ({ kind: 'answered', durationSeconds: 0, end: 'none' });
  // The agent's pre-call webhook: it names the plan and where a transfer goes.
  precall = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ variables: { plan: 'Gold', transfer_to: TRANSFER_DESK } }));
  });
  await new Promise<void>((resolve) => precall.listen(0, '127.0.0.1', resolve));
  gateway = await startGateway({ ...double.env('gateway-agent'), WEBHOOK_ALLOW_PRIVATE: 'on' });
  double.webhookUrl = `${gateway.url}/livekit/webhook`;
  proxy = await startFaultyProxy(gateway.url);
  workerKey = await gateway.keyWith(['calls:report']);
  journalDir = await mkdtemp(path.join(tmpdir(), 'worker-journals-'));

  const trunk = await rest('POST', '/sip-trunks', {
    name: 'Carrier',
    address: 'sip.carrier.example',
    provider: 'telnyx',
    phone_numbers: ['+12125550100'],
  });
  expect(trunk.status, JSON.stringify(trunk.body)).toBe(201);
  const agent = await rest('POST', '/agents', {
    name: 'Ava',
    prompt_template: 'Renew {{prospect.first_name}}’s {{plan}} plan.',
    llm_config: { provider: 'openai', model: 'gpt-4.1-mini' },
    transcriber_config: { provider: 'deepgram', model: 'nova-3', language: 'en' },
    voice_config: { provider: 'cartesia', model: 'sonic-3', voice_id: 'voice-c' },
    greeting_config: { greeting: 'Hi {{prospect.first_name}}, this is Ava.' },
    goodbye_config: { message: 'Goodbye, {{prospect.first_name}}!' },
    precall_webhook: { method: 'POST', url: `http://127.0.0.1:${(precall.address() as AddressInfo).port}/vars` },
  });
  expect(agent.status, JSON.stringify(agent.body)).toBe(201);
  const evaluation = await rest('POST', '/agents/evals', {
    agent_id: agent.body.id,
    title: 'Keeps the customer',
    prompt: 'Did the agent keep the customer (a renewal or a call back)?',
    score: 70,
  });
  expect(evaluation.status).toBe(201);
  evaluationId = evaluation.body.id;
  const workflow = await rest('POST', '/workflows', {
    name: 'Renewals',
    definition: {
      steps: [{ id: 'dial', type: 'call', agent_id: agent.body.id, trunk_id: trunk.body.outbound_trunk.id }],
    },
  });
  const prospects = await rest('POST', '/prospects', {
    prospects: [
      { first_name: 'Ada', phone: '+14155550123' },
      { first_name: 'Bob', phone: '+14155550124' },
    ],
  });
  const batch = await rest('POST', `/workflows/${workflow.body.id}/batches`, {
    prospect_ids: prospects.body.created.map((prospect: { id: string }) => prospect.id),
  });
  expect(batch.status).toBe(201);
  const both = await double.dialled(2);
  const dialOf = (phone: string) => both.find((dial) => dial.request.sipCallTo === phone)!;
  dials = { ada: dialOf('+14155550123'), bob: dialOf('+14155550124') };
  runs = { ada: dials.ada.metadata.run_id, bob: dials.bob.metadata.run_id };
});

afterAll(async () => {
  await proxy?.close();
  await double?.close();
  await gateway?.stop();
  await new Promise((resolve) => precall?.close(resolve));
});

/** A session that plays what the conductor says, and the worker's side around one call. */
function worker(attempts = 4) {
  const said: string[] = [];
  const hungUp: EndReason[] = [];
  const errors: string[] = [];
  const clock = new ManualTimers();
  const played = { waitForPlayout: async () => {} };
  const session: ConductedSession = {
    say: (text) => {
      said.push(text);
      return played;
    },
    generateReply: () => played,
  };
  const analysed: string[] = [];
  const analysisModel: AnalysisModel = {
    async complete(_instructions, input) {
      analysed.push(input);
      return [
        'Here is the analysis:',
        '```json',
        JSON.stringify({
          summary: 'The callee asked to be called back tomorrow at 3 pm about the Gold plan.',
          disposition: { label: 'Call back booked', category: 'success' },
          sentiment: 0.4,
          evaluations: [
            { evaluation_id: evaluationId, score: 85, reason: 'A call back was booked.' },
            { evaluation_id: 999_999, score: 10, reason: 'not one of the agent’s' },
          ],
        }),
        '```',
      ].join('\n');
    },
  };
  const retry: RetryPolicy = { attempts, firstDelayMs: 1, maxDelayMs: 1, sleep: async () => {} };
  let now = 0;
  const environment: CallEnvironment = {
    gateway: { url: proxy.url, apiKey: workerKey },
    providers: {
      vendors: { openai: { apiKey: 'dummy' }, deepgram: { apiKey: 'dummy' }, cartesia: { apiKey: 'dummy' } },
      livekit: { url: double.url, apiKey: double.apiKey, apiSecret: double.apiSecret },
    },
    journals: new CallJournals(journalDir),
    logger: { warn: () => {}, error: (_fields, message) => errors.push(message) },
    analysisModel: () => analysisModel,
    retry,
    timers: clock,
    now: () => now,
  };
  return {
    said,
    hungUp,
    errors,
    analysed,
    environment,
    at: (ms: number) => {
      now = ms;
    },
    /** Takes the job LiveKit dispatched with `dial` (its metadata as LiveKit hands it over) and answers the call. */
    async take(dial: DialedCall, startedAt = ROOM_CREATED) {
      const room = dial.request.roomName;
      const metadata = double.dispatches.find((dispatch) => dispatch.room === room)!.metadata;
      const call = (await AgentCall.open(metadata, startedAt, environment))!;
      call.begin(session, async (reason) => {
        hungUp.push(reason);
        // Deleting the room ends the call: LiveKit tells the gateway.
        await double.hangUp(room, 20);
      });
      clock.advance(0);
      return call;
    },
    /** Resolves once the agent hung up. */
    hungUpOnce: () =>
      eventually(
        async () => hungUp,
        (reasons) => reasons.length === 1,
      ),
  };
}

/** The tool's call as LiveKit Agents makes it when the model asks for it. */
const toolCall = { ctx: undefined as never, toolCallId: 'call_1', abortSignal: new AbortController().signal };

const recordKeys = (runId: string) =>
  proxy.received
    .filter((request) => request.path.endsWith(`/runs/${runId}/attempts/1/record`))
    .map((request) => request.idempotencyKey!.slice(`${runId}:1:record:`.length));

const ROOM_CREATED = 1_900_000_000_000;

describe('from dispatch to a complete call record', () => {
  test('a call with a call-back, cut by a worker restart: nothing lost, nothing counted twice', async () => {
    // The first worker: the greeting, four turns (a part), the AMD verdict, a call-back whose answer is lost.
    const first = worker(2);
    const call = await first.take(dials.ada);
    expect(call.setup.instructions).toBe('Renew Ada’s Gold plan.');
    expect(Object.keys(call.tools)).toEqual(['end_call', 'schedule_callback', 'transfer_call']);
    expect(first.said).toEqual(['Hi Ada, this is Ava.']);
    await call.heard('assistant', 'Hi Ada, this is Ava.', ROOM_CREATED + 500);
    await call.heard('user', 'Hi, who is this?', ROOM_CREATED + 2_000);
    first.at(ROOM_CREATED + 2_400);
    await call.detected('human');
    await call.heard('assistant', 'It is about your Gold plan. Is now a good time?', ROOM_CREATED + 3_000);
    await call.heard('user', 'I am driving. Call me tomorrow at three?', ROOM_CREATED + 6_000);
    const callbackAt = new Date(Math.ceil(Date.now() / 1000) * 1000 + 86_400_000).toISOString();
    proxy.fail('lose-answer', 'lose-answer');
    first.at(Date.now());
    const answered = await call.tools.schedule_callback.execute({ at: callbackAt }, toolCall);
    expect(answered).toMatch(/^The call back could not be scheduled: .*gave up after 2 tries/);
    await call.heard('assistant', 'Sure, tomorrow at three.', ROOM_CREATED + 8_000);
    // The first worker dies here: one turn and the call-back's part are only in its journal.

    const second = worker();
    // Its own guess of the call's start is the journal's: the turns' times go on from the first worker's.
    const resumed = await second.take(dials.ada, ROOM_CREATED + 60_000);
    await resumed.heard('assistant', 'Hi Ada, this is Ava.', ROOM_CREATED + 12_000);
    await resumed.heard('user', 'Hello? Yes, tomorrow at three is fine.', ROOM_CREATED + 14_000);
    await resumed.heard('assistant', 'Noted. Talk to you tomorrow.', ROOM_CREATED + 15_000);
    expect(await resumed.tools.end_call.execute({}, toolCall)).toBe('The call is ending.');
    expect(await second.hungUpOnce()).toEqual(['agent']);
    expect(second.said).toEqual(['Hi Ada, this is Ava.', 'Goodbye, Ada!']);
    await resumed.end();

    const run = await eventually(
      () => rest('GET', `/runs/${runs.ada}`),
      (answer) => Boolean(answer.body.call_attempts?.[0]?.ended_at),
    );
    const attempt = run.body.call_attempts[0];
    expect(attempt.outcome).toBe('answered');
    const { record } = attempt;
    expect(record.transcript.map((turn: any) => [turn.role, turn.text, turn.started_ms])).toEqual([
      ['agent', 'Hi Ada, this is Ava.', 500],
      ['callee', 'Hi, who is this?', 2_000],
      ['agent', 'It is about your Gold plan. Is now a good time?', 3_000],
      ['callee', 'I am driving. Call me tomorrow at three?', 6_000],
      ['agent', 'Sure, tomorrow at three.', 8_000],
      ['agent', 'Hi Ada, this is Ava.', 12_000],
      ['callee', 'Hello? Yes, tomorrow at three is fine.', 14_000],
      ['agent', 'Noted. Talk to you tomorrow.', 15_000],
    ]);
    expect(record).toMatchObject({
      detection: { result: 'human', confidence: 1, detected_ms: 2_400 },
      callback_at: callbackAt,
      summary: 'The callee asked to be called back tomorrow at 3 pm about the Gold plan.',
      disposition: { label: 'Call back booked', category: 'success' },
      sentiment: 0.4,
      evaluations: [{ evaluation_id: evaluationId, score: 85, passed: true, reason: 'A call back was booked.' }],
      ended_by: 'agent',
      transfer: null,
    });
    // The call-back is the run's next attempt.
    expect(run.body.next_attempt_at).toBe(callbackAt);
    // The analysis read the whole call, both workers' turns, and the agent's evaluation.
    expect(second.analysed).toHaveLength(1);
    expect(second.analysed[0]).toContain('Callee: Hi, who is this?');
    expect(second.analysed[0]).toContain('Agent: Noted. Talk to you tomorrow.');
    expect(second.analysed[0]).toContain(`- id ${evaluationId}: Keeps the customer`);
    // The first worker's lost call-back went again under its own key; nothing else was sent twice.
    expect(recordKeys(runs.ada)).toEqual([
      'detection',
      'turns-0',
      `callback-${callbackAt}`,
      `callback-${callbackAt}`,
      `callback-${callbackAt}`,
      'turns-4',
      'ended',
      'analysis',
    ]);
    expect(second.errors).toEqual([]);
    // The call is reported in full: its journal is gone.
    expect(await readdir(journalDir)).toEqual([]);
  });

  test('a call handed to a person: the transfer through LiveKit, on the record', async () => {
    const side = worker();
    const call = await side.take(dials.bob);
    await call.heard('assistant', 'Hi Bob, this is Ava.', ROOM_CREATED + 400);
    await call.heard('user', 'I want to speak to a person.', ROOM_CREATED + 2_000);
    await call.heard('assistant', 'Of course, I am transferring you now.', ROOM_CREATED + 3_000);
    expect(await call.tools.transfer_call!.execute({}, toolCall)).toBe('The callee is with a person now.');
    expect(await side.hungUpOnce()).toEqual(['transferred']);
    // A cold transfer: the agent leaves without its goodbye.
    expect(side.said).toEqual(['Hi Bob, this is Ava.']);
    await call.end();
    expect(double.transfers.map((transfer) => [transfer.roomName, transfer.transferTo])).toEqual([
      [dials.bob.request.roomName, `tel:${TRANSFER_DESK}`],
    ]);
    const run = await eventually(
      () => rest('GET', `/runs/${runs.bob}`),
      (answer) => Boolean(answer.body.call_attempts?.[0]?.ended_at),
    );
    const { record } = run.body.call_attempts[0];
    expect(record.transfer).toMatchObject({ to: TRANSFER_DESK, mode: 'cold', status: 'transferred', reason: null });
    expect(record.transcript).toHaveLength(3);
    expect(record.ended_by).toBe('agent');
    expect(record.summary).toBeTruthy();
  });
});
