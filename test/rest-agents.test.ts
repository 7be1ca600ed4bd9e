// Contract tests: E1, E2, E3, E18, E19 and the agent extensions (POST and GET
// /agents), through the real HTTP server, on both prefixes, against SPEC.md's
// shapes (the strict response schemas refuse any missing or extra field).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agent as agentRecord, evaluation as evaluationRecord } from '../src/records/agents.ts';
import { metaEnvelopeSchema } from '../src/rest/route.ts';
import {
  agentConfigMembers as CONFIG_MEMBERS,
  llm,
  fullAgent as sharedFullAgent,
  transcriber,
  voice,
} from './support/agent-configs.ts';
import { acmeAndGlobex, expectErrorBody, type RestResponse, restClient } from './support/rest.ts';
import { startTestServer, type TestServer } from './support/server.ts';

const agentSchema = agentRecord.schema;
const evaluationSchema = evaluationRecord.schema;

const PREFIXES = ['/org/{org}', '/api/org/{org}'];
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const ONE_MIB = 1024 * 1024;

/** A JSON value as SPEC.md's "array of integer": its UTF-8 bytes. */
const bytes = (value: unknown) => [...Buffer.from(JSON.stringify(value), 'utf8')];

/** A config whose fallbacks nest `depth` levels below the primary, each level a different vendor. */
function chain<T extends object>(depth: number, level: (index: number, fallbacks?: object[]) => T): T {
  const build = (index: number): T => level(index, index < depth ? [build(index + 1)] : undefined);
  return build(0);
}
const LLM_VENDORS = ['openai', 'anthropic', 'google', 'groq', 'azure', 'openai'];
const STT_VENDORS = ['deepgram', 'assemblyai', 'elevenlabs', 'google', 'azure', 'deepgram'];
const deepLlm = () => chain(5, (index, fallbacks) => llm(LLM_VENDORS[index]!, `model-${index}`, fallbacks));
const deepTranscriber = () => chain(5, (index, fallbacks) => transcriber(STT_VENDORS[index]!, fallbacks));
const deepVoice = () => chain(5, (index, fallbacks) => voice(`vendor-${index}`, `voice-model-${index}`, fallbacks));

/** The shared agent, with free-form members whose keys travel untouched (no case conversion), and any JSON plugin. */
const fullAgent = {
  ...sharedFullAgent,
  plugins: [...sharedFullAgent.plugins, 7],
  precall_webhook: {
    ...sharedFullAgent.precall_webhook,
    headers: { ...sharedFullAgent.precall_webhook.headers, snake_header: 'v' },
    body_template: { prospect_id: '{{prospect_id}}', extra: { nested_key: [1, 2], camelKey: null } },
  },
};

/** What a new agent reads as when only `name` was given. */
const agentDefaults = {
  type: 'voice',
  prompt_template: '',
  public_quota: 0,
  allowed_sip_trunks: [],
  default_functions: [],
  plugins: [],
  ...Object.fromEntries(CONFIG_MEMBERS.map((member) => [member, null])),
  tools: [],
};

/** The lower inclusive bound of every bounded member. */
const lowerBounds = {
  background_sound: {
    file: 'a.mp3',
    initial_volume: 0,
    volume: 0,
    thinking_sound: [{ sound: 's', probability: 0, volume: 0 }],
  },
  extra_config: { interruption_sensitivity: 0, min_words: 0, use_gender_plugin: 'none' },
  goodbye_config: { message: '' },
  greeting_config: { pause_before_first_message: 0 },
  llm_config: {
    provider: 'openai',
    model: 'm',
    temperature: 0,
    top_p: 0,
    top_k: 1,
    max_tokens: 1,
    frequency_penalty: -2,
    presence_penalty: -2,
    fallbacks: [{ provider: 'anthropic', model: 'c', temperature: 0, top_p: 0 }],
  },
  precall_webhook: { method: 'GET', url: 'https://x.io', timeout_seconds: 1 },
  room_duration_config: { max_duration_min: 1, max_silence_sec: 0, wait_for_message_sec: 0 },
  transcriber_config: {
    provider: 'assemblyai',
    preemptive_min_confidence: 0,
    eager_eot_threshold: 0,
    eot_threshold: 0,
    eot_timeout_ms: 0,
    commit_strategy: 'manual',
    endpointing: 0,
    endpointing_ms: 0,
    min_speech_duration_ms: 0,
    num_channels: 1,
    sample_rate: 8000,
    fallbacks: [{ provider: 'google', sample_rate: 8000 }],
  },
  vad_config: {
    activation_threshold: 0,
    max_buffered_speech: 1,
    min_silence_duration: 0,
    min_speech_duration: 0,
    prefix_padding_duration: 0,
    sample_rate: 8000,
  },
  voice_config: {
    provider: 'p',
    model: 'm',
    sample_rate: 8000,
    speed: 0.1,
    stability: 0,
    similarity_boost: 0,
    style: 0,
    volume: 0.5,
    pitch: -12,
    intensity: -100,
    timbre: -100,
    user_instructions: 'abc',
    fallbacks: [{ provider: 'q', model: 'n', sample_rate: 8000, speed: 0.1 }],
  },
};

/** The upper inclusive bound of every bounded member. */
const upperBounds = {
  background_sound: {
    file: 'a.mp3',
    initial_volume: 1,
    volume: 1,
    thinking_sound: [{ sound: 's', probability: 1, volume: 1 }],
  },
  extra_config: { interruption_sensitivity: 1, use_gender_plugin: 'enhanced-multi' },
  goodbye_config: { message: 'g'.repeat(500) },
  llm_config: {
    provider: 'azure',
    model: 'm',
    temperature: 2,
    top_p: 1,
    frequency_penalty: 2,
    presence_penalty: 2,
    fallbacks: [{ provider: 'groq', model: 'c', temperature: 2, top_p: 1 }],
  },
  precall_webhook: { method: 'PATCH', url: 'https://x.io', timeout_seconds: 60 },
  transcriber_config: {
    provider: 'elevenlabs',
    preemptive_min_confidence: 1,
    eager_eot_threshold: 1,
    eot_threshold: 1,
    sample_rate: 48000,
    fallbacks: [{ provider: 'azure', sample_rate: 48000 }],
  },
  vad_config: { activation_threshold: 1, sample_rate: 48000 },
  voice_config: {
    provider: 'p',
    model: 'm',
    sample_rate: 48000,
    speed: 5,
    stability: 1,
    similarity_boost: 1,
    style: 1,
    volume: 10,
    pitch: 12,
    intensity: 100,
    timbre: 100,
    user_instructions: 'u'.repeat(1000),
    fallbacks: [{ provider: 'q', model: 'n', sample_rate: 48000, volume: 10 }],
  },
};

