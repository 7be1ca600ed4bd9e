// Property-based hostile input (issue 6). For every REST route of the route
// table (under both prefixes) and every GraphQL mutation of the schema,
// fast-check generates hostile requests: arbitrary JSON, objects with
// prototype keys, arrays where objects belong, byte arrays for JSON members,
// absurd numbers (as numbers, as strings, as raw 1e999 literals), long and
// control-character strings, deep nesting, malformed JSON, other media types,
// random and repeated query parameters, hostile path segments, hostile and
// reused Idempotency-Keys, and valid bodies with one member broken. Properties:
//   - the status is never 5xx, and no answer carries a stack trace;
//   - every non-2xx REST answer is SPEC.md's error body, exactly;
//   - every GraphQL error has an extensions.code and is not an internal error;
//   - a refused request writes nothing (row counts and last-update times of
//     every table are the same before and after it).
// Runs are seeded (SEED, per route), so a failure reproduces. HOSTILE_RUNS
// sets the runs per route and prefix (40; mutations get 1.5 times as many);
// HOSTILE_SHRINK=1 shrinks a counterexample (slower) instead of stopping at it.
import fc from 'fast-check';
import {
  type GraphQLField,
  type GraphQLInputType,
  getNamedType,
  isEnumType,
  isInputObjectType,
  isLeafType,
  isListType,
  isNonNullType,
} from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEY_SCOPES } from '../src/key-scopes.ts';
import { REST_PREFIXES, type Route } from '../src/rest/route.ts';
import { routes } from '../src/rest/routes/index.ts';
import { schema } from '../src/schema/index.ts';
import { restClient } from './support/rest.ts';
import { allowedWith, routeNeeds } from './support/scopes.ts';
import { startTestServer, type TestServer } from './support/server.ts';
import { memberNames } from './support/zod-members.ts';

const SEED = 6_2026_1121;
const RUNS_PER_PREFIX = Number(process.env.HOSTILE_RUNS ?? 40);
const GRAPHQL_RUNS = Math.round(RUNS_PER_PREFIX * 1.5);

/** A seed of its own for each route and mutation, so adding one does not reshuffle the others. */
const seedOf = (name: string) => [...name].reduce((hash, char) => (Math.imul(hash, 31) + char.charCodeAt(0)) | 0, SEED);

// ---------------------------------------------------------------------------
// Hostile values

const SPECIAL_STRINGS = [
  '',
  ' ',
  'NaN',
  'Infinity',
  '-Infinity',
  '1e999',
  '-1e999',
  '1e-999',
  '0x1F',
  '1_000',
  '٣',
  '-0',
  '00001',
  '9'.repeat(400),
  '-9'.repeat(40),
  '2147483648',
  '-2147483649',
  '9007199254740993',
  '1.5',
  'null',
  'true',
  '[]',
  '{}',
  '__proto__',
  'constructor',
  'prototype',
  '<script>alert(1)</script>',
  "' OR 1=1 --",
  '\'; DROP TABLE "Agent"; --',
  '../../../etc/passwd',
  '%00',
  '\u0000',
  'a\u0000b',
  '\u202e\u202d',
  '\ud800',
  '\udfff\ud800',
  '\uffff\ufffe',
  '\ufeff',
  'a\r\nb',
  '\t\b\f\v',
  '😀👩‍👩‍👧‍👦',
  'Ω≈ç√∫˜µ≤≥÷',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a Log4Shell probe, sent as it is written
  '${jndi:ldap://x}',
  '{{7*7}}',
  '2026-02-30',
  '2026-13-01T00:00:00Z',
  '0000-01-01',
  '+275760-09-13T00:00:00.001Z',
  '+4155550100',
  `+${'1'.repeat(16)}`,
  'agt_',
  'wf_x',
  'evl_-1',
  'evl_99999999999999999999',
];

const hostileString = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...SPECIAL_STRINGS) },
  { weight: 2, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 20 }) },
  { weight: 1, arbitrary: fc.integer({ min: 201, max: 300_000 }).map((length) => 'x'.repeat(length)) },
);

const hostileNumber = fc.oneof(
  fc.double(),
  fc.integer(),
  fc.constantFrom(
    2 ** 53 + 1,
    -(2 ** 53) - 1,
    2 ** 31,
    -(2 ** 31) - 1,
    2 ** 31 - 1,
    1e308,
    -1e308,
    5e-324,
    -0,
    0.5,
    1.5,
    -1,
    0,
    101,
    1e21,
  ),
);

/** Numbers JSON cannot carry as JS numbers, written into the raw text. */
const RAW_NUMBERS = ['1e999', '-1e999', '1e-999', '123456789012345678901234567890', '-0', '0.1e1', '1E+2'];

const PROTOTYPE_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf'];

const keyOf = (members: string[]) =>
  fc.oneof(
    { weight: 3, arbitrary: members.length > 0 ? fc.constantFrom(...members) : fc.constant('name') },
    { weight: 1, arbitrary: fc.constantFrom(...PROTOTYPE_KEYS, '', ' ', 'a.b', '$where', '0') },
    { weight: 1, arbitrary: fc.string({ maxLength: 12 }) },
  );

/** An object built with own properties (so `__proto__` is a member, as JSON.parse would make it). */
const objectOf = (entries: [string, unknown][]) => {
  const object: Record<string, unknown> = {};
  for (const [key, value] of entries)
    Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
  return object;
};

const utf8 = (value: unknown) => [...Buffer.from(JSON.stringify(value) ?? 'null', 'utf8')];

function hostileValue(members: string[]): fc.Arbitrary<unknown> {
  const { value } = fc.letrec<{ value: unknown }>((tie) => ({
    value: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      hostileString,
      hostileNumber,
      fc.boolean(),
      fc.constant(null),
      fc.jsonValue({ maxDepth: 3 }),
      // byte arrays: in range, out of range, and the UTF-8 of hostile JSON
      fc.array(fc.integer({ min: 0, max: 255 }), { minLength: 1, maxLength: 40 }),
      fc.array(fc.integer({ min: -300, max: 300 }), { minLength: 1, maxLength: 10 }),
      fc.jsonValue({ maxDepth: 3 }).map(utf8),
      fc
        .array(fc.tuple(keyOf(members), fc.jsonValue({ maxDepth: 2 })), { maxLength: 3 })
        .map((entries) => utf8(objectOf(entries))),
      fc.array(tie('value'), { maxLength: 4 }),
      fc.array(fc.tuple(keyOf(members), tie('value')), { maxLength: 4 }).map(objectOf),
    ),
  }));
  return value;
}

