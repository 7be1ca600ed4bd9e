import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentUpdate } from '../src/domain/agents.ts';
import { DomainError } from '../src/domain/errors.ts';
import { parseOrThrow } from '../src/domain/validation.ts';
import { camelCase } from '../src/records/names.ts';
import { agentConfigMembers as configMembers, fullAgent } from './support/agent-configs.ts';
import { graphqlCalls } from './support/graphql.ts';
import { startTestServer, type TestServer } from './support/server.ts';
import { recordStatements } from './support/statements.ts';

// Members whose content is free-form JSON: their keys are not renamed and they have no sub-selection.
const JSON_MEMBERS = new Set(['plugins', 'headers', 'body_template', 'config_override']);

/** The stored (snake_case) shape as GraphQL input (camelCase). */
function toGraphQL(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(toGraphQL);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, member]) => [camelCase(key), JSON_MEMBERS.has(key) ? member : toGraphQL(member)]),
  );
}

/** A selection set asking for every member the samples have, to any depth. */
function selectionOf(samples: object[]): string {
  const children = new Map<string, unknown[]>();
  for (const sample of samples) {
    for (const [key, member] of Object.entries(sample)) {
      children.set(key, [...(children.get(key) ?? []), ...(Array.isArray(member) ? member : [member])]);
    }
  }
  const fields = [...children].map(([key, members]) => {
    const objects = members.filter((member): member is object => member !== null && typeof member === 'object');
    return JSON_MEMBERS.has(key) || objects.length === 0 ? camelCase(key) : `${camelCase(key)} ${selectionOf(objects)}`;
  });
  return `{ ${fields.join(' ')} }`;
}

/** Output members that are null were absent from the input. */
function withoutNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutNulls);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([, member]) => member !== null)
      .map(([key, member]) => [key, JSON_MEMBERS.has(key) ? member : withoutNulls(member)]),
  );
}

const agentSelection = `id organizationId publicQuota allowedSipTrunks createdAt updatedAt ${selectionOf([fullAgent]).slice(1, -1)}`;

