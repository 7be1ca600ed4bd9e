// The worker against the real gateway (its server bundle on a fresh embedded
// database, started by the test): it reads an agent as E2 serves it and builds
// the call from it, and its reports are retried with one Idempotency-Key, so a
// lost answer does not count a report twice. A fault proxy stands between them.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { CallRecorder } from '../src/call-record.ts';
import type { CallDispatch } from '../src/dispatch.ts';
import { GatewayClient, GatewayRequestError, type RetryPolicy } from '../src/gateway.ts';
import { CallJournals } from '../src/journal.ts';
import { buildCall } from '../src/mapping/index.ts';
import { GatewayCallReports } from '../src/reports.ts';
import { startFaultyProxy } from './support/faulty-proxy.ts';
import { type GatewayProcess, startGateway } from './support/gateway-process.ts';

let gateway: GatewayProcess;
let proxy: Awaited<ReturnType<typeof startFaultyProxy>>;
/** The delays the client waited, instead of waiting them. */
const waited: number[] = [];
const retry: RetryPolicy = {
  attempts: 4,
  firstDelayMs: 500,
  maxDelayMs: 1500,
  sleep: async (ms) => {
    waited.push(ms);
  },
};

beforeAll(async () => {
  gateway = await startGateway();
  proxy = await startFaultyProxy(gateway.url);
});
afterAll(async () => {
  await proxy?.close();
  await gateway?.stop();
});

const client = () => new GatewayClient({ url: proxy.url, apiKey: gateway.apiKey }, gateway.organizationId, retry);

const rest = (method: string, route: string, body?: unknown) => gateway.rest(method, route, body);

describe('reading the agent', () => {
  test('E2 answers the agent the mapping builds the call from', async () => {
    const created = await rest('POST', '/agents', {
      name: 'Ava',
      prompt_template: 'Call {{prospect.first_name}} about {{plan}}.',
      llm_config: {
        provider: 'openai',
        model: 'gpt-4.1-mini',
        top_k: 3,
        fallbacks: [{ provider: 'groq', model: 'llama' }],
      },
      transcriber_config: { provider: 'deepgram', model: 'nova-3', language: 'en' },
      voice_config: { provider: 'cartesia', model: 'sonic-3', voice_id: 'voice-c' },
      greeting_config: { greeting: 'Hi {{prospect.first_name}}!' },
      room_duration_config: { max_duration_min: 3 },
    });
    expect(created.status).toBe(201);
    const agent = await client().agent(created.body.id);
    const job: CallDispatch = {
      organization_id: gateway.organizationId,
      agent_id: agent.id,
      run_id: 'run_1',
      batch_id: 'bat_1',
      attempt: 1,
      prospect: { id: 'prs_1', first_name: 'Ada', last_name: 'Lovelace', email: '', phone: '+14155550101' },
      dynamic_variables: { plan: 'Gold' },
    };
    const access = { apiKey: 'dummy' };
    const setup = await buildCall(agent, job, {
      vendors: { openai: access, groq: access, deepgram: access, cartesia: access },
      livekit: { url: 'ws://127.0.0.1:1', apiKey: 'k', apiSecret: 's' },
    });
    expect(setup.instructions).toBe('Call Ada about Gold.');
    expect(setup.script).toMatchObject({ agentSpeaksFirst: true, greeting: 'Hi Ada!', closeAtMs: 170_000 });
    expect(setup.unhonoured).toEqual([{ member: 'llm_config.top_k', reason: 'the OpenAI plugin has no such option' }]);
    expect(proxy.received.at(-1)).toMatchObject({
      method: 'GET',
      path: `/org/${gateway.organizationId}/agents/${agent.id}`,
    });
  });

  test('another organization’s agent, or a wrong key, is refused at once, with the gateway’s message', async () => {
    waited.length = 0;
    const refusal = client().agent('agt_missing');
    await expect(refusal).rejects.toBeInstanceOf(GatewayRequestError);
    await expect(refusal).rejects.toMatchObject({ status: 404 });
    const wrongKey = new GatewayClient({ url: proxy.url, apiKey: 'gwk_wrong' }, gateway.organizationId, retry);
    await expect(wrongKey.agent('agt_missing')).rejects.toMatchObject({
      status: 401,
      gatewayMessage: 'a valid API key is required in the X-API-Key header',
    });
    expect(waited).toEqual([]);
  });
});