/** A query string: known and random names, repeated, empty, malformed percent-encoding. */
function queryString(members: string[]): fc.Arbitrary<string> {
  const value = fc.oneof(
    hostileString.filter((text) => text.length < 3000),
    hostileNumber.map(String),
    fc.constant(''),
  );
  const pair = fc.oneof(
    { weight: 6, arbitrary: fc.tuple(keyOf(members), value).map(([key, text]) => `${encode(key)}=${encode(text)}`) },
    { weight: 1, arbitrary: keyOf(members).map(encode) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '%',
        '%zz',
        '%E0%A4%A',
        '%C3%28',
        '%FF',
        '%00',
        'a[b]=1',
        'a[]=1&a[]=2',
        '&&',
        '=',
        '+',
        '==x',
        'page=1&page=2',
        'limit=&size=',
      ),
    },
  );
  return fc.array(pair, { maxLength: 6 }).map((pairs) => pairs.join('&'));
}

/** Percent-encoding that survives lone surrogates (as U+FFFD, like any client sending UTF-8). */
function encode(text: string) {
  try {
    return encodeURIComponent(text);
  } catch {
    return [...Buffer.from(text, 'utf8')]
      .map((byte) => `%${byte.toString(16).padStart(2, '0').toUpperCase()}`)
      .join('');
  }
}

// ---------------------------------------------------------------------------
// Valid requests to break

interface Own {
  agent: string;
  workflow: string;
  batch: string;
  prospect: string;
  prospects: string[];
  prospectList: string;
  tag: string;
  trunk: string;
  /** A phone number of the trunk's. */
  number: string;
  connection: string;
  slug: string;
  version: string;
  webhookEndpoint: string;
}

let phoneCounter = 1000 + Math.floor(Math.random() * 8000);
const freshNumber = () => `+1917555${String(phoneCounter++ % 10_000).padStart(4, '0')}`;

type Template = (own: Own) => Record<string, unknown>;

/** A valid body for every REST route that takes one (the contract tests' shapes). */
const REST_BODIES: Record<string, Template> = {
  'POST /agents': () => ({
    name: 'Agent',
    type: 'chat',
    prompt_template: 'Hello {{first_name}}',
    default_functions: ['end_call'],
    plugins: [{ name: 'crm' }],
    llm_config: {
      provider: 'openai',
      model: 'gpt-4o',
      temperature: 0.7,
      max_tokens: 512,
      fallbacks: [{ provider: 'groq', model: 'llama' }],
    },
    voice_config: { provider: 'elevenlabs', model: 'turbo', speed: 1.1, voice_id: 'rachel' },
    transcriber_config: { provider: 'deepgram', model: 'nova-3', sample_rate: 16000 },
    vad_config: { activation_threshold: 0.5, sample_rate: 16000 },
    precall_webhook: {
      method: 'POST',
      url: 'https://crm.example.com/precall',
      headers: { A: 'b' },
      timeout_seconds: 10,
    },
    background_sound: { file: 'office.mp3', volume: 0.5, thinking_sound: [{ sound: 'typing.mp3', probability: 0.4 }] },
  }),
  'PATCH /agents/:agent_id': () => ({
    name: 'Renamed',
    goodbye_config: { enabled: true, message: 'Bye' },
    greeting_config: null,
  }),
  'POST /agents/evals': (own) => ({
    agent_id: own.agent,
    category: 'tone',
    title: 'Polite',
    prompt: 'Was it polite?',
    score: 87,
  }),
  'POST /workflows': () => ({
    name: 'W',
    description: 'd',
    trigger_type: 'api',
    is_active: true,
    definition: { steps: [{ id: 'a', type: 'wait', seconds: 1 }] },
  }),
  'PATCH /workflows/:workflow_id': () => ({ name: 'New', is_active: true, trigger_type: 'cron', description: 'x' }),
  'POST /workflows/:workflow_id/versions': () => ({ definition: { steps: [{ id: 'b', type: 'wait', seconds: 2 }] } }),
  'POST /workflows/:workflow_id/batches': (own) => ({
    name: 'B',
    prospect_ids: own.prospects,
    prospect_list_id: own.prospectList,
    scheduled_at: '2099-01-01T00:00:00Z',
  }),
  'PATCH /batches/:batch_id': () => ({ status: 'PAUSED' }),
  'PATCH /batches/:batch_id/settings': () => ({
    calling_window: { days: ['mon', 'fri'], start: '09:00', end: '17:30', timezone: 'America/Chicago' },
    max_concurrency: 3,
    calls_per_second: 1.5,
    retry: { max_attempts: 3, on: ['busy'], delay_seconds: 60 },
    auto_pause: { failure_rate: 0.4, window: 20 },
  }),
  'POST /prospects': () => ({
    prospects: [
      { first_name: 'F', last_name: 'L', email: 'f@example.com', phone: '+14155550100', timezone: 'America/Chicago' },
    ],
  }),
  'POST /prospects/:prospect_id/tags': (own) => ({ tag_ids: [own.tag] }),
  'POST /prospects/:prospect_id/consents': () => ({
    scope: 'renewals',
    source: 'web_form',
    captured_at: '2026-01-05T10:00:00Z',
    evidence: 'https://forms.example.com/1',
  }),
  'POST /prospects/:prospect_id/consents/revoke': () => ({ scope: 'renewals' }),
  'PATCH /settings': () => ({ max_concurrent_calls: 5 }),
  'POST /prospect-lists': (own) => ({ name: 'List', prospect_ids: own.prospects }),
  'POST /tags': () => ({ name: `Tag ${Math.random().toString(36).slice(2)}` }),
  'POST /integrations': () => ({
    slug: 'slack',
    credentials: { bot_token: 'xoxb-secret' },
    settings: { channel: '#calls' },
  }),
  'POST /sip-trunks': () => ({
    name: 'Main',
    address: 'sip.example.com',
    provider: 'twilio',
    phone_numbers: [freshNumber()],
    auth_username: 'u',
    auth_password: 'p',
    max_concurrency: 5,
  }),
  'POST /phone-numbers': (own) => ({ number: freshNumber(), sip_trunk_id: own.trunk, label: 'Support' }),
  'POST /phone-numbers/bulk': (own) => ({ sip_trunk_id: own.trunk, numbers: [{ number: freshNumber(), label: 'a' }] }),
  'POST /phone-numbers/:id/rest': () => ({ hours: 2 }),
  'POST /do-not-call': () => ({ numbers: [freshNumber(), freshNumber()], reason: 'asked not to be called' }),
  'POST /webhook-endpoints': () => ({
    url: 'https://hooks.example.com/gateway',
    events: ['batch.status_changed', 'run.finished'],
    description: 'CRM',
  }),
  'PATCH /webhook-endpoints/:id': () => ({
    url: 'https://hooks.example.com/v2',
    events: ['*'],
    description: 'All',
    enabled: true,
  }),
  'POST /runs/:run_id/attempts/:attempt/outcome': () => ({ outcome: 'voicemail' }),
  'POST /runs/:run_id/attempts/:attempt/transfer': () => ({ to: '+14155550199', mode: 'cold' }),
  'POST /runs/:run_id/attempts/:attempt/record': () => ({
    transcript: [{ role: 'callee', text: 'hello', started_ms: 0, ended_ms: 900 }],
    summary: 'Reported',
  }),
  // keys:admin only: whichever key may issue keys holds it (none grants what it lacks).
  'POST /api-keys': () => ({ name: 'k', scopes: ['keys:admin'] }),
  'POST /api-keys/:id/rotate': () => ({ grace_seconds: 60 }),
};