describe('GraphQL: agents, tools and evaluations', () => {
  let server: TestServer;
  let apiKey: string;
  let organizationId: string;
  let other: { apiKey: string };
  const { gql, ok } = graphqlCalls(
    () => server,
    () => apiKey,
  );
  /** The agent's row as stored: config members are their snake_case JSON value. */
  const storedAgent = (id: string) => server.db.prisma.agent.findFirst({ where: { id } });

  beforeAll(async () => {
    server = await startTestServer();
    ({ apiKey, organizationId } = await server.createOrganization('Acme'));
    other = await server.createOrganization('Globex');
  });
  afterAll(() => server.close());

  async function newAgent(input: Record<string, unknown> = { name: 'Agent' }) {
    const data = await ok(`mutation($input: AgentCreateInput!) { createAgent(input: $input) { ${agentSelection} } }`, {
      input,
    });
    return data.createAgent;
  }

  const update = (id: string, input: Record<string, unknown>) =>
    gql(`mutation($id: ID!, $input: AgentUpdateInput!) { updateAgent(id: $id, input: $input) { ${agentSelection} } }`, {
      id,
      input,
    });

  it('creates an agent with every configuration object and reads it back exactly', async () => {
    const created = await newAgent(toGraphQL(fullAgent) as Record<string, unknown>);
    expect(created.id).toMatch(/^agt_/);
    expect(created).toMatchObject({ organizationId, publicQuota: 0, allowedSipTrunks: [] });
    expect(created.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

    const read = await ok(
      `query($id: ID!) { agent(id: $id) { ${agentSelection} tools { id } } node(id: $id) { id } }`,
      {
        id: created.id,
      },
    );
    const {
      id: _id,
      organizationId: _org,
      publicQuota: _quota,
      allowedSipTrunks: _trunks,
      createdAt: _c,
      updatedAt: _u,
      ...config
    } = read.agent;
    expect(withoutNulls({ ...config, tools: undefined })).toEqual(toGraphQL(fullAgent));
    expect(read.agent.tools).toEqual([]);
    expect(read.node).toEqual({ id: created.id });

    const row = await storedAgent(created.id);
    for (const member of configMembers) expect(row![camelCase(member) as keyof typeof row]).toEqual(fullAgent[member]);
    expect(row!.plugins).toEqual(fullAgent.plugins);
  });

  it('lists agents newest first, page by page', async () => {
    const org = await server.createOrganization('Lister');
    for (const [index, name] of ['A1', 'A2', 'A3'].entries()) {
      const { body } = await server.graphql(
        org.apiKey,
        `mutation($n: String!) { createAgent(input: { name: $n }) { id } }`,
        { n: name },
      );
      // Distinct creation times: two creates within one millisecond would otherwise order by their random ids.
      await server.db.prisma.agent.updateMany({
        where: { id: body.data.createAgent.id },
        data: { createdAt: new Date(Date.UTC(2026, 0, 1, 0, index)) },
      });
    }
    const page = (after: string | null) =>
      server.graphql(
        org.apiKey,
        `query($a: String) { agents(first: 2, after: $a) { totalCount pageInfo { hasNextPage endCursor } nodes { name type } } }`,
        {
          a: after,
        },
      );
    const first = (await page(null)).body.data.agents;
    expect(first.totalCount).toBe(3);
    expect(first.nodes).toEqual([
      { name: 'A3', type: 'voice' },
      { name: 'A2', type: 'voice' },
    ]);
    expect(first.pageInfo.hasNextPage).toBe(true);
    const second = (await page(first.pageInfo.endCursor)).body.data.agents;
    expect(second.nodes).toEqual([{ name: 'A1', type: 'voice' }]);
    expect(second.pageInfo.hasNextPage).toBe(false);
  });

  it('lists agents with their tools and evaluations in a fixed number of statements', async () => {
    const org = await server.createOrganization('Batched');
    const as = (query: string, variables?: Record<string, unknown>) => server.graphql(org.apiKey, query, variables);
    for (let index = 0; index < 5; index++) {
      const { body } = await as(`mutation { createAgent(input: { name: "B${index}" }) { id } }`);
      const id = body.data.createAgent.id;
      await as(`mutation($id: ID!) { setAgentTools(agentId: $id, tools: [{ name: "a" }, { name: "b" }]) { id } }`, {
        id,
      });
      await as(`mutation($id: String!) { createEvaluation(input: { agentId: $id, score: 1 }) { id } }`, { id });
    }
    const query = `{ agents(first: 20) { totalCount nodes { name tools { name }
      evaluations(first: 5) { totalCount nodes { score agent { name } } } } } }`;
    const {
      result: { body },
      statements,
    } = await recordStatements(server.db, () => as(query));
    expect(body.errors).toBeUndefined();
    expect(body.data.agents.nodes).toHaveLength(5);
    for (const agent of body.data.agents.nodes) {
      expect(agent.tools).toEqual([{ name: 'a' }, { name: 'b' }]);
      expect(agent.evaluations).toEqual({ totalCount: 1, nodes: [{ score: 1, agent: { name: agent.name } }] });
    }
    // The agents, their count, tools, evaluation pages, evaluation counts, whatever the number of agents (the key
    // is remembered from the requests before: src/auth/api-key-cache.ts).
    expect(statements.length).toBeLessThanOrEqual(6);
    expect(statements).toMatchInlineSnapshot(`
      [
        "SELECT "public"."Agent"."id", "public"."Agent"."organizationId", "public"."Agent"."name", "public"."Agent"."type"::text, "public"."Agent"."promptTemplate", "public"."Agent"."publicQuota", "public"."Agent"."allowedSipTrunks", "public"."Agent"."defaultFunctions", "public"."Agent"."plugins", "public"."Agent"."backgroundSound", "public"."Agent"."extraConfig", "public"."Agent"."goodbyeConfig", "public"."Agent"."greetingConfig", "public"."Agent"."llmConfig", "public"."Agent"."precallWebhook", "public"."Agent"."roomDurationConfig", "public"."Agent"."transcriberConfig", "public"."Agent"."vadConfig", "public"."Agent"."voiceConfig", "public"."Agent"."createdAt", "public"."Agent"."updatedAt" FROM "public"."Agent" WHERE "public"."Agent"."organizationId" = $n ORDER BY "public"."Agent"."createdAt" DESC, "public"."Agent"."id" DESC LIMIT $n OFFSET $n",
        "SELECT "public"."AgentTool"."id", "public"."AgentTool"."organizationId", "public"."AgentTool"."agentId", "public"."AgentTool"."position", "public"."AgentTool"."name", "public"."AgentTool"."description", "public"."AgentTool"."url", "public"."AgentTool"."method", "public"."AgentTool"."isEnabled", "public"."AgentTool"."configOverride", "public"."AgentTool"."parameters", "public"."AgentTool"."createdAt", "public"."AgentTool"."updatedAt" FROM "public"."AgentTool" WHERE ("public"."AgentTool"."agentId" IN ($…) AND "public"."AgentTool"."organizationId" = $n) ORDER BY "public"."AgentTool"."position" ASC OFFSET $n",
        "SELECT COUNT(*) AS "_count$_all" FROM (SELECT "public"."Agent"."id", "public"."Agent"."organizationId" FROM "public"."Agent" WHERE "public"."Agent"."organizationId" = $n OFFSET $n) AS "sub"",
        "SELECT c."agentId" AS parent, count(*) AS count FROM "Evaluation" AS c WHERE c."agentId" = ANY($n::text[]) AND c."organizationId" = $n GROUP BY 1",
        "SELECT parent.id AS parent, page.rows FROM unnest($n::text[]) AS parent(id) CROSS JOIN LATERAL ( SELECT json_agg(to_json(c) ORDER BY c."createdAt" DESC, c.id DESC) AS rows FROM ( SELECT c.* FROM ( SELECT c.* FROM "Evaluation" AS c WHERE c."agentId" = parent.id AND c."organizationId" = $n ORDER BY c."createdAt" DESC, c.id DESC LIMIT $n ) AS c ) AS c ) AS page",
      ]
    `);
  });

  it('updates partially: absent members stay, a config given replaces that object whole', async () => {
    const created = await newAgent(toGraphQL(fullAgent) as Record<string, unknown>);
    const before = await storedAgent(created.id);
    const body = await update(created.id, {
      name: 'Renamed',
      goodbyeConfig: { message: 'Later' },
      defaultFunctions: [],
    });
    expect(body.errors).toBeUndefined();
    const updated = body.data.updateAgent;
    expect(updated.name).toBe('Renamed');
    expect(updated.goodbyeConfig).toEqual({ enabled: null, message: 'Later' });
    expect(updated.defaultFunctions).toEqual([]);
    expect(new Date(updated.updatedAt).getTime()).toBeGreaterThanOrEqual(new Date(created.updatedAt).getTime());

    const after = await storedAgent(created.id);
    expect(after!.goodbyeConfig).toEqual({ message: 'Later' });
    expect({ ...after, name: '', goodbyeConfig: null, defaultFunctions: [], updatedAt: null }).toEqual({
      ...before,
      name: '',
      goodbyeConfig: null,
      defaultFunctions: [],
      updatedAt: null,
    });

    // An empty update changes nothing but updatedAt.
    expect((await update(created.id, {})).data.updateAgent.name).toBe('Renamed');
  });

  it('clears a configuration object given as null, and only that one', async () => {
    const created = await newAgent(toGraphQL(fullAgent) as Record<string, unknown>);
    const body = await update(created.id, { llmConfig: null, voiceConfig: null });
    expect(body.errors).toBeUndefined();
    expect(body.data.updateAgent.llmConfig).toBeNull();
    expect(body.data.updateAgent.voiceConfig).toBeNull();
    const row = await storedAgent(created.id);
    expect(row!.llmConfig).toBeNull();
    expect(row!.voiceConfig).toBeNull();
    expect(row!.transcriberConfig).toEqual(fullAgent.transcriber_config);
    expect(row!.name).toBe(fullAgent.name);

    // A cleared config can be set again.
    const again = await update(created.id, { llmConfig: { provider: 'google', model: 'gemini' } });
    expect(withoutNulls(again.data.updateAgent.llmConfig)).toEqual({ provider: 'google', model: 'gemini' });
  });

  const long = (length: number) => 'x'.repeat(length);
  const llmWith = (fallback: Record<string, unknown>) => ({
    provider: 'openai',
    model: 'm',
    fallbacks: [{ provider: 'groq', model: 'f', ...fallback }],
  });
  const refused: [string, Record<string, unknown>, string][] = [
    [
      'a fallback temperature above 2',
      { llmConfig: llmWith({ temperature: 2.5 }) },
      'llm_config.fallbacks.0.temperature',
    ],
    [
      'a temperature below 0',
      { llmConfig: { provider: 'openai', model: 'm', temperature: -0.1 } },
      'llm_config.temperature',
    ],
    [
      'a second-level fallback top_p above 1',
      { llmConfig: llmWith({ fallbacks: [{ provider: 'azure', model: 'x', topP: 1.5 }] }) },
      'llm_config.fallbacks.0.fallbacks.0.top_p',
    ],
    ['an unknown llm provider', { llmConfig: { provider: 'mistral', model: 'm' } }, 'llm_config.provider'],
    [
      'a frequency penalty below -2',
      { llmConfig: { provider: 'openai', model: 'm', frequencyPenalty: -2.01 } },
      'llm_config.frequency_penalty',
    ],
    ['max_tokens 0', { llmConfig: { provider: 'openai', model: 'm', maxTokens: 0 } }, 'llm_config.max_tokens'],
    ['a goodbye message of 501 characters', { goodbyeConfig: { message: long(501) } }, 'goodbye_config.message'],
    [
      'voice user_instructions of 2 characters',
      { voiceConfig: { provider: 'p', model: 'm', userInstructions: 'ab' } },
      'voice_config.user_instructions',
    ],
    [
      'voice user_instructions of 1001 characters',
      { voiceConfig: { provider: 'p', model: 'm', userInstructions: long(1001) } },
      'voice_config.user_instructions',
    ],
    [
      'a voice sample rate of 48001',
      { voiceConfig: { provider: 'p', model: 'm', sampleRate: 48001 } },
      'voice_config.sample_rate',
    ],
    [
      'a transcriber sample rate of 7999',
      { transcriberConfig: { provider: 'deepgram', sampleRate: 7999 } },
      'transcriber_config.sample_rate',
    ],
    [
      'a transcriber sample rate of 48001',
      { transcriberConfig: { provider: 'deepgram', sampleRate: 48001 } },
      'transcriber_config.sample_rate',
    ],
    [
      'a second-level transcriber fallback sample rate of 7999',
      {
        transcriberConfig: {
          provider: 'deepgram',
          fallbacks: [{ provider: 'google', fallbacks: [{ provider: 'azure', sampleRate: 7999 }] }],
        },
      },
      'transcriber_config.fallbacks.0.fallbacks.0.sample_rate',
    ],
    ['an unknown transcriber provider', { transcriberConfig: { provider: 'whisper' } }, 'transcriber_config.provider'],
    ['a vad sample rate of 7999', { vadConfig: { sampleRate: 7999 } }, 'vad_config.sample_rate'],
    ['a vad sample rate of 48001', { vadConfig: { sampleRate: 48001 } }, 'vad_config.sample_rate'],
    [
      'a precall timeout of 0',
      { precallWebhook: { method: 'POST', url: 'https://x', timeoutSeconds: 0 } },
      'precall_webhook.timeout_seconds',
    ],
    [
      'a precall timeout of 61',
      { precallWebhook: { method: 'POST', url: 'https://x', timeoutSeconds: 61 } },
      'precall_webhook.timeout_seconds',
    ],
    ['a precall method DELETE', { precallWebhook: { method: 'DELETE', url: 'https://x' } }, 'precall_webhook.method'],
    [
      'an interruption sensitivity above 1',
      { extraConfig: { interruptionSensitivity: 1.01 } },
      'extra_config.interruption_sensitivity',
    ],
    ['an unknown gender plugin', { extraConfig: { useGenderPlugin: 'loud' } }, 'extra_config.use_gender_plugin'],
    [
      'a negative pause before the first message',
      { greetingConfig: { pauseBeforeFirstMessage: -1 } },
      'greeting_config.pause_before_first_message',
    ],
    [
      'a max duration of 0 minutes',
      { roomDurationConfig: { maxDurationMin: 0 } },
      'room_duration_config.max_duration_min',
    ],
    [
      'a thinking sound probability above 1',
      { backgroundSound: { file: 'f.mp3', thinkingSound: [{ sound: 's', probability: 2 }] } },
      'background_sound.thinking_sound.0.probability',
    ],
    ['a background volume above 1', { backgroundSound: { file: 'f.mp3', volume: 1.5 } }, 'background_sound.volume'],
    ['an unknown agent type', { type: 'fax' }, 'type'],
    ['an empty name', { name: '' }, 'name'],
  ];

  it.each(refused)('refuses %s with BAD_INPUT naming the field, writing nothing', async (_case, input, path) => {
    const created = await newAgent({ name: 'Bounds', llmConfig: { provider: 'openai', model: 'base' } });
    const before = await storedAgent(created.id);
    const body = await update(created.id, input);
    expect(body.data).toBeNull();
    expect(body.errors[0].extensions.code).toBe('BAD_INPUT');
    expect(body.errors[0].extensions.detail.map((problem: { path: string }) => problem.path)).toEqual([path]);
    expect(body.errors[0].message).toContain(path);
    expect(await storedAgent(created.id)).toEqual(before);

    const count = await server.db.prisma.agent.count();
    const create = await gql(`mutation($input: AgentCreateInput!) { createAgent(input: $input) { id } }`, {
      input: { name: 'New', ...input },
    });
    expect(create.errors[0].extensions.code).toBe('BAD_INPUT');
    expect(await server.db.prisma.agent.count()).toBe(count);
  });

  it('names every offending member when several are wrong', async () => {
    const created = await newAgent();
    const body = await update(created.id, {
      goodbyeConfig: { message: long(501) },
      vadConfig: { sampleRate: 48001, activationThreshold: 1.2 },
    });
    expect(body.errors[0].extensions.detail.map((problem: { path: string }) => problem.path).sort()).toEqual([
      'goodbye_config.message',
      'vad_config.activation_threshold',
      'vad_config.sample_rate',
    ]);
  });

  const missing: [string, Record<string, unknown>, string, string][] = [
    ['the llm provider', { llmConfig: { model: 'm' } }, 'input.llmConfig', 'provider'],
    ['the llm model', { llmConfig: { provider: 'openai' } }, 'input.llmConfig', 'model'],
    [
      'a fallback llm model',
      { llmConfig: { provider: 'openai', model: 'm', fallbacks: [{ provider: 'groq' }] } },
      'input.llmConfig.fallbacks[0]',
      'model',
    ],
    ['background_sound.file', { backgroundSound: { volume: 0.5 } }, 'input.backgroundSound', 'file'],
    [
      'thinking_sound.sound',
      { backgroundSound: { file: 'f', thinkingSound: [{ volume: 0.5 }] } },
      'input.backgroundSound.thinkingSound[0]',
      'sound',
    ],
    ['the precall method', { precallWebhook: { url: 'https://x' } }, 'input.precallWebhook', 'method'],
    ['the precall url', { precallWebhook: { method: 'GET' } }, 'input.precallWebhook', 'url'],
    ['the transcriber provider', { transcriberConfig: { model: 'nova' } }, 'input.transcriberConfig', 'provider'],
    ['the voice provider', { voiceConfig: { model: 'm' } }, 'input.voiceConfig', 'provider'],
    ['the voice model', { voiceConfig: { provider: 'p' } }, 'input.voiceConfig', 'model'],
  ];

  it.each(missing)('refuses a config without %s, naming where, writing nothing', async (_case, input, at, member) => {
    const created = await newAgent({ name: 'Required' });
    const before = await storedAgent(created.id);
    const body = await update(created.id, input);
    expect(body.data).toBeUndefined();
    // Required members are non-null in the input types: GraphQL refuses the variables before any resolver runs.
    expect(body.errors[0].message).toContain(`at "${at}"`);
    expect(body.errors[0].message).toContain(`Field "${member}"`);
    expect(await storedAgent(created.id)).toEqual(before);
  });

  it('refuses missing required members with their snake_case path in the domain rules (what REST bodies meet)', () => {
    const cases: [unknown, string][] = [
      [{ llm_config: { model: 'm' } }, 'llm_config.provider'],
      [{ llm_config: { provider: 'openai' } }, 'llm_config.model'],
      [
        { llm_config: { provider: 'openai', model: 'm', fallbacks: [{ provider: 'groq' }] } },
        'llm_config.fallbacks.0.model',
      ],
      [{ background_sound: {} }, 'background_sound.file'],
      [{ background_sound: { file: 'f', thinking_sound: [{}] } }, 'background_sound.thinking_sound.0.sound'],
      [{ precall_webhook: { url: 'u' } }, 'precall_webhook.method'],
      [{ precall_webhook: { method: 'GET' } }, 'precall_webhook.url'],
      [{ transcriber_config: {} }, 'transcriber_config.provider'],
      [{ voice_config: { model: 'm' } }, 'voice_config.provider'],
      [{ voice_config: { provider: 'p' } }, 'voice_config.model'],
    ];
    for (const [input, path] of cases) {
      const error = (() => {
        try {
          parseOrThrow(agentUpdate, input);
        } catch (thrown) {
          return thrown as DomainError;
        }
      })();
      expect(error).toBeInstanceOf(DomainError);
      expect((error!.detail as { path: string }[]).map((problem) => problem.path)).toEqual([path]);
    }
  });

  it('accepts every bound inclusively', async () => {
    const created = await newAgent();
    const edges = [
      {
        llmConfig: {
          provider: 'openai',
          model: 'm',
          temperature: 0,
          topP: 1,
          topK: 1,
          maxTokens: 1,
          frequencyPenalty: -2,
          presencePenalty: 2,
          fallbacks: [
            { provider: 'anthropic', model: 'f', temperature: 2, topP: 0, frequencyPenalty: 2, presencePenalty: -2 },
          ],
        },
        goodbyeConfig: { message: long(500) },
        voiceConfig: { provider: 'p', model: 'm', userInstructions: 'abc', sampleRate: 8000, speed: 0.1, volume: 10 },
        transcriberConfig: { provider: 'google', sampleRate: 48000, eotThreshold: 0, preemptiveMinConfidence: 1 },
        vadConfig: { sampleRate: 8000, activationThreshold: 1 },
        precallWebhook: { method: 'GET', url: 'https://x', timeoutSeconds: 60 },
        extraConfig: { interruptionSensitivity: 0, minWords: 0 },
        greetingConfig: { pauseBeforeFirstMessage: 0 },
        roomDurationConfig: { maxDurationMin: 1, maxSilenceSec: 0, waitForMessageSec: 0 },
        backgroundSound: {
          file: 'f',
          initialVolume: 0,
          volume: 1,
          thinkingSound: [{ sound: 's', probability: 0, volume: 1 }],
        },
      },
      {
        voiceConfig: {
          provider: 'p',
          model: 'm',
          userInstructions: long(1000),
          sampleRate: 48000,
          speed: 5,
          volume: 0.5,
        },
        transcriberConfig: { provider: 'google', sampleRate: 8000 },
        vadConfig: { sampleRate: 48000, activationThreshold: 0 },
        precallWebhook: { method: 'PATCH', url: 'https://x', timeoutSeconds: 1 },
        extraConfig: { interruptionSensitivity: 1 },
      },
    ];
    for (const input of edges) {
      const body = await update(created.id, input);
      expect(body.errors).toBeUndefined();
      const stored = await storedAgent(created.id);
      for (const [member, value] of Object.entries(input)) {
        expect(withoutNulls(body.data.updateAgent[member])).toEqual(value);
        expect(toGraphQL(stored![member as keyof typeof stored])).toEqual(value);
      }
    }
  });

  describe('tools', () => {
    const toolsQuery = `toolId id name description url method isEnabled configOverride parameters { name description type required }`;
    const setTools = (apiKeyToUse: string, agentId: string, tools: unknown[]) =>
      server.graphql(
        apiKeyToUse,
        `mutation($id: ID!, $tools: [AgentToolInput!]!) { setAgentTools(agentId: $id, tools: $tools) { id tools { ${toolsQuery} } } }`,
        {
          id: agentId,
          tools,
        },
      );

    it('sets tools and reads them back in order, filling defaults', async () => {
      const agent = await newAgent();
      const tools = [
        {
          name: 'lookup_order',
          description: 'Finds an order',
          url: 'https://shop.example/orders',
          method: 'GET',
          isEnabled: false,
          configOverride: { cache_ttl: 30, Nested: { a: 1 } },
          parameters: [
            { name: 'order_id', description: 'The order', type: 'string', required: true },
            { name: 'verbose', type: 'boolean' },
          ],
        },
        { name: 'book' },
        { name: 'cancel', method: 'DELETE' },
      ];
      const { body } = await setTools(apiKey, agent.id, tools);
      expect(body.errors).toBeUndefined();
      const read = await ok(`query($id: ID!) { agent(id: $id) { tools { ${toolsQuery} } } }`, { id: agent.id });
      expect(read.agent.tools).toEqual(body.data.setAgentTools.tools);
      expect(read.agent.tools.map((tool: { name: string }) => tool.name)).toEqual(['lookup_order', 'book', 'cancel']);
      const [lookup, book, cancel] = read.agent.tools;
      expect(lookup.id).toMatch(/^tool_/);
      expect(lookup.toolId).toBe(lookup.id);
      expect(lookup).toMatchObject({
        ...tools[0],
        parameters: [tools[0]!.parameters![0], { name: 'verbose', description: '', type: 'boolean', required: false }],
      });
      expect(book).toMatchObject({
        name: 'book',
        description: '',
        url: '',
        method: 'POST',
        isEnabled: true,
        configOverride: {},
        parameters: [],
      });
      expect(cancel.method).toBe('DELETE');
      expect(
        (await ok(`query($id: ID!) { node(id: $id) { ... on AgentTool { name } } }`, { id: book.id })).node,
      ).toEqual({ name: 'book' });

      // Setting again replaces the whole list; an empty list removes every tool.
      const replaced = await setTools(apiKey, agent.id, [{ name: 'only' }]);
      expect(replaced.body.data.setAgentTools.tools.map((tool: { name: string }) => tool.name)).toEqual(['only']);
      expect((await setTools(apiKey, agent.id, [])).body.data.setAgentTools.tools).toEqual([]);
      expect(await server.db.prisma.agentTool.count({ where: { agentId: agent.id } })).toBe(0);
    });

    it('refuses a bad tool with its path and keeps the tools as they were', async () => {
      const agent = await newAgent();
      await setTools(apiKey, agent.id, [{ name: 'keep' }]);
      const bad = await setTools(apiKey, agent.id, [{ name: 'ok' }, { name: 'x', method: 'TRACE' }, { name: '' }]);
      expect(bad.body.errors[0].extensions.code).toBe('BAD_INPUT');
      expect(bad.body.errors[0].extensions.detail.map((problem: { path: string }) => problem.path)).toEqual([
        'tools.1.method',
        'tools.2.name',
      ]);
      const read = await ok(`query($id: ID!) { agent(id: $id) { tools { name } } }`, { id: agent.id });
      expect(read.agent.tools).toEqual([{ name: 'keep' }]);
      const unknown = await setTools(apiKey, 'agt_missing', [{ name: 'x' }]);
      expect(unknown.body.errors[0].extensions.code).toBe('NOT_FOUND');
    });
  });

  describe('evaluations', () => {
    const createEvaluation = (key: string, input: Record<string, unknown>) =>
      server.graphql(
        key,
        `mutation($input: EvaluationCreateInput!) { createEvaluation(input: $input) { id databaseId agentId orgId category title prompt score createdAt agent { id name } } }`,
        {
          input,
        },
      );

    it('creates evaluations and lists them newest first, page by page', async () => {
      const agent = await newAgent({ name: 'Evaluated' });
      const created = [];
      for (const score of [0, 50, 75, 90, 100]) {
        const { body } = await createEvaluation(apiKey, {
          agentId: agent.id,
          category: 'tone',
          title: `T${score}`,
          prompt: 'Was it polite?',
          score,
        });
        expect(body.errors).toBeUndefined();
        created.push(body.data.createEvaluation);
      }
      const first = created[0];
      expect(first).toMatchObject({
        agentId: agent.id,
        orgId: organizationId,
        category: 'tone',
        title: 'T0',
        prompt: 'Was it polite?',
        score: 0,
      });
      expect(first.agent).toEqual({ id: agent.id, name: 'Evaluated' });
      expect(Number.isInteger(first.databaseId)).toBe(true);
      expect(first.id).toBe(`evl_${first.databaseId}`);

      const page = (after: string | null) =>
        ok(
          `query($a: ID!, $after: String) { evaluations(agentId: $a, first: 2, after: $after) { totalCount pageInfo { hasNextPage endCursor } nodes { title } } }`,
          {
            a: agent.id,
            after,
          },
        );
      const titles: string[] = [];
      let after: string | null = null;
      for (let index = 0; index < 3; index++) {
        const { evaluations } = await page(after);
        expect(evaluations.totalCount).toBe(5);
        titles.push(...evaluations.nodes.map((node: { title: string }) => node.title));
        after = evaluations.pageInfo.endCursor;
        expect(evaluations.pageInfo.hasNextPage).toBe(index < 2);
      }
      expect(titles).toEqual(['T100', 'T90', 'T75', 'T50', 'T0']);

      const nested = await ok(
        `query($a: ID!) { agent(id: $a) { evaluations(first: 1) { totalCount nodes { title score } } } }`,
        { a: agent.id },
      );
      expect(nested.agent.evaluations).toEqual({ totalCount: 5, nodes: [{ title: 'T100', score: 100 }] });

      const node = await ok(`query($id: ID!) { node(id: $id) { id ... on Evaluation { databaseId title } } }`, {
        id: first.id,
      });
      expect(node.node).toEqual({ id: first.id, databaseId: first.databaseId, title: 'T0' });
      const oddIds = await ok(
        `{ a: node(id: "evl_abc") { id } b: node(id: "evl_99999999999") { id } c: node(id: "evl_-1") { id } d: node(id: "evl_") { id } }`,
      );
      expect(oddIds).toEqual({ a: null, b: null, c: null, d: null });
    });

    it('defaults category, title and prompt to empty strings', async () => {
      const agent = await newAgent();
      const { body } = await createEvaluation(apiKey, { agentId: agent.id, score: 42 });
      expect(body.data.createEvaluation).toMatchObject({ category: '', title: '', prompt: '', score: 42 });
    });

    it('refuses scores outside 0-100 and unknown agents, writing nothing', async () => {
      const agent = await newAgent();
      for (const score of [-1, 101]) {
        const { body } = await createEvaluation(apiKey, { agentId: agent.id, score });
        expect(body.errors[0].extensions.code).toBe('BAD_INPUT');
        expect(body.errors[0].extensions.detail.map((problem: { path: string }) => problem.path)).toEqual(['score']);
      }
      const unknown = await createEvaluation(apiKey, { agentId: 'agt_missing', score: 10 });
      expect(unknown.body.errors[0].extensions.code).toBe('NOT_FOUND');
      expect(await server.db.prisma.evaluation.count({ where: { agentId: agent.id } })).toBe(0);
      const missingAgent = await ok(`{ evaluations(agentId: "agt_missing") { totalCount } }`);
      expect(missingAgent.evaluations).toBeNull();
      const tooMany = await gql(`query($a: ID!) { evaluations(agentId: $a, first: 101) { totalCount } }`, {
        a: agent.id,
      });
      expect(tooMany.errors[0].extensions.code).toBe('BAD_INPUT');
    });
  });

  it('deletes an agent with its tools and evaluations', async () => {
    const agent = await newAgent({ name: 'Doomed' });
    await ok(`mutation($id: ID!) { setAgentTools(agentId: $id, tools: [{ name: "t" }]) { id } }`, { id: agent.id });
    const evaluation = await ok(
      `mutation($id: String!) { createEvaluation(input: { agentId: $id, score: 5 }) { id } }`,
      { id: agent.id },
    );

    const deleted = await ok(`mutation($id: ID!) { deleteAgent(id: $id) { deletedAgentId } }`, { id: agent.id });
    expect(deleted.deleteAgent).toEqual({ deletedAgentId: agent.id });
    const read = await ok(
      `query($id: ID!, $e: ID!) { agent(id: $id) { id } node(id: $e) { id } evaluations(agentId: $id) { totalCount } }`,
      {
        id: agent.id,
        e: evaluation.createEvaluation.id,
      },
    );
    expect(read).toEqual({ agent: null, node: null, evaluations: null });
    expect(await server.db.prisma.evaluation.count({ where: { agentId: agent.id } })).toBe(0);
    expect(await server.db.prisma.agentTool.count({ where: { agentId: agent.id } })).toBe(0);

    const again = await gql(`mutation($id: ID!) { deleteAgent(id: $id) { deletedAgentId } }`, { id: agent.id });
    expect(again.errors[0].extensions.code).toBe('NOT_FOUND');
    const afterDelete = await gql(`mutation($id: ID!) { updateAgent(id: $id, input: { name: "x" }) { id } }`, {
      id: agent.id,
    });
    expect(afterDelete.errors[0].extensions.code).toBe('NOT_FOUND');
  });

  it("reads another organization's agent as null and cannot update, delete, evaluate or equip it", async () => {
    const agent = await newAgent(toGraphQL(fullAgent) as Record<string, unknown>);
    const evaluation = await ok(
      `mutation($id: String!) { createEvaluation(input: { agentId: $id, score: 5 }) { id } }`,
      { id: agent.id },
    );
    const before = await storedAgent(agent.id);
    const foreign = (query: string, variables: Record<string, unknown>) =>
      server.graphql(other.apiKey, query, variables);

    const read = await foreign(
      `query($id: ID!, $e: ID!) { agent(id: $id) { id } node(id: $id) { id } evaluation: node(id: $e) { id } evaluations(agentId: $id) { totalCount } agents { totalCount } }`,
      { id: agent.id, e: evaluation.createEvaluation.id },
    );
    expect(read.body.errors).toBeUndefined();
    expect(read.body.data).toEqual({
      agent: null,
      node: null,
      evaluation: null,
      evaluations: null,
      agents: { totalCount: 0 },
    });

    const attempts = [
      foreign(`mutation($id: ID!) { updateAgent(id: $id, input: { name: "stolen", llmConfig: null }) { id } }`, {
        id: agent.id,
      }),
      foreign(`mutation($id: ID!) { deleteAgent(id: $id) { deletedAgentId } }`, { id: agent.id }),
      foreign(`mutation($id: String!) { createEvaluation(input: { agentId: $id, score: 1 }) { id } }`, {
        id: agent.id,
      }),
      foreign(`mutation($id: ID!) { setAgentTools(agentId: $id, tools: [{ name: "spy" }]) { id } }`, { id: agent.id }),
    ];
    for (const attempt of await Promise.all(attempts)) expect(attempt.body.errors[0].extensions.code).toBe('NOT_FOUND');
    expect(await storedAgent(agent.id)).toEqual(before);
    expect(await server.db.prisma.evaluation.count({ where: { agentId: agent.id } })).toBe(1);
    expect(await server.db.prisma.agentTool.count({ where: { agentId: agent.id } })).toBe(0);
  });
});