describe('reports', () => {
  test('a POST whose answer is lost, or that meets a 503, is sent again with its Idempotency-Key: done once', async () => {
    waited.length = 0;
    const before = proxy.received.length;
    proxy.fail('unavailable', 'lose-answer');
    const answer = (await client().post('/agents', { name: 'Retried' }, 'run_9:1:agent:1')) as { id: string };
    const tries = proxy.received.slice(before);
    expect(tries.map((request) => request.idempotencyKey)).toEqual([
      'run_9:1:agent:1',
      'run_9:1:agent:1',
      'run_9:1:agent:1',
    ]);
    expect(waited).toEqual([500, 1000]);
    // The second try created the agent and its answer was lost; the third got that answer again.
    const agents = await rest('GET', '/agents?size=100');
    const named = agents.body.data.filter((agent: { name: string }) => agent.name === 'Retried');
    expect(named).toEqual([expect.objectContaining({ id: answer.id })]);
  });

  test('a gateway that keeps failing is given up after the policy’s tries', async () => {
    waited.length = 0;
    proxy.fail('unavailable', 'unavailable', 'unavailable', 'unavailable');
    await expect(client().post('/agents', { name: 'Never' }, 'run_9:1:agent:2')).rejects.toMatchObject({
      message: 'POST /agents answered 503: unavailable (gave up after 4 tries)',
    });
    expect(waited).toEqual([500, 1000, 1500]);
  });

  test('the outcome names its run and attempt; the gateway’s refusal for a run it does not have is final', async () => {
    const before = proxy.received.length;
    const reports = new GatewayCallReports(client(), { run_id: 'run_unknown', attempt: 2 });
    await expect(reports.outcome('voicemail')).rejects.toMatchObject({ status: 404 });
    expect(proxy.received.slice(before)).toEqual([
      {
        method: 'POST',
        path: `/org/${gateway.organizationId}/runs/run_unknown/attempts/2/outcome`,
        idempotencyKey: 'run_unknown:2:outcome:voicemail',
        body: '{"outcome":"voicemail"}',
      },
    ]);
  });

  test('a worker restarted mid-call sends the same keys for the same reports', async () => {
    const before = proxy.received.length;
    const call = { run_id: 'run_unknown', attempt: 1 };
    const turns = { transcript: [{ role: 'callee' as const, text: 'Yes.', started_ms: 3000, ended_ms: 3000 }] };
    for (const reports of [new GatewayCallReports(client(), call), new GatewayCallReports(client(), call)]) {
      await reports.record(turns, 'turns-3').catch(() => {});
      await reports.outcome('voicemail').catch(() => {});
    }
    const keys = proxy.received.slice(before).map((request) => request.idempotencyKey);
    expect(keys).toEqual([
      'run_unknown:1:record:turns-3',
      'run_unknown:1:outcome:voicemail',
      'run_unknown:1:record:turns-3',
      'run_unknown:1:outcome:voicemail',
    ]);
  });

  test("the call's record reaches the gateway: turns a few at a time, the detection, who hung up; a part sent again changes nothing", async () => {
    // A run whose (simulated) call has ended: its record is taken after the call, as post-call parts are.
    const agent = await rest('POST', '/agents', { name: 'Recorder' });
    const workflow = await rest('POST', '/workflows', {
      name: 'Records',
      definition: { steps: [{ id: 'dial', type: 'call', agent_id: agent.body.id }] },
    });
    const prospects = await rest('POST', '/prospects', {
      prospects: [{ first_name: 'Ada', phone: '+14155550123' }],
    });
    expect(prospects.status, JSON.stringify(prospects.body)).toBeLessThan(300);
    const prospectIds = prospects.body.created.map((prospect: { id: string }) => prospect.id);
    const batch = await rest('POST', `/workflows/${workflow.body.id}/batches`, { prospect_ids: prospectIds });
    expect(batch.status).toBe(201);
    let runId = '';
    for (;;) {
      const runs = await rest('GET', `/workflows/${workflow.body.id}/runs`);
      const run = runs.body.data?.[0];
      if (run && (await rest('GET', `/runs/${run.id}`)).body.call_attempts?.[0]?.ended_at) {
        runId = run.id;
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const reports = new GatewayCallReports(client(), { run_id: runId, attempt: 1 });
    const journals = new CallJournals(await mkdtemp(path.join(tmpdir(), 'worker-journal-')));
    const recorder = await CallRecorder.open(reports, journals.of(runId, 1), 1_000_000, (part) => {
      throw new Error(`${part} not sent`);
    });
    const said: [string, string, number][] = [
      ['assistant', 'Hello, this is Ava.', 1_000_500],
      ['user', 'Hi.', 1_002_000],
      ['assistant', 'Is now a good time?', 1_003_000],
      ['user', 'Yes.', 1_004_000],
      ['assistant', 'Great.', 1_005_000],
    ];
    for (const [role, text, at] of said) await recorder.turn(role, text, at);
    await recorder.detected('human', 1_001_800);
    await recorder.ended('callee');
    // A restarted worker sends the first part again: the record does not change.
    await reports.record(
      { transcript: [{ role: 'agent', text: 'Hello, this is Ava.', started_ms: 500, ended_ms: 500 }] },
      'turns-0',
    );
    const record = (await rest('GET', `/runs/${runId}`)).body.call_attempts[0].record;
    expect(record.transcript.map((turn: { role: string; text: string }) => [turn.role, turn.text])).toEqual([
      ['agent', 'Hello, this is Ava.'],
      ['callee', 'Hi.'],
      ['agent', 'Is now a good time?'],
      ['callee', 'Yes.'],
      ['agent', 'Great.'],
    ]);
    expect(record).toMatchObject({
      detection: { result: 'human', confidence: 1, detected_ms: 1800 },
      ended_by: 'callee',
    });
    const keys = proxy.received.filter((request) => request.path.endsWith(`${runId}/attempts/1/record`));
    expect(keys.map((request) => request.idempotencyKey)).toEqual([
      `${runId}:1:record:turns-0`,
      `${runId}:1:record:detection`,
      `${runId}:1:record:turns-4`,
      `${runId}:1:record:ended`,
      `${runId}:1:record:turns-0`,
    ]);
  });
});