/** Valid variables for the mutations (GraphQL names); others get generated ones only. */
const MUTATION_VARIABLES: Record<string, Template> = {
  addDoNotCallNumbers: () => ({ input: { numbers: [freshNumber()], reason: 'asked not to be called' } }),
  addConsent: (own) => ({
    prospectId: own.prospect,
    input: {
      scope: 'renewals',
      source: 'web_form',
      capturedAt: '2026-01-05T10:00:00Z',
      evidence: 'https://forms.example.com/1',
    },
  }),
  revokeConsent: (own) => ({ prospectId: own.prospect, input: { scope: 'renewals' } }),
  addTagsToProspect: (own) => ({ prospectId: own.prospect, input: { tagIds: [own.tag] } }),
  eraseProspect: (own) => ({ id: own.prospect }),
  connectIntegration: () => ({
    input: { slug: 'slack', credentials: { bot_token: 'xoxb-secret' }, settings: { channel: '#c' } },
  }),
  createAgent: () => ({
    input: { name: 'Agent', llmConfig: { provider: 'openai', model: 'gpt-4o', temperature: 0.5 } },
  }),
  createApiKey: () => ({ name: 'k', scopes: ['read'] }),
  createBatch: (own) => ({
    workflowId: own.workflow,
    input: { prospectIds: own.prospects, scheduledAt: '2099-01-01T00:00:00Z' },
  }),
  createEvaluation: (own) => ({ input: { agentId: own.agent, score: 50 } }),
  createPhoneNumber: (own) => ({ input: { number: freshNumber(), sipTrunkId: own.trunk } }),
  createPhoneNumbers: (own) => ({ input: { sipTrunkId: own.trunk, numbers: [{ number: freshNumber() }] } }),
  restPhoneNumber: (own) => ({ id: own.number, input: { hours: 2 } }),
  restorePhoneNumber: (own) => ({ id: own.number }),
  createProspectList: (own) => ({ input: { name: 'L', prospectIds: own.prospects } }),
  createProspects: () => ({
    input: { prospects: [{ firstName: 'A', phone: '+14155550100', timezone: 'Europe/Paris' }] },
  }),
  createSipTrunk: () => ({
    input: { name: 'T', address: 'sip.example.com', provider: 'other', phoneNumbers: [freshNumber()] },
  }),
  createTag: () => ({ input: { name: `T ${Math.random().toString(36).slice(2)}` } }),
  createWorkflow: () => ({ input: { name: 'W', definition: { steps: [] } } }),
  createWebhookEndpoint: () => ({
    input: { url: 'https://hooks.example.com/gateway', events: ['agent.updated'], description: 'd' },
  }),
  updateWebhookEndpoint: (own) => ({
    id: own.webhookEndpoint,
    input: { url: 'https://hooks.example.com/v3', events: ['*'], enabled: true },
  }),
  replayWebhookDelivery: () => ({ id: 'dlv_00000000000000000000000000000000' }),
  importProspects: (own) => ({
    csv: `First Name,Phone,Plan\nAda,${freshNumber()},Gold\n`,
    options: { listName: 'L', tagIds: [own.tag], onDuplicate: 'update' },
  }),
  generateInsight: () => ({ periodStart: '2026-01-01', periodEnd: '2026-01-31' }),
  publishWorkflowVersion: (own) => ({ workflowId: own.workflow, input: { definition: { steps: [] } } }),
  setAgentTools: (own) => ({
    agentId: own.agent,
    tools: [{ name: 'lookup', url: 'https://x.example', method: 'GET', parameters: [{ name: 'q' }] }],
  }),
  updateAgent: (own) => ({ id: own.agent, input: { name: 'Renamed' } }),
  updateBatchStatus: (own) => ({ id: own.batch, status: 'PAUSED' }),
  updateBatchSettings: (own) => ({
    id: own.batch,
    input: { maxConcurrency: 2, retry: { maxAttempts: 2, on: ['no_answer'], delaySeconds: 30 } },
  }),
  retryFailedRuns: (own) => ({ id: own.batch }),
  rotateSigningSecret: () => ({}),
  updateOrganizationSettings: () => ({ input: { maxConcurrentCalls: 5 } }),
  updateWorkflow: (own) => ({ id: own.workflow, input: { name: 'W2' } }),
};

/** Mutations that destroy what they name: they get only made-up ids (never the org's own objects or keys). */
const DESTRUCTIVE = /^(delete|revoke|rotate|disconnect|remove)/;