const llmOk = { provider: 'openai', model: 'gpt-4o' };
const voiceOk = { provider: 'elevenlabs', model: 'turbo' };
const webhookOk = { method: 'POST', url: 'https://x.io' };
const nestedLlm = (depth: number, leaf: object): object =>
  depth === 0 ? { ...llmOk, ...leaf } : { ...llmOk, fallbacks: [nestedLlm(depth - 1, leaf)] };

/** Update bodies E1 (and the create extension) refuse, and the one field path each names. */
const invalidUpdates: [string, Record<string, unknown>][] = [
  ['name', { name: '' }],
  ['name', { name: 42 }],
  ['name', { name: null }],
  ['type', { type: null }],
  ['plugins', { plugins: null }],
  ['type', { type: 'robot' }],
  ['prompt_template', { prompt_template: ['x'] }],
  ['default_functions.1', { default_functions: ['end_call', 3] }],
  ['plugins', { plugins: 'crm' }],
  ['colour', { colour: 'blue' }],
  ['background_sound.file', { background_sound: { enabled: true } }],
  ['background_sound.volume', { background_sound: { file: 'a', volume: 1.01 } }],
  ['background_sound.initial_volume', { background_sound: { file: 'a', initial_volume: -0.01 } }],
  [
    'background_sound.thinking_sound.0.sound',
    { background_sound: { file: 'a', thinking_sound: [{ probability: 0.5 }] } },
  ],
  [
    'background_sound.thinking_sound.1.probability',
    { background_sound: { file: 'a', thinking_sound: [{ sound: 's' }, { sound: 's', probability: 1.5 }] } },
  ],
  ['extra_config.use_gender_plugin', { extra_config: { use_gender_plugin: 'loud' } }],
  ['extra_config.min_words', { extra_config: { min_words: -1 } }],
  ['extra_config.min_words', { extra_config: { min_words: 1.5 } }],
  ['extra_config.interruption_sensitivity', { extra_config: { interruption_sensitivity: 1.1 } }],
  ['goodbye_config.message', { goodbye_config: { message: 'g'.repeat(501) } }],
  ['goodbye_config.enabled', { goodbye_config: { enabled: 'yes' } }],
  ['greeting_config.pause_before_first_message', { greeting_config: { pause_before_first_message: -1 } }],
  ['llm_config.provider', { llm_config: { provider: 'mistral', model: 'm' } }],
  ['llm_config.provider', { llm_config: { model: 'm' } }],
  ['llm_config.model', { llm_config: { provider: 'openai' } }],
  ['llm_config.temperature', { llm_config: { ...llmOk, temperature: 2.01 } }],
  ['llm_config.temperature', { llm_config: { ...llmOk, temperature: -0.01 } }],
  ['llm_config.top_p', { llm_config: { ...llmOk, top_p: 1.01 } }],
  ['llm_config.top_k', { llm_config: { ...llmOk, top_k: 0 } }],
  ['llm_config.max_tokens', { llm_config: { ...llmOk, max_tokens: 0 } }],
  ['llm_config.frequency_penalty', { llm_config: { ...llmOk, frequency_penalty: -2.01 } }],
  ['llm_config.presence_penalty', { llm_config: { ...llmOk, presence_penalty: 2.01 } }],
  ['llm_config.temp', { llm_config: { ...llmOk, temp: 1 } }],
  [
    'llm_config.fallbacks.0.temperature',
    { llm_config: { ...llmOk, fallbacks: [{ provider: 'anthropic', model: 'c', temperature: 3 }] } },
  ],
  ['llm_config.fallbacks.1.model', { llm_config: { ...llmOk, fallbacks: [llmOk, { provider: 'groq' }] } }],
  [
    'llm_config.fallbacks.0.fallbacks.0.fallbacks.0.fallbacks.0.fallbacks.0.top_p',
    { llm_config: nestedLlm(5, { top_p: 1.5 }) },
  ],
  ['precall_webhook.timeout_seconds', { precall_webhook: { ...webhookOk, timeout_seconds: 0 } }],
  ['precall_webhook.timeout_seconds', { precall_webhook: { ...webhookOk, timeout_seconds: 61 } }],
  ['precall_webhook.method', { precall_webhook: { method: 'DELETE', url: 'https://x.io' } }],
  ['precall_webhook.url', { precall_webhook: { method: 'GET' } }],
  ['precall_webhook.headers.X-Count', { precall_webhook: { ...webhookOk, headers: { 'X-Count': 1 } } }],
  ['room_duration_config.max_duration_min', { room_duration_config: { max_duration_min: 0 } }],
  ['room_duration_config.max_silence_sec', { room_duration_config: { max_silence_sec: -1 } }],
  ['room_duration_config.wait_for_message_sec', { room_duration_config: { wait_for_message_sec: -1 } }],
  ['transcriber_config.provider', { transcriber_config: { model: 'nova-3' } }],
  ['transcriber_config.provider', { transcriber_config: { provider: 'whisper' } }],
  ['transcriber_config.sample_rate', { transcriber_config: { provider: 'deepgram', sample_rate: 48001 } }],
  ['transcriber_config.commit_strategy', { transcriber_config: { provider: 'deepgram', commit_strategy: 'auto' } }],
  ['transcriber_config.eot_threshold', { transcriber_config: { provider: 'deepgram', eot_threshold: 1.01 } }],
  ['transcriber_config.num_channels', { transcriber_config: { provider: 'deepgram', num_channels: 0 } }],
  ['transcriber_config.endpointing', { transcriber_config: { provider: 'deepgram', endpointing: -1 } }],
  [
    'transcriber_config.fallbacks.0.provider',
    { transcriber_config: { provider: 'deepgram', fallbacks: [{ model: 'x' }] } },
  ],
  [
    'transcriber_config.fallbacks.0.fallbacks.0.sample_rate',
    {
      transcriber_config: {
        provider: 'deepgram',
        fallbacks: [{ provider: 'azure', fallbacks: [{ provider: 'google', sample_rate: 7999 }] }],
      },
    },
  ],
  ['vad_config.sample_rate', { vad_config: { sample_rate: 7999 } }],
  ['vad_config.activation_threshold', { vad_config: { activation_threshold: -0.1 } }],
  ['vad_config.max_buffered_speech', { vad_config: { max_buffered_speech: 0 } }],
  ['vad_config.min_silence_duration', { vad_config: { min_silence_duration: -0.1 } }],
  ['voice_config.sample_rate', { voice_config: { ...voiceOk, sample_rate: 7999 } }],
  ['voice_config.sample_rate', { voice_config: { ...voiceOk, sample_rate: 48001 } }],
  ['voice_config.sample_rate', { voice_config: { ...voiceOk, sample_rate: 16000.5 } }],
  ['voice_config.speed', { voice_config: { ...voiceOk, speed: 0.09 } }],
  ['voice_config.speed', { voice_config: { ...voiceOk, speed: 5.01 } }],
  ['voice_config.volume', { voice_config: { ...voiceOk, volume: 0.49 } }],
  ['voice_config.volume', { voice_config: { ...voiceOk, volume: 10.01 } }],
  ['voice_config.pitch', { voice_config: { ...voiceOk, pitch: 12.5 } }],
  ['voice_config.intensity', { voice_config: { ...voiceOk, intensity: -101 } }],
  ['voice_config.timbre', { voice_config: { ...voiceOk, timbre: 101 } }],
  ['voice_config.stability', { voice_config: { ...voiceOk, stability: 1.01 } }],
  ['voice_config.user_instructions', { voice_config: { ...voiceOk, user_instructions: 'ab' } }],
  ['voice_config.user_instructions', { voice_config: { ...voiceOk, user_instructions: 'u'.repeat(1001) } }],
  ['voice_config.model', { voice_config: { provider: 'elevenlabs' } }],
  [
    'voice_config.fallbacks.0.similarity_boost',
    { voice_config: { ...voiceOk, fallbacks: [{ ...voiceOk, similarity_boost: 2 }] } },
  ],
  ['voice_config', { voice_config: 'elevenlabs' }],
  // Bytes that are not UTF-8 JSON, UTF-8 that is not JSON, and bytes of JSON that breaks a bound.
  ['voice_config', { voice_config: [255, 254, 253] }],
  ['llm_config', { llm_config: [...Buffer.from('not json')] }],
  ['voice_config.sample_rate', { voice_config: bytes({ ...voiceOk, sample_rate: 7999 }) }],
  ['goodbye_config.message', { goodbye_config: bytes({ message: 'g'.repeat(501) }) }],
];

