// The worker against the real gateway (its server bundle on a fresh embedded
// database, started by the test): it reads an agent as E2 serves it and builds
// the call from it, and its reports are retried with one Idempotency-Key, so a
// lost answer does not count a report twice. A fault proxy stands between them.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { CallDispatch } from '../src/dispatch.ts';
import { GatewayClient, GatewayRequestError, type RetryPolicy } from '../src/gateway.ts';
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

async function rest(method: string, path: string, body?: unknown) {
  const response = await fetch(`${gateway.url}/org/${gateway.organizationId}${path}`, {
    method,
    headers: { 'x-api-key': gateway.apiKey, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, any> };
}

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
    const turn = {
      kind: 'turn',
      index: 3,
      speaker: 'prospect',
      text: 'Yes.',
      started_at: '2026-11-25T10:00:00Z',
    } as const;
    for (const reports of [new GatewayCallReports(client(), call), new GatewayCallReports(client(), call)]) {
      await reports.record(turn, turn.index).catch(() => {});
      await reports.outcome('voicemail').catch(() => {});
    }
    const keys = proxy.received.slice(before).map((request) => request.idempotencyKey);
    expect(keys).toEqual([
      'run_unknown:1:turn:3',
      'run_unknown:1:outcome:voicemail',
      'run_unknown:1:turn:3',
      'run_unknown:1:outcome:voicemail',
    ]);
  });
});