/** Every path (of keys and indexes) into a JSON value, the root included. */
function pathsOf(value: unknown, prefix: (string | number)[] = []): (string | number)[][] {
  const paths = [prefix];
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) paths.push(...pathsOf(item, [...prefix, index]));
  } else if (value && typeof value === 'object')
    for (const [key, member] of Object.entries(value)) paths.push(...pathsOf(member, [...prefix, key]));
  return paths;
}

type Mutation =
  | { op: 'replace'; at: number; value: unknown }
  | { op: 'delete'; at: number }
  | { op: 'wrap'; at: number }
  | { op: 'bytes'; at: number }
  | { op: 'add'; at: number; key: string; value: unknown }
  | { op: 'raw-number'; at: number; raw: string };

const RAW_MARKER = '\u0001raw-number\u0001';

/** Applies one mutation to a copy of `valid`; returns the JSON text to send. */
function mutate(valid: unknown, mutation: Mutation): string {
  const copy = JSON.parse(JSON.stringify(valid));
  const paths = pathsOf(copy);
  const path = paths[mutation.at % paths.length]!;
  const parentPath = path.slice(0, -1);
  const last = path.at(-1);
  const parent = parentPath.reduce<any>((node, key) => node[key], copy);
  const current = path.reduce<any>((node, key) => node[key], copy);
  const set = (value: unknown) => {
    if (path.length === 0) return value;
    parent[last as string] = value;
    return copy;
  };
  let result: unknown = copy;
  switch (mutation.op) {
    case 'replace':
      result = set(mutation.value);
      break;
    case 'delete':
      if (path.length === 0) result = undefined;
      else if (Array.isArray(parent)) parent.splice(last as number, 1);
      else delete parent[last as string];
      break;
    case 'wrap':
      result = set([current]);
      break;
    case 'bytes':
      result = set(utf8(current));
      break;
    case 'add':
      if (current && typeof current === 'object' && !Array.isArray(current)) {
        Object.defineProperty(current, mutation.key, {
          value: mutation.value,
          enumerable: true,
          writable: true,
          configurable: true,
        });
      } else result = set(objectOf([[mutation.key, mutation.value]]));
      break;
    case 'raw-number':
      result = set(RAW_MARKER);
      return (JSON.stringify(result) ?? '').replace(JSON.stringify(RAW_MARKER), mutation.raw);
  }
  return JSON.stringify(result) ?? '';
}

function mutationOf(members: string[]): fc.Arbitrary<Mutation> {
  const at = fc.nat({ max: 10_000 });
  return fc.oneof(
    { weight: 4, arbitrary: fc.record({ op: fc.constant('replace' as const), at, value: hostileValue(members) }) },
    { weight: 1, arbitrary: fc.record({ op: fc.constant('delete' as const), at }) },
    { weight: 1, arbitrary: fc.record({ op: fc.constant('wrap' as const), at }) },
    { weight: 1, arbitrary: fc.record({ op: fc.constant('bytes' as const), at }) },
    {
      weight: 1,
      arbitrary: fc.record({ op: fc.constant('add' as const), at, key: keyOf(members), value: hostileValue(members) }),
    },
    {
      weight: 1,
      arbitrary: fc.record({ op: fc.constant('raw-number' as const), at, raw: fc.constantFrom(...RAW_NUMBERS) }),
    },
  );
}

/** A request body as raw text (or none). */
type BodySpec =
  | { kind: 'none' }
  | { kind: 'json'; value: unknown }
  | { kind: 'valid-mutated'; mutation: Mutation }
  | { kind: 'raw'; text: string }
  | { kind: 'deep'; depth: number; shape: 'array' | 'object' };

const MALFORMED = [
  '{',
  '{"a":',
  'nul',
  '[1,]',
  '{"a":1}{"b":2}',
  '\ufeff{}',
  '{"__proto__":{"polluted":1}}',
  '{"constructor":{"prototype":{"polluted":1}}}',
  '"just a string"',
  '1e999',
  '{"name": 1e999}',
  '{"name": NaN}',
  "{'single': 'quotes'}",
  '{"a":"\\ud800"}',
  '{"a":"\\u0000"}',
  '',
  ' ',
  'null',
  '[]',
  'true',
  '12',
];

function bodyOf(members: string[]): fc.Arbitrary<BodySpec> {
  return fc.oneof(
    { weight: 6, arbitrary: mutationOf(members).map((mutation) => ({ kind: 'valid-mutated' as const, mutation })) },
    { weight: 2, arbitrary: fc.jsonValue().map((value) => ({ kind: 'json' as const, value })) },
    {
      weight: 3,
      arbitrary: fc
        .array(fc.tuple(keyOf(members), hostileValue(members)), { maxLength: 6 })
        .map((entries) => ({ kind: 'json' as const, value: objectOf(entries) })),
    },
    {
      weight: 1,
      arbitrary: fc.array(hostileValue(members), { maxLength: 3 }).map((value) => ({ kind: 'json' as const, value })),
    },
    {
      weight: 1,
      arbitrary: fc
        .oneof(fc.constantFrom(...MALFORMED), fc.string({ maxLength: 30 }))
        .map((text) => ({ kind: 'raw' as const, text })),
    },
    {
      weight: 1,
      arbitrary: fc.record({
        kind: fc.constant('deep' as const),
        depth: fc.integer({ min: 20, max: 20_000 }),
        shape: fc.constantFrom('array' as const, 'object' as const),
      }),
    },
    { weight: 1, arbitrary: fc.constant({ kind: 'none' as const }) },
  );
}

function bodyText(spec: BodySpec, valid: unknown): string | undefined {
  switch (spec.kind) {
    case 'none':
      return undefined;
    case 'json':
      return JSON.stringify(spec.value) ?? 'null';
    case 'valid-mutated':
      return mutate(valid ?? {}, spec.mutation);
    case 'raw':
      return spec.text;
    case 'deep':
      return spec.shape === 'array'
        ? '['.repeat(spec.depth) + ']'.repeat(spec.depth)
        : `${'{"a":'.repeat(spec.depth)}1${'}'.repeat(spec.depth)}`;
  }
}

/** Header values a client can send (Latin-1 without controls): empty, long, spaces, 8-bit characters. */
const headerText = fc.oneof(
  fc.string({
    unit: fc
      .integer({ min: 0x20, max: 0xff })
      .filter((code) => code !== 0x7f)
      .map((code) => String.fromCharCode(code)),
    maxLength: 40,
  }),
  fc.integer({ min: 200, max: 2000 }).map((length) => 'k'.repeat(length)),
);