describe.each(PREFIXES)('REST under %s: agents and evaluations', (prefix) => {
  let server: TestServer;
  let rest: ReturnType<typeof restClient>;
  let otherRest: ReturnType<typeof restClient>;
  let organizationId: string;
  let otherOrganizationId: string;
  /** The organization's key, for the one step only GraphQL offers (setting tools). */
  let apiKey: string;
  const url = (path: string) => `${prefix}${path}`;
  /** The caller's own key on another organization's path. */
  const foreignPath = (path: string) => url(path).replace('{org}', otherOrganizationId);

  beforeAll(async () => {
    server = await startTestServer();
    ({ organizationId, apiKey, rest, otherOrganizationId, otherRest } = await acmeAndGlobex(server));
  });
  afterAll(() => server.close());

  async function createAgent(body: Record<string, unknown> = { name: 'Agent' }, client = rest) {
    const response = await client('POST', url('/agents'), { body });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    return agentSchema.parse(response.body) as Record<string, any>;
  }
  async function readAgent(id: string) {
    const response = await rest('GET', url(`/agents/${id}`));
    expect(response.status).toBe(200);
    return response.body as Record<string, any>;
  }
  async function createEvaluation(body: Record<string, unknown>) {
    const response = await rest('POST', url('/agents/evals'), { body });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    return evaluationSchema.parse(response.body) as Record<string, any>;
  }
  const evaluationsOf = async (agentId: string) =>
    (await server.db.prisma.evaluation.findMany({ where: { agentId } })).length;
  const agentCount = async () => (await rest('GET', url('/agents?size=100'))).body.meta.total as number;

  /** 401 without a key and with a bad key, 404 on another organization's org_id in the path. */
  async function expectAuthAndTenancy(method: string, path: string, body?: unknown) {
    const options = body === undefined ? {} : { body };
    const missing = expectErrorBody(await rest(method, url(path), { ...options, apiKey: null }), 401);
    expect(missing.message).toMatch(/key/i);
    expectErrorBody(await rest(method, url(path), { ...options, apiKey: 'gwk_not_a_real_key' }), 401);
    expectErrorBody(await rest(method, foreignPath(path), options), 404);
    expectErrorBody(await rest(method, url(path).replace('{org}', 'org_does_not_exist'), options), 404);
  }

  /** Malformed JSON 400, text/plain 415, a body over 1 MiB 413. */
  async function expectBodyErrors(method: string, path: string, oversize: Record<string, unknown>) {
    expectErrorBody(await rest(method, url(path), { raw: '{"name":' }), 400);
    expectErrorBody(
      await rest(method, url(path), {
        raw: JSON.stringify(oversize).slice(0, 40),
        headers: { 'content-type': 'text/plain' },
      }),
      415,
    );
    expectErrorBody(
      await rest(method, url(path), {
        raw: 'name=x',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      }),
      415,
    );
    expect(JSON.stringify(oversize).length).toBeGreaterThan(ONE_MIB);
    expectErrorBody(await rest(method, url(path), { body: oversize }), 413);
  }

  describe('POST /agents (extension)', () => {
    it('creates an agent with every member: 201 and the Agent record field by field', async () => {
      const response = await rest('POST', url('/agents'), { body: fullAgent });
      expect(response.status).toBe(201);
      const agent = agentSchema.parse(response.body);
      expect(agent).toEqual(response.body);
      expect(Object.keys(response.body).sort()).toEqual(
        [
          'id',
          'name',
          'organization_id',
          'type',
          'prompt_template',
          'public_quota',
          'created_at',
          'updated_at',
          'allowed_sip_trunks',
          'default_functions',
          'plugins',
          ...CONFIG_MEMBERS,
          'tools',
        ].sort(),
      );
      expect(response.body).toEqual({
        ...fullAgent,
        id: expect.stringMatching(/^agt_/),
        organization_id: organizationId,
        public_quota: 0,
        allowed_sip_trunks: [],
        created_at: expect.stringMatching(ISO),
        updated_at: expect.stringMatching(ISO),
        tools: [],
      });
      expect(await readAgent(response.body.id)).toEqual(response.body);
    });

    it('creates with only a name: defaults, unset config members null', async () => {
      const agent = await createAgent({ name: 'Minimal' });
      expect(agent).toEqual({
        ...agentDefaults,
        id: expect.stringMatching(/^agt_/),
        name: 'Minimal',
        organization_id: organizationId,
        created_at: expect.stringMatching(ISO),
        updated_at: expect.stringMatching(ISO),
      });
    });

    it('accepts config members and plugins as UTF-8 JSON bytes', async () => {
      const agent = await createAgent({
        name: 'Bytes',
        llm_config: bytes(fullAgent.llm_config),
        voice_config: bytes({ provider: 'élan', model: 'naïve-✓' }),
        plugins: bytes(['crm', { a: 1 }]),
      });
      expect(agent.llm_config).toEqual(fullAgent.llm_config);
      expect(agent.voice_config).toEqual({ provider: 'élan', model: 'naïve-✓' });
      expect(agent.plugins).toEqual(['crm', { a: 1 }]);
    });

    it('refuses bad bodies with 400 naming the field, writing nothing', async () => {
      const before = await agentCount();
      const missing = expectErrorBody(await rest('POST', url('/agents'), { body: { type: 'chat' } }), 400);
      expect(missing.error).toEqual([expect.objectContaining({ path: 'name', rule: 'required' })]);
      for (const [path, body] of invalidUpdates) {
        const response = await rest('POST', url('/agents'), { body: { name: 'Refused', ...body } });
        const error = expectErrorBody(response, 400);
        expect(
          error.error.map((problem: { path: string }) => problem.path),
          JSON.stringify(body).slice(0, 200),
        ).toContain(path);
      }
      expectErrorBody(await rest('POST', url('/agents'), { body: ['name'] }), 400);
      expect(await agentCount()).toBe(before);
    });

    it('answers 401, 404 for a foreign path, 400 malformed, 415 and 413', async () => {
      const before = await agentCount();
      await expectAuthAndTenancy('POST', '/agents', { name: 'X' });
      await expectBodyErrors('POST', '/agents', { name: 'Big', prompt_template: 'p'.repeat(ONE_MIB) });
      expect(await agentCount()).toBe(before);
      expect((await otherRest('GET', url('/agents').replace('{org}', otherOrganizationId))).body.meta.total).toBe(0);
    });
  });

  describe('GET /agents (extension)', () => {
    it("lists the organization's agents newest first in envelope B, paged by page and size", async () => {
      const fresh = await server.createOrganization('Lister');
      const own = restClient(server, fresh.organizationId, fresh.apiKey);
      const created: Record<string, any>[] = [];
      for (const name of ['A1', 'A2', 'A3']) {
        created.push(await createAgent({ name }, own));
        // Distinct creation times: "newest first" is by created_at (millisecond precision).
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      await createAgent({ name: 'Not theirs' });

      const all = await own('GET', url('/agents'));
      expect(all.status).toBe(200);
      expect(metaEnvelopeSchema(agentSchema).parse(all.body)).toEqual(all.body);
      expect(Object.keys(all.body).sort()).toEqual(['data', 'meta']);
      expect(all.body.meta).toEqual({ page: 1, size: 20, total: 3, total_pages: 1 });
      expect(all.body.data).toEqual([...created].reverse());
      for (const agent of all.body.data) expect(agentSchema.parse(agent)).toEqual(agent);

      const page2 = await own('GET', url('/agents?page=2&size=2'));
      expect(page2.body).toEqual({ data: [created[0]], meta: { page: 2, size: 2, total: 3, total_pages: 2 } });
      expect((await own('GET', url('/agents?page=5&size=2'))).body).toEqual({
        data: [],
        meta: { page: 5, size: 2, total: 3, total_pages: 2 },
      });
      expect((await own('GET', url('/agents?size=100'))).body.meta).toEqual({
        page: 1,
        size: 100,
        total: 3,
        total_pages: 1,
      });
      expect((await own('GET', url('/agents?size=1'))).body.meta).toEqual({
        page: 1,
        size: 1,
        total: 3,
        total_pages: 3,
      });
    });

    it('refuses out-of-range paging with 400, and answers 401 and 404 for a foreign path', async () => {
      for (const [query, path] of [
        ['size=0', 'size'],
        ['size=101', 'size'],
        ['size=x', 'size'],
        ['page=0', 'page'],
        ['page=-1', 'page'],
        ['page=1.5', 'page'],
      ] as const) {
        const error = expectErrorBody(await rest('GET', url(`/agents?${query}`)), 400);
        expect(
          error.error.map((problem: { path: string }) => problem.path),
          query,
        ).toEqual([path]);
      }
      await expectAuthAndTenancy('GET', '/agents');
    });
  });

  describe('E2 GET /agents/{agent_id}', () => {
    it('reads the agent field by field, tools included', async () => {
      const agent = await createAgent(fullAgent);
      const tools = [
        {
          name: 'lookup_order',
          description: 'Finds an order',
          url: 'https://shop.example.com/orders',
          method: 'GET',
          isEnabled: false,
          configOverride: { retry_count: 2, nestedKey: { inner_key: true } },
          parameters: [
            { name: 'order_id', description: 'The order', type: 'string', required: true },
            { name: 'verbose', type: 'boolean' },
          ],
        },
        { name: 'book' },
      ];
      const setTools = (
        await server.graphql(
          apiKey,
          `mutation($id: ID!, $tools: [AgentToolInput!]!) { setAgentTools(agentId: $id, tools: $tools) { id } }`,
          {
            id: agent.id,
            tools,
          },
        )
      ).body;
      expect(setTools.errors).toBeUndefined();

      const response = await rest('GET', url(`/agents/${agent.id}`));
      expect(response.status).toBe(200);
      expect(agentSchema.parse(response.body)).toEqual(response.body);
      expect(response.body).toEqual({ ...agent, updated_at: expect.stringMatching(ISO), tools: expect.any(Array) });
      expect(response.body.tools).toEqual([
        {
          tool_id: expect.stringMatching(/^tool_/),
          name: 'lookup_order',
          description: 'Finds an order',
          url: 'https://shop.example.com/orders',
          method: 'GET',
          is_enabled: false,
          config_override: { retry_count: 2, nestedKey: { inner_key: true } },
          parameters: [
            { name: 'order_id', description: 'The order', type: 'string', required: true },
            { name: 'verbose', description: '', type: 'boolean', required: false },
          ],
        },
        {
          tool_id: expect.stringMatching(/^tool_/),
          name: 'book',
          description: '',
          url: '',
          method: 'POST',
          is_enabled: true,
          config_override: {},
          parameters: [],
        },
      ]);
    });

    it("answers 404 for an unknown id and another organization's agent, 401 without a valid key", async () => {
      const agent = await createAgent();
      const foreign = await createAgent({ name: 'Theirs' }, otherRest);
      expect(expectErrorBody(await rest('GET', url('/agents/agt_missing')), 404).message).toMatch(/not found/);
      expectErrorBody(await rest('GET', url('/agents/not-even-a-prefix')), 404);
      expectErrorBody(await rest('GET', url(`/agents/${foreign.id}`)), 404);
      await expectAuthAndTenancy('GET', `/agents/${agent.id}`);
      expect((await otherRest('GET', url(`/agents/${agent.id}`).replace('{org}', otherOrganizationId))).status).toBe(
        404,
      );
    });
  });

  describe('E1 PATCH /agents/{agent_id}', () => {
    it('is a partial update: absent members stay, a config object given replaces it whole, null clears it', async () => {
      const agent = await createAgent(fullAgent);

      const renamed = await rest('PATCH', url(`/agents/${agent.id}`), { body: { name: 'Renamed' } });
      expect(renamed.status).toBe(200);
      expect(agentSchema.parse(renamed.body)).toEqual(renamed.body);
      expect(renamed.body).toEqual({ ...agent, name: 'Renamed', updated_at: expect.stringMatching(ISO) });
      expect(Date.parse(renamed.body.updated_at)).toBeGreaterThanOrEqual(Date.parse(agent.updated_at));

      // A given config object replaces the stored one: members it does not name are gone.
      const replaced = await rest('PATCH', url(`/agents/${agent.id}`), {
        body: { llm_config: { provider: 'groq', model: 'llama-3' }, goodbye_config: { message: 'Bye' } },
      });
      expect(replaced.status).toBe(200);
      expect(replaced.body).toEqual({
        ...agent,
        name: 'Renamed',
        llm_config: { provider: 'groq', model: 'llama-3' },
        goodbye_config: { message: 'Bye' },
        updated_at: expect.stringMatching(ISO),
      });

      const cleared = await rest('PATCH', url(`/agents/${agent.id}`), {
        body: { goodbye_config: null, vad_config: null },
      });
      expect(cleared.status).toBe(200);
      expect(cleared.body).toMatchObject({
        goodbye_config: null,
        vad_config: null,
        llm_config: { provider: 'groq', model: 'llama-3' },
      });
      expect(cleared.body.voice_config).toEqual(fullAgent.voice_config);

      const scalars = await rest('PATCH', url(`/agents/${agent.id}`), {
        body: { type: 'video', prompt_template: '', default_functions: [], plugins: [] },
      });
      expect(scalars.body).toMatchObject({
        type: 'video',
        prompt_template: '',
        default_functions: [],
        plugins: [],
        name: 'Renamed',
      });

      const charset = await rest('PATCH', url(`/agents/${agent.id}`), {
        body: { prompt_template: 'Grüß {{name}}' },
        headers: { 'content-type': 'application/json; charset=utf-8' },
      });
      expect(charset.body).toMatchObject({ prompt_template: 'Grüß {{name}}', type: 'video' });
      await rest('PATCH', url(`/agents/${agent.id}`), { body: { prompt_template: '' } });

      const empty = await rest('PATCH', url(`/agents/${agent.id}`), { body: {} });
      expect(empty.status).toBe(200);
      expect(empty.body).toEqual({ ...scalars.body, updated_at: expect.stringMatching(ISO) });
      expect(await readAgent(agent.id)).toEqual({ ...empty.body, updated_at: expect.stringMatching(ISO) });
    });

    it('keeps concurrent partial updates of different members (none is lost)', async () => {
      const agent = await createAgent({ name: 'Concurrent' });
      const updates = CONFIG_MEMBERS.map((member) => ({ [member]: fullAgent[member] }));
      const responses = await Promise.all(updates.map((body) => rest('PATCH', url(`/agents/${agent.id}`), { body })));
      expect(responses.map((response) => response.status)).toEqual(updates.map(() => 200));
      const read = await readAgent(agent.id);
      for (const member of CONFIG_MEMBERS) expect(read[member], member).toEqual(fullAgent[member]);
      expect(read.name).toBe('Concurrent');
    });

    it('accepts config members and plugins as UTF-8 JSON bytes, equal to the JSON value', async () => {
      const agent = await createAgent();
      const response = await rest('PATCH', url(`/agents/${agent.id}`), {
        body: {
          ...Object.fromEntries(CONFIG_MEMBERS.map((member) => [member, bytes(fullAgent[member])])),
          plugins: bytes(fullAgent.plugins),
        },
      });
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      for (const member of CONFIG_MEMBERS) expect(response.body[member], member).toEqual(fullAgent[member]);
      expect(response.body.plugins).toEqual(fullAgent.plugins);
      expect(await readAgent(agent.id)).toEqual(response.body);
    });

    it('accepts every inclusive bound (0, 1, 2, 8000, 48000, 60, ...)', async () => {
      const agent = await createAgent();
      for (const bounds of [lowerBounds, upperBounds]) {
        const response = await rest('PATCH', url(`/agents/${agent.id}`), { body: bounds });
        expect(response.status, JSON.stringify(response.body)).toBe(200);
        for (const [member, value] of Object.entries(bounds)) expect(response.body[member], member).toEqual(value);
        const read = await readAgent(agent.id);
        for (const [member, value] of Object.entries(bounds)) expect(read[member], member).toEqual(value);
      }
    });

    it('accepts vendor-only members for any vendor and stores them as given', async () => {
      const agent = await createAgent();
      const body = {
        llm_config: { provider: 'azure', model: 'm', top_k: 3, presence_penalty: 1 },
        transcriber_config: { provider: 'google', commit_strategy: 'manual', interim_results: true, keyterms: ['x'] },
        voice_config: {
          provider: 'any',
          model: 'm',
          pitch: 3,
          intensity: 1,
          timbre: 2,
          enable_ssml_parsing: true,
          user_instructions: 'abc',
        },
      };
      const response = await rest('PATCH', url(`/agents/${agent.id}`), { body });
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject(body);
    });

    it('round-trips fallbacks nested five levels deep exactly through E1 and E2 (JSON and bytes)', async () => {
      const agent = await createAgent();
      const deep = { llm_config: deepLlm(), transcriber_config: deepTranscriber(), voice_config: deepVoice() };
      // Five levels below the primary.
      expect(JSON.stringify(deep.llm_config).match(/"fallbacks"/g)).toHaveLength(5);
      const patched = await rest('PATCH', url(`/agents/${agent.id}`), { body: deep });
      expect(patched.status, JSON.stringify(patched.body)).toBe(200);
      expect(patched.body).toMatchObject(deep);
      for (const member of Object.keys(deep) as (keyof typeof deep)[])
        expect(patched.body[member]).toEqual(deep[member]);
      const read = await readAgent(agent.id);
      for (const member of Object.keys(deep) as (keyof typeof deep)[]) expect(read[member]).toEqual(deep[member]);

      const other = await createAgent();
      const viaBytes = await rest('PATCH', url(`/agents/${other.id}`), {
        body: Object.fromEntries(Object.entries(deep).map(([member, value]) => [member, bytes(value)])),
      });
      expect(viaBytes.status).toBe(200);
      const readBytes = await readAgent(other.id);
      for (const member of Object.keys(deep) as (keyof typeof deep)[]) expect(readBytes[member]).toEqual(deep[member]);
    });

    it('refuses every out-of-bound, mistyped, missing or unknown member with 400 naming its path; nothing is written', async () => {
      const agent = await createAgent(fullAgent);
      const before = await readAgent(agent.id);
      for (const [path, body] of invalidUpdates) {
        const response = await rest('PATCH', url(`/agents/${agent.id}`), {
          body: { name: 'Must not be written', ...body },
        });
        const error = expectErrorBody(response, 400);
        const problems = error.error as { path: string; rule: string; message: string }[];
        expect(
          problems.map((problem) => problem.path),
          JSON.stringify(body).slice(0, 200),
        ).toContain(path);
        for (const problem of problems)
          expect(problem).toEqual({ path: expect.any(String), rule: expect.any(String), message: expect.any(String) });
        expect(error.message).toContain(path);
      }
      expect(await readAgent(agent.id)).toEqual(before);
    });

    it('names each offending field when several are wrong', async () => {
      const agent = await createAgent();
      const error = expectErrorBody(
        await rest('PATCH', url(`/agents/${agent.id}`), {
          body: {
            voice_config: { ...voiceOk, sample_rate: 100 },
            goodbye_config: { message: 'g'.repeat(501) },
            precall_webhook: { ...webhookOk, timeout_seconds: 61 },
            transcriber_config: {},
          },
        }),
        400,
      );
      expect(error.error.map((problem: { path: string }) => problem.path).sort()).toEqual(
        [
          'goodbye_config.message',
          'precall_webhook.timeout_seconds',
          'transcriber_config.provider',
          'voice_config.sample_rate',
        ].sort(),
      );
      expect(error.error).toContainEqual(
        expect.objectContaining({ path: 'transcriber_config.provider', rule: 'required' }),
      );
      expect(error.error).toContainEqual(
        expect.objectContaining({ path: 'goodbye_config.message', rule: 'maximum 500' }),
      );
    });

    it("answers 404 for an unknown id and another organization's agent, leaving it untouched", async () => {
      const foreign = await createAgent({ name: 'Theirs', goodbye_config: { message: 'kept' } }, otherRest);
      expectErrorBody(await rest('PATCH', url('/agents/agt_missing'), { body: { name: 'x' } }), 404);
      expectErrorBody(
        await rest('PATCH', url(`/agents/${foreign.id}`), { body: { name: 'Hijacked', goodbye_config: null } }),
        404,
      );
      const theirs = await otherRest('GET', url(`/agents/${foreign.id}`).replace('{org}', otherOrganizationId));
      expect(theirs.body).toEqual(foreign);
    });

    it('answers 401, 404 for a foreign path, 400 malformed or missing body, 415 and 413, writing nothing', async () => {
      const agent = await createAgent({ name: 'Steady' });
      await expectAuthAndTenancy('PATCH', `/agents/${agent.id}`, { name: 'Changed' });
      await expectBodyErrors('PATCH', `/agents/${agent.id}`, { name: 'Big', prompt_template: 'p'.repeat(ONE_MIB) });
      expectErrorBody(await rest('PATCH', url(`/agents/${agent.id}`)), 400);
      expectErrorBody(await rest('PATCH', url(`/agents/${agent.id}`), { body: [] }), 400);
      expectErrorBody(await rest('PATCH', url(`/agents/${agent.id}`), { body: 'name' }), 400);
      expectErrorBody(await rest('PATCH', url(`/agents/${agent.id}`), { raw: '' }), 400);
      expectErrorBody(await rest('PATCH', url(`/agents/${agent.id}`), { raw: 'null' }), 400);
      expect(await readAgent(agent.id)).toEqual(agent);
    });
  });

  describe('E3 DELETE /agents/{agent_id}', () => {
    it('answers 200 {}; the agent then reads 404 and its evaluations are gone', async () => {
      const agent = await createAgent(fullAgent);
      const kept = await createAgent({ name: 'Kept' });
      await createEvaluation({ agent_id: agent.id, score: 10 });
      await createEvaluation({ agent_id: agent.id, score: 20 });
      await createEvaluation({ agent_id: kept.id, score: 30 });
      expect(await evaluationsOf(agent.id)).toBe(2);

      const response = await rest('DELETE', url(`/agents/${agent.id}`));
      expect(response.status).toBe(200);
      expect(response.body).toEqual({});

      expectErrorBody(await rest('GET', url(`/agents/${agent.id}`)), 404);
      expectErrorBody(await rest('PATCH', url(`/agents/${agent.id}`), { body: { name: 'x' } }), 404);
      expectErrorBody(await rest('GET', url(`/agents/evals?agent_id=${agent.id}`)), 404);
      expectErrorBody(await rest('POST', url('/agents/evals'), { body: { agent_id: agent.id, score: 1 } }), 404);
      expect(await evaluationsOf(agent.id)).toBe(0);
      const listed = await rest('GET', url('/agents?size=100'));
      expect(listed.body.data.map((item: { id: string }) => item.id)).not.toContain(agent.id);
      expect((await rest('GET', url(`/agents/evals?agent_id=${kept.id}`))).body.meta.total).toBe(1);

      expectErrorBody(await rest('DELETE', url(`/agents/${agent.id}`)), 404);
    });

    it("answers 404 for an unknown id and another organization's agent, 401 without a valid key, deleting nothing", async () => {
      const agent = await createAgent({ name: 'Survivor' });
      const foreign = await createAgent({ name: 'Theirs' }, otherRest);
      expectErrorBody(await rest('DELETE', url('/agents/agt_missing')), 404);
      expectErrorBody(await rest('DELETE', url(`/agents/${foreign.id}`)), 404);
      expect((await otherRest('GET', url(`/agents/${foreign.id}`).replace('{org}', otherOrganizationId))).status).toBe(
        200,
      );
      await expectAuthAndTenancy('DELETE', `/agents/${agent.id}`);
      expect(await readAgent(agent.id)).toEqual(agent);
    });
  });

  describe('E18 POST /agents/evals', () => {
    it('creates an evaluation: 201 and the Evaluation record field by field', async () => {
      const agent = await createAgent();
      const response = await rest('POST', url('/agents/evals'), {
        body: { agent_id: agent.id, category: 'tone', title: 'Polite', prompt: 'Was the agent polite?', score: 87 },
      });
      expect(response.status).toBe(201);
      expect(evaluationSchema.parse(response.body)).toEqual(response.body);
      expect(Object.keys(response.body).sort()).toEqual([
        'agent_id',
        'category',
        'created_at',
        'id',
        'org_id',
        'prompt',
        'score',
        'title',
      ]);
      expect(response.body).toEqual({
        id: expect.any(Number),
        agent_id: agent.id,
        org_id: organizationId,
        category: 'tone',
        title: 'Polite',
        prompt: 'Was the agent polite?',
        score: 87,
        created_at: expect.stringMatching(ISO),
      });
      expect(Number.isInteger(response.body.id)).toBe(true);
    });

    it('accepts scores 0 and 100, optional strings default to ""', async () => {
      const agent = await createAgent();
      const low = await createEvaluation({ agent_id: agent.id, score: 0 });
      expect(low).toMatchObject({ score: 0, category: '', title: '', prompt: '' });
      const high = await createEvaluation({ agent_id: agent.id, score: 100 });
      expect(high.score).toBe(100);
      expect(high.id).toBeGreaterThan(low.id);
    });

    it('refuses bad bodies with 400 naming the field; nothing is written', async () => {
      const agent = await createAgent();
      for (const [path, body] of [
        ['score', { agent_id: agent.id, score: -1 }],
        ['score', { agent_id: agent.id, score: 101 }],
        ['score', { agent_id: agent.id, score: 50.5 }],
        ['score', { agent_id: agent.id, score: '50' }],
        ['score', { agent_id: agent.id }],
        ['agent_id', { score: 50 }],
        ['agent_id', { agent_id: '', score: 50 }],
        ['title', { agent_id: agent.id, score: 50, title: 7 }],
        ['stars', { agent_id: agent.id, score: 50, stars: 5 }],
      ] as const) {
        const error = expectErrorBody(await rest('POST', url('/agents/evals'), { body }), 400);
        expect(
          error.error.map((problem: { path: string }) => problem.path),
          JSON.stringify(body),
        ).toContain(path);
      }
      expect(expectErrorBody(await rest('POST', url('/agents/evals'), { body: { score: 50 } }), 400).error).toEqual([
        expect.objectContaining({ path: 'agent_id', rule: 'required' }),
      ]);
      expect(await evaluationsOf(agent.id)).toBe(0);
    });

    it("answers 404 for an unknown agent and another organization's agent, writing nothing", async () => {
      const foreign = await createAgent({ name: 'Theirs' }, otherRest);
      expectErrorBody(await rest('POST', url('/agents/evals'), { body: { agent_id: 'agt_missing', score: 1 } }), 404);
      expectErrorBody(await rest('POST', url('/agents/evals'), { body: { agent_id: foreign.id, score: 1 } }), 404);
      expect(await evaluationsOf(foreign.id)).toBe(0);
    });

    it('answers 401, 404 for a foreign path, 400 malformed, 415 and 413, writing nothing', async () => {
      const agent = await createAgent();
      await expectAuthAndTenancy('POST', '/agents/evals', { agent_id: agent.id, score: 1 });
      await expectBodyErrors('POST', '/agents/evals', { agent_id: agent.id, score: 1, prompt: 'p'.repeat(ONE_MIB) });
      expect(await evaluationsOf(agent.id)).toBe(0);
    });
  });

  describe('E19 GET /agents/evals', () => {
    it("lists the agent's evaluations newest first in envelope B, paged by page and size", async () => {
      const agent = await createAgent();
      const other = await createAgent();
      const created: Record<string, any>[] = [];
      for (const score of [10, 20, 30])
        created.push(await createEvaluation({ agent_id: agent.id, score, title: `T${score}` }));
      await createEvaluation({ agent_id: other.id, score: 99 });

      const all = await rest('GET', url(`/agents/evals?agent_id=${agent.id}`));
      expect(all.status).toBe(200);
      expect(metaEnvelopeSchema(evaluationSchema).parse(all.body)).toEqual(all.body);
      expect(Object.keys(all.body).sort()).toEqual(['data', 'meta']);
      expect(all.body).toEqual({ data: [...created].reverse(), meta: { page: 1, size: 20, total: 3, total_pages: 1 } });
      for (const evaluation of all.body.data) expect(evaluationSchema.parse(evaluation)).toEqual(evaluation);

      const page2 = await rest('GET', url(`/agents/evals?agent_id=${agent.id}&page=2&size=2`));
      expect(page2.body).toEqual({ data: [created[0]], meta: { page: 2, size: 2, total: 3, total_pages: 2 } });
      const page1 = await rest('GET', url(`/agents/evals?agent_id=${agent.id}&page=1&size=2`));
      expect(page1.body).toEqual({
        data: [created[2], created[1]],
        meta: { page: 1, size: 2, total: 3, total_pages: 2 },
      });
      expect((await rest('GET', url(`/agents/evals?agent_id=${agent.id}&page=3&size=2`))).body).toEqual({
        data: [],
        meta: { page: 3, size: 2, total: 3, total_pages: 2 },
      });
      expect((await rest('GET', url(`/agents/evals?agent_id=${agent.id}&size=100`))).body.meta).toEqual({
        page: 1,
        size: 100,
        total: 3,
        total_pages: 1,
      });

      const none = await createAgent();
      expect((await rest('GET', url(`/agents/evals?agent_id=${none.id}`))).body).toEqual({
        data: [],
        meta: { page: 1, size: 20, total: 0, total_pages: 0 },
      });
    });

    it('refuses a missing agent_id and out-of-range paging with 400 naming the parameter', async () => {
      const agent = await createAgent();
      expect(expectErrorBody(await rest('GET', url('/agents/evals')), 400).error).toEqual([
        expect.objectContaining({ path: 'agent_id', rule: 'required' }),
      ]);
      expect(
        expectErrorBody(await rest('GET', url('/agents/evals?page=1&size=5')), 400).error.map(
          (p: { path: string }) => p.path,
        ),
      ).toEqual(['agent_id']);
      expect(
        expectErrorBody(await rest('GET', url('/agents/evals?agent_id=')), 400).error.map(
          (p: { path: string }) => p.path,
        ),
      ).toEqual(['agent_id']);
      for (const [query, path] of [
        ['size=0', 'size'],
        ['size=101', 'size'],
        ['size=ten', 'size'],
        ['page=0', 'page'],
        ['page=x', 'page'],
      ] as const) {
        const error = expectErrorBody(await rest('GET', url(`/agents/evals?agent_id=${agent.id}&${query}`)), 400);
        expect(
          error.error.map((problem: { path: string }) => problem.path),
          query,
        ).toEqual([path]);
      }
    });

    it("answers 404 for an unknown agent and another organization's agent, 401 without a valid key", async () => {
      const agent = await createAgent();
      const foreign = await createAgent({ name: 'Theirs' }, otherRest);
      await otherRest('POST', url('/agents/evals').replace('{org}', otherOrganizationId), {
        body: { agent_id: foreign.id, score: 5 },
      });
      expectErrorBody(await rest('GET', url('/agents/evals?agent_id=agt_missing')), 404);
      expectErrorBody(await rest('GET', url(`/agents/evals?agent_id=${foreign.id}`)), 404);
      await expectAuthAndTenancy('GET', `/agents/evals?agent_id=${agent.id}`);
    });
  });
});

describe('REST: E1 has its own rate limit (429 with Retry-After)', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer({ rateLimits: { perOrganization: 1000, agentUpdate: 3, windowMs: 60_000 } });
  });
  afterAll(() => server.close());

  it.each(PREFIXES)(
    'under %s: over the quota E1 answers 429 in the error body while E2 still answers',
    async (prefix) => {
      // An organization of its own per prefix: the counters are per organization.
      const org = await server.createOrganization(`Limited ${prefix}`);
      const rest = restClient(server, org.organizationId, org.apiKey);
      const created = await rest('POST', `${prefix}/agents`, { body: { name: 'Busy' } });
      const id = created.body.id as string;
      const responses: RestResponse[] = [];
      for (let index = 0; index < 4; index++)
        responses.push(await rest('PATCH', `${prefix}/agents/${id}`, { body: { name: `N${index}` } }));
      const limited = responses.find((response) => response.status === 429);
      expect(limited, responses.map((response) => response.status).join()).toBeDefined();
      expectErrorBody(limited!, 429);
      expect(Number(limited!.headers.get('retry-after'))).toBeGreaterThan(0);
      expect((await rest('GET', `${prefix}/agents/${id}`)).status).toBe(200);
    },
  );
});