/**
 * CSV files for upload routes: a phone column and valid numbers, other columns
 * known or hostile, cells mostly plain and sometimes hostile (always quoted),
 * now and then a raw line that breaks the file; any line ending, a BOM or none.
 */
const csvText = (() => {
  const quoted = (text: string) => `"${text.replaceAll('"', '""')}"`;
  const cell = fc.oneof(
    { weight: 4, arbitrary: fc.string({ maxLength: 20 }) },
    { weight: 1, arbitrary: hostileString.filter((text) => text.length < 2000) },
  );
  const name = fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom('First Name', 'last_name', 'Plan', 'Account Number', 'E-mail', 'tz') },
    { weight: 1, arbitrary: hostileString.filter((text) => text.length < 200) },
  );
  const rawLine = fc.oneof(
    fc.constantFrom('"unclosed', 'a,"b"c', ',,,', '\u0000', '(415) 555-0100', '+14155550100,x,y,z,w,v'),
    hostileString.filter((text) => text.length < 2000),
  );
  return fc
    .record({
      names: fc.array(name, { maxLength: 4 }),
      rows: fc.array(fc.tuple(fc.integer({ min: 0, max: 9_999_999 }), fc.array(cell, { minLength: 4, maxLength: 4 })), {
        minLength: 1,
        maxLength: 5,
      }),
      raw: fc.option(fc.tuple(rawLine, fc.nat()), { nil: undefined, freq: 3 }),
      eol: fc.constantFrom('\n', '\r\n', '\r'),
      bom: fc.boolean(),
    })
    .map(({ names, rows, raw, eol, bom }) => {
      const lines = [
        ['Phone', ...names].map(quoted).join(','),
        ...rows.map(([number, cells]) =>
          [`+1415${String(number).padStart(7, '0')}`, ...cells.slice(0, names.length)].map(quoted).join(','),
        ),
      ];
      if (raw) lines.splice(raw[1] % (lines.length + 1), 0, raw[0]);
      return (bom ? '\ufeff' : '') + lines.join(eol);
    });
})();

const CONTENT_TYPES = [
  'application/json',
  'application/json',
  'application/json',
  'application/json',
  'application/json',
  'application/json; charset=utf-8',
  'text/plain',
  'application/x-www-form-urlencoded',
  'application/xml',
  'multipart/form-data; boundary=x',
  'application/json; charset=utf-16',
];

// ---------------------------------------------------------------------------

describe('hostile input, generated: never a 5xx, always the error body, nothing written on a refusal', () => {
  let server: TestServer;
  let apiKey: string;
  let organizationId: string;
  let own: Own;
  /** Keys of each scope alone, and of some sets of them (seeded), issued before any hostile create fills the cap. */
  const pool: { scopes: string[]; key: string }[] = [];
  let stateSql = '';
  let requests = 0;
  /** Answers by status class, to show the generators reach both acceptance and refusal. */
  const outcomes = { rest2xx: 0, rest4xx: 0, graphqlData: 0, graphqlRefused: 0 };
  /** GraphQL errors without extensions.code: one example per kind of message. */
  const codeless = new Map<string, string>();

  /** Row counts and last-change times of every table, in one statement. */
  const state = async () => (await server.db.prisma.$queryRawUnsafe<{ state: string }[]>(stateSql))[0]!.state;
  /**
   * The state after the last refused request, which is the state before the next one: nothing else writes
   * (this server runs no engine and no webhook worker). Unknown after an accepted request, which may have written.
   * Saves reading every table twice per request, once after a refusal being enough.
   */
  let settled: string | undefined;
  const stateBefore = async () => settled ?? (await state());
  /** Asserts a refused request wrote nothing, and keeps the state for the next request. */
  const expectUnchanged = async (before: string, message: string) => {
    settled = await state();
    expect(settled, message).toBe(before);
  };

  beforeAll(async () => {
    server = await startTestServer();
    ({ organizationId, apiKey } = await server.createOrganization('Hostile'));
    const rest = restClient(server, organizationId, apiKey);
    const ok = async (method: string, path: string, body?: unknown) => {
      const response = await rest(method, `/org/{org}${path}`, body === undefined ? {} : { body });
      if (response.status >= 300)
        throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(response.body)}`);
      return response.body;
    };
    const agent = await ok('POST', '/agents', { name: 'Target' });
    const workflow = await ok('POST', '/workflows', { name: 'Target', definition: { steps: [] } });
    const versions = await ok('GET', `/workflows/${workflow.id}/versions`);
    const prospects = await ok('POST', '/prospects', {
      prospects: [{ first_name: 'A' }, { first_name: 'B' }, { first_name: 'C' }],
    });
    const prospectIds: string[] = prospects.created.map((prospect: { id: string }) => prospect.id);
    const list = await ok('POST', '/prospect-lists', { name: 'L', prospect_ids: prospectIds });
    const tag = await ok('POST', '/tags', { name: 'T' });
    const batch = await ok('POST', `/workflows/${workflow.id}/batches`, {
      prospect_ids: prospectIds,
      scheduled_at: '2099-01-01T00:00:00Z',
    });
    const trunks = await ok('POST', '/sip-trunks', {
      name: 'T',
      address: 'sip.example.com',
      provider: 'twilio',
      phone_numbers: [freshNumber()],
    });
    const connection = await ok('POST', '/integrations', {
      slug: 'hubspot',
      credentials: { private_app_token: 'secret' },
    });
    const webhookEndpoint = await ok('POST', '/webhook-endpoints', {
      url: 'https://hooks.example.com/gateway',
      events: ['*'],
    });
    own = {
      agent: agent.id,
      workflow: workflow.id,
      batch: batch.id,
      prospect: prospectIds[0]!,
      prospects: prospectIds,
      prospectList: list.id,
      tag: tag.id,
      trunk: trunks.outbound_trunk.id,
      number: trunks.phone_numbers[0].id,
      connection: connection.id,
      slug: 'hubspot',
      version: versions.data[0].id,
      webhookEndpoint: webhookEndpoint.id,
    };
    const sets = [
      ...KEY_SCOPES.map((scope) => [scope]),
      ...fc.sample(fc.subarray([...KEY_SCOPES], { minLength: 2 }), { numRuns: 10, seed: SEED }),
    ];
    for (const scopes of sets) {
      const issued = await ok('POST', '/api-keys', { name: scopes.join(' '), scopes });
      pool.push({ scopes, key: issued.api_key });
    }

    const tables = await server.db.prisma.$queryRawUnsafe<{ table_name: string }[]>(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name`,
    );
    const columns = await server.db.prisma.$queryRawUnsafe<{ table_name: string; column_name: string }[]>(
      `SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = current_schema()`,
    );
    // (lastUsedAt is not tracked: authenticating refreshes it now and then, on any request.)
    const changeColumns = ['updatedAt', 'revokedAt', 'completedAt'];
    const parts = tables.map(({ table_name: table }) => {
      const tracked = changeColumns.filter((name) =>
        columns.some((column) => column.table_name === table && column.column_name === name),
      );
      const aggregates = ['count(*)', ...tracked.map((name) => `max("${name}")`)].join(', ');
      return `'${table}', (SELECT json_build_array(${aggregates}) FROM "${table}")`;
    });
    stateSql = `SELECT json_build_object(${parts.join(', ')})::text AS state`;
    expect(tables.length).toBeGreaterThan(10);
  });
  afterAll(() => server?.close());

  const STACK = /\n\s+at [^\n]+:\d+:\d+|node_modules|\/work\/|\bat async\b/;

  /** SPEC.md's error body, exactly. */
  const isErrorBody = (body: any) =>
    body !== null &&
    typeof body === 'object' &&
    !Array.isArray(body) &&
    Object.keys(body).sort().join() === 'data,error,message,status' &&
    body.status === false &&
    body.data === null &&
    typeof body.message === 'string' &&
    body.message.length > 0;

  async function sendRest(
    method: string,
    url: string,
    contentType: string | null,
    body: string | undefined,
    idempotencyKey: string | null = null,
  ) {
    const headers: Record<string, string> = { 'x-api-key': apiKey };
    if (idempotencyKey !== null) headers['idempotency-key'] = idempotencyKey;
    if (body !== undefined && contentType) headers['content-type'] = contentType;
    const response = await fetch(`${server.url}${url}`, { method, headers, body });
    requests++;
    return { status: response.status, text: await response.text() };
  }

  it('the write detector sees a create and an update', async () => {
    const before = await state();
    const created = await sendRest(
      'POST',
      `/org/${organizationId}/tags`,
      'application/json',
      JSON.stringify({ name: 'Detector' }),
    );
    expect(created.status).toBe(201);
    const afterCreate = await state();
    expect(afterCreate).not.toBe(before);
    await new Promise((resolve) => setTimeout(resolve, 5)); // timestamps have millisecond precision
    const updated = await sendRest(
      'PATCH',
      `/org/${organizationId}/workflows/${own.workflow}`,
      'application/json',
      JSON.stringify({ description: 'seen' }),
    );
    expect(updated.status).toBe(200);
    expect(await state()).not.toBe(afterCreate);
  });

  // -- REST -------------------------------------------------------------------------------

  const paramValue = (route: Route, param: string) => {
    const byName: Record<string, string> = {
      agent_id: own.agent,
      workflow_id: own.workflow,
      batch_id: own.batch,
      prospect_id: own.prospect,
      slug: own.slug,
      // `:id` names what the path's segment before it says: a connection, a webhook endpoint, or a phone number.
      id: route.path.startsWith('/webhook-endpoints/')
        ? own.webhookEndpoint
        : route.path.startsWith('/phone-numbers/')
          ? own.number
          : own.connection,
    };
    // A delete only ever names objects that never existed.
    return route.method === 'DELETE' ? undefined : byName[param];
  };

  for (const route of routes) {
    const key = `${route.method} ${route.path}`;
    it(`${key}, both prefixes`, { timeout: 120_000 }, async () => {
      if (route.body && !REST_BODIES[key]) throw new Error(`${key} takes a body: add a valid one to REST_BODIES`);
      const bodyMembers = memberNames(route.body);
      const queryMembers = memberNames(route.query);
      const params = [...route.path.matchAll(/:(\w+)/g)].map((match) => match[1]!);
      const hasBody = route.method !== 'GET';
      const pathSegment = fc.oneof(
        { weight: 4, arbitrary: fc.constant(null) },
        {
          weight: 1,
          arbitrary: fc.oneof(
            hostileString.filter((text) => text.length < 400),
            fc.constantFrom('%C3%28', '%FF', '..', '%2F', '%00'),
          ),
        },
      );
      const request = fc.record({
        prefix: fc.constantFrom(...REST_PREFIXES),
        segments: fc.tuple(...params.map(() => pathSegment)),
        query: fc.oneof({ weight: 1, arbitrary: fc.constant('') }, { weight: 2, arbitrary: queryString(queryMembers) }),
        // Upload routes mostly get files of their media type; the others' JSON bodies (a 415) now and then.
        body: route.upload
          ? fc.oneof(
              { weight: 4, arbitrary: csvText.map((text): BodySpec => ({ kind: 'raw', text })) },
              { weight: 1, arbitrary: bodyOf(bodyMembers) },
            )
          : hasBody
            ? bodyOf(bodyMembers)
            : fc.constant<BodySpec>({ kind: 'none' }),
        contentType: route.upload
          ? fc.oneof(
              {
                weight: 4,
                arbitrary: fc.constantFrom(route.upload.contentType, `${route.upload.contentType}; charset=utf-8`),
              },
              { weight: 1, arbitrary: fc.constantFrom(...CONTENT_TYPES) },
            )
          : fc.constantFrom(...CONTENT_TYPES),
        // Creates take an Idempotency-Key: a few reused ones (same key, another body), and hostile ones.
        idempotencyKey:
          route.status === 201
            ? fc.option(fc.oneof(fc.constantFrom('retry-1', 'retry-2', 'retry-3'), headerText), { nil: null, freq: 2 })
            : fc.constant(null),
      });
      await fc.assert(
        fc.asyncProperty(request, async (input) => {
          const path = route.path.replace(/:(\w+)/g, (_, param: string) => {
            const segment = input.segments[params.indexOf(param)];
            if (segment === null || segment === undefined)
              return paramValue(route, param) ?? `${param.replace(/_id$/, '')}_${'0'.repeat(32)}`;
            return /^%[0-9A-F]{2}$|^\.\.$/.test(segment) ? segment : encode(segment);
          });
          const url = `${input.prefix.replace(':org_id', organizationId)}${path}${input.query ? `?${input.query}` : ''}`;
          const valid = route.body ? REST_BODIES[key]!(own) : {};
          const text = bodyText(input.body, valid);
          const before = await stateBefore();
          const response = await sendRest(route.method, url, input.contentType, text, input.idempotencyKey);
          const where = `${route.method} ${url.slice(0, 300)} [${input.contentType}${input.idempotencyKey === null ? '' : `, Idempotency-Key ${JSON.stringify(input.idempotencyKey.slice(0, 40))}`}] ${String(text).slice(0, 300)}`;
          expect(response.status, `5xx for ${where}: ${response.text.slice(0, 300)}`).toBeLessThan(500);
          expect(STACK.test(response.text), `a stack trace for ${where}: ${response.text.slice(0, 500)}`).toBe(false);
          if (response.status >= 300) {
            let parsed: unknown;
            try {
              parsed = JSON.parse(response.text);
            } catch {
              parsed = response.text;
            }
            expect(
              isErrorBody(parsed),
              `not the error body (${response.status}) for ${where}: ${response.text.slice(0, 300)}`,
            ).toBe(true);
          }
          if (response.status >= 400) {
            outcomes.rest4xx++;
            await expectUnchanged(before, `a refused request (${response.status}) wrote something: ${where}`);
          } else {
            outcomes.rest2xx++;
            settled = undefined;
          }
        }),
        {
          numRuns: RUNS_PER_PREFIX * REST_PREFIXES.length,
          seed: seedOf(key),
          endOnFailure: process.env.HOSTILE_SHRINK !== '1',
        },
      );
    });
  }

  // -- GraphQL mutations --------------------------------------------------------------------

  /** Ids of the organization's own objects (for mutations that do not destroy what they name). */
  const ownIds = () => [
    own.agent,
    own.workflow,
    own.batch,
    own.prospect,
    own.prospectList,
    own.tag,
    own.trunk,
    own.connection,
    own.version,
    own.webhookEndpoint,
  ];
  const madeUpId = fc.oneof(
    fc
      .constantFrom(
        'agt',
        'wf',
        'wfv',
        'bat',
        'run',
        'prs',
        'pl',
        'tag',
        'int',
        'oint',
        'trk',
        'num',
        'ins',
        'key',
        'org',
        'evl',
        'tool',
        'whe',
        'dlv',
        'zzz',
        '',
      )
      .chain((prefix) =>
        fc
          .string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: 0, maxLength: 40 })
          .map((rest) => `${prefix}_${rest}`),
      ),
    hostileString.filter((text) => text.length < 1000),
  );

  /** A value for an argument or input member of `type`: mostly the right shape with hostile leaves, sometimes anything. */
  function typedValue(type: GraphQLInputType, destructive: boolean, depth = 0): fc.Arbitrary<unknown> {
    const named = getNamedType(type);
    const inner = isNonNullType(type) ? type.ofType : type;
    const anything = hostileValue(isInputObjectType(named) ? Object.keys(named.getFields()) : []);
    let shaped: fc.Arbitrary<unknown>;
    if (isListType(inner)) {
      shaped = fc.array(typedValue(inner.ofType, destructive, depth + 1), { maxLength: 4 });
    } else if (isInputObjectType(named)) {
      if (depth > 3) return anything;
      const fields = Object.values(named.getFields());
      shaped = fc
        .tuple(
          ...fields.map((field) =>
            fc.option(typedValue(field.type, destructive, depth + 1), { nil: undefined, freq: 3 }),
          ),
        )
        .map((values) =>
          Object.fromEntries(
            fields.flatMap((field, index) => (values[index] === undefined ? [] : [[field.name, values[index]]])),
          ),
        );
    } else if (isEnumType(named)) {
      shaped = fc.oneof(fc.constantFrom(...named.getValues().map((value) => value.name)), hostileString);
    } else if (named.name === 'ID' || /Id$/.test(named.name)) {
      shaped = destructive ? madeUpId : fc.oneof(madeUpId, fc.constantFrom(...ownIds()));
    } else if (named.name === 'Int' || named.name === 'Float') {
      shaped = hostileNumber;
    } else if (named.name === 'Boolean') {
      shaped = fc.boolean();
    } else if (named.name === 'JSON') {
      shaped = fc.jsonValue({ maxDepth: 4 });
    } else {
      shaped = hostileString; // String, Date, DateTime, custom scalars
    }
    return fc.oneof(
      { weight: 5, arbitrary: shaped },
      { weight: 1, arbitrary: anything },
      { weight: 1, arbitrary: fc.constant(null) },
    );
  }

  /** Marks generated variables that are a valid set with one member broken. */
  const BROKEN = '\u0001broken';

  const selectionOf = (field: GraphQLField<unknown, unknown>) =>
    isLeafType(getNamedType(field.type)) ? '' : '{ __typename }';

  const mutationType = schema.getMutationType();
  const mutationFields = mutationType ? Object.values(mutationType.getFields()) : [];

  it('the schema has mutations to try', () => {
    expect(mutationFields.length).toBeGreaterThan(15);
  });

  for (const field of mutationFields) {
    it(`GraphQL Mutation.${field.name}`, { timeout: 120_000 }, async () => {
      const destructive = DESTRUCTIVE.test(field.name);
      const query =
        `mutation(${field.args.map((arg) => `$${arg.name}: ${arg.type.toString()}`).join(', ')}) { ${field.name}${
          field.args.length > 0 ? `(${field.args.map((arg) => `${arg.name}: $${arg.name}`).join(', ')})` : ''
        } ${selectionOf(field)} }`.replace('mutation()', 'mutation');
      const template = MUTATION_VARIABLES[field.name];
      const generated = fc
        .tuple(...field.args.map((arg) => fc.option(typedValue(arg.type, destructive), { nil: undefined, freq: 8 })))
        .map((values) =>
          Object.fromEntries(
            field.args.flatMap((arg, index) => (values[index] === undefined ? [] : [[arg.name, values[index]]])),
          ),
        );
      const variables = fc.oneof(
        { weight: 4, arbitrary: generated },
        // `input` (or each argument) as arbitrary JSON
        {
          weight: 2,
          arbitrary: fc
            .tuple(...field.args.map(() => fc.jsonValue({ maxDepth: 4 })))
            .map((values) => Object.fromEntries(field.args.map((arg, index) => [arg.name, values[index]]))),
        },
        // a valid set of variables with one member broken
        ...(template && !destructive
          ? [
              {
                weight: 3,
                arbitrary: mutationOf([]).map((mutation): Record<string, unknown> => ({ [BROKEN]: mutation })),
              },
            ]
          : []),
      );
      await fc.assert(
        fc.asyncProperty(variables, async (spec) => {
          const vars = BROKEN in spec ? JSON.parse(mutate(template!(own), spec[BROKEN] as Mutation) || 'null') : spec;
          const before = await stateBefore();
          const response = await fetch(`${server.url}/graphql`, {
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              accept: 'application/graphql-response+json',
              'x-api-key': apiKey,
            },
            body: JSON.stringify({ query, variables: vars }),
          });
          requests++;
          const text = await response.text();
          const where = `Mutation.${field.name} with ${JSON.stringify(vars)?.slice(0, 400)}`;
          expect(response.status, `5xx for ${where}: ${text.slice(0, 300)}`).toBeLessThan(500);
          expect(STACK.test(text), `a stack trace for ${where}: ${text.slice(0, 500)}`).toBe(false);
          const body = JSON.parse(text) as {
            data?: Record<string, unknown> | null;
            errors?: { message: string; extensions?: Record<string, unknown> }[];
          };
          for (const error of body.errors ?? []) {
            if (typeof error.extensions?.code !== 'string') {
              // Recorded (one example per kind of message), and asserted once below, so the other properties keep running.
              const kind = error.message
                .replace(/got invalid value[\s\S]*/, 'got invalid value …')
                .replace(/"[^"]*"/g, '"…"')
                .replace(/\d+/g, 'N')
                .slice(0, 80);
              const example = `${where} -> HTTP ${response.status} ${JSON.stringify(error).slice(0, 300)}`;
              if (!codeless.has(kind) || codeless.get(kind)!.length > example.length) codeless.set(kind, example);
            }
            expect(error.extensions?.code, `an internal error for ${where}: ${JSON.stringify(error)}`).not.toBe(
              'INTERNAL_SERVER_ERROR',
            );
            const extensions = error.extensions ?? {};
            expect(
              'stacktrace' in extensions || 'originalError' in extensions || 'exception' in extensions,
              `internals in ${JSON.stringify(error)}`,
            ).toBe(false);
          }
          const refused =
            (body.errors?.length ?? 0) > 0 &&
            (body.data === null || body.data === undefined || body.data[field.name] === null);
          if (refused) {
            outcomes.graphqlRefused++;
            await expectUnchanged(before, `a refused mutation wrote something: ${where}: ${text.slice(0, 300)}`);
          } else {
            outcomes.graphqlData++;
            settled = undefined;
          }
        }),
        { numRuns: GRAPHQL_RUNS, seed: seedOf(field.name), endOnFailure: process.env.HOSTILE_SHRINK !== '1' },
      );
    });
  }

  it('every GraphQL error has an extensions.code', () => {
    expect(Object.fromEntries(codeless)).toEqual({});
  });

  // -- scopes ---------------------------------------------------------------------------------

  it('a key with any set of scopes: a valid request is a 403 naming a missing scope exactly when the table says, and writes nothing then', {
    timeout: 300_000,
  }, async () => {
    let refused = 0;
    for (const route of routes) {
      const key = `${route.method} ${route.path}`;
      const needs = routeNeeds(schema, route);
      await fc.assert(
        fc.asyncProperty(fc.constantFrom(...pool), fc.constantFrom(...REST_PREFIXES), async (holder, prefix) => {
          const path = route.path.replace(
            /:(\w+)/g,
            (_, param: string) => paramValue(route, param) ?? `${param.replace(/_id$/, '')}_${'0'.repeat(32)}`,
          );
          const query = key === 'GET /agents/evals' ? `?agent_id=${own.agent}` : '';
          const url = `${prefix.replace(':org_id', organizationId)}${path}${query}`;
          const body = route.upload
            ? 'First Name\nA\n'
            : route.body
              ? JSON.stringify(REST_BODIES[key]!(own))
              : undefined;
          const contentType = route.upload ? route.upload.contentType : 'application/json';
          const before = await stateBefore();
          const headers: Record<string, string> = { 'x-api-key': holder.key };
          if (body !== undefined) headers['content-type'] = contentType;
          const response = await fetch(`${server.url}${url}`, { method: route.method, headers, body });
          const text = await response.text();
          requests++;
          const where = `${key} with ${holder.scopes.join(', ')}: ${response.status} ${text.slice(0, 300)}`;
          if (allowedWith(holder.scopes, needs)) {
            expect(response.status, where).not.toBe(403);
            settled = undefined;
            return;
          }
          refused++;
          expect(response.status, where).toBe(403);
          const answer = JSON.parse(text);
          expect(isErrorBody(answer), where).toBe(true);
          expect(
            needs.some((set) => set.includes(answer.error.scope) && !allowedWith(holder.scopes, [set])),
            where,
          ).toBe(true);
          await expectUnchanged(before, `a request refused for its scope wrote something: ${where}`);
        }),
        { numRuns: 12, seed: seedOf(`scopes ${key}`), endOnFailure: true },
      );
    }
    expect(refused).toBeGreaterThan(routes.length * 4);
  });

  it('sent thousands of hostile requests, some accepted, most refused', () => {
    expect(requests).toBeGreaterThan(routes.length * RUNS_PER_PREFIX);
    if (process.env.HOSTILE_STATS) console.log(outcomes);
    expect(outcomes.rest2xx).toBeGreaterThan(requests / 50);
    expect(outcomes.rest4xx).toBeGreaterThan(requests / 5);
    expect(outcomes.graphqlData).toBeGreaterThan(0);
    expect(outcomes.graphqlRefused).toBeGreaterThan(0);
  });
});
