// The tenancy matrix (issue 6). A victim organization owns one of every kind
// of object; an attacker organization, with its own key, tries every REST
// route (from the route table, under both prefixes) and every GraphQL root
// field, mutation and subscription (from the schema) with the victim's ids:
// in paths, in body and query members that reference objects, in GraphQL
// arguments and input members. The answers must be 404 / null / empty /
// NOT_FOUND (or a 400 naming an unknown reference), exactly what an id that
// never existed gets (so not even existence leaks); no response may carry a
// victim id, name or secret the request did not carry itself; and a snapshot
// of every row of the victim organization taken before the matrix equals the
// one taken after it.
//
// A route or root field added later is tried as well; one the matrix cannot
// build a valid request for (no body template, an unknown reference member)
// makes the test fail until it is added here.
import { randomBytes } from 'node:crypto';
import {
  type GraphQLField,
  type GraphQLInputType,
  type GraphQLObjectType,
  type GraphQLOutputType,
  getNamedType,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isLeafType,
  isListType,
  isNonNullType,
  isUnionType,
} from 'graphql';
import { createClient } from 'graphql-ws';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { KEY_SCOPES } from '../src/key-scopes.ts';
import { REST_PREFIXES, type Route } from '../src/rest/route.ts';
import { routes } from '../src/rest/routes/index.ts';
import { schema } from '../src/schema/index.ts';
import { type RestResponse, restClient } from './support/rest.ts';
import { allowedWith, operationNeeds, routeNeeds } from './support/scopes.ts';
import { startTestServer, type TestServer } from './support/server.ts';
import { memberNames } from './support/zod-members.ts';

// ---------------------------------------------------------------------------
// Kinds of objects, and how references name them

type Kind =
  | 'organization'
  | 'apiKey'
  | 'agent'
  | 'tool'
  | 'evaluation'
  | 'workflow'
  | 'version'
  | 'batch'
  | 'run'
  | 'prospect'
  | 'prospectList'
  | 'tag'
  | 'connection'
  | 'trunk'
  | 'number'
  | 'insight'
  | 'webhookEndpoint'
  | 'webhookDelivery';

/** A reference member's stem (snake_case, without `_id`/`_ids`) and the kind it names. */
const REFERENCE_STEMS: Record<string, Kind> = {
  org: 'organization',
  organization: 'organization',
  api_key: 'apiKey',
  agent: 'agent',
  tool: 'tool',
  evaluation: 'evaluation',
  workflow: 'workflow',
  workflow_version: 'version',
  version: 'version',
  batch: 'batch',
  run: 'run',
  prospect: 'prospect',
  prospect_list: 'prospectList',
  tag: 'tag',
  integration: 'connection',
  organization_integration: 'connection',
  sip_trunk: 'trunk',
  trunk: 'trunk',
  phone_number: 'number',
  insight: 'insight',
  key: 'apiKey',
  // An audit event's object (`resource_id`) may be of any kind: an agent stands for them.
  resource: 'agent',
};

/** Members named like references that name no object of this API (a TTS vendor's voice). */
const NOT_REFERENCES = new Set(['voice_id']);

const snake = (name: string) => name.replace(/([A-Z])/g, '_$1').toLowerCase();

/** Whether a member name is a reference (`agent_id`, `prospectIds`, `sip_trunk_id`...); throws for an unknown one. */
function referenceKind(name: string): Kind | null {
  const snaked = snake(name);
  const match = /^(.+)_ids?$/.exec(snaked);
  if (!match || NOT_REFERENCES.has(snaked)) return null;
  const kind = REFERENCE_STEMS[match[1]!];
  if (!kind)
    throw new Error(
      `"${name}" looks like a reference to an unknown kind of object: add it to REFERENCE_STEMS or NOT_REFERENCES`,
    );
  return kind;
}

/** The path segment before `:id` names the kind (`/integrations/:id`). */
const SEGMENT_KINDS: Record<string, Kind> = {
  agents: 'agent',
  workflows: 'workflow',
  versions: 'version',
  batches: 'batch',
  runs: 'run',
  prospects: 'prospect',
  'prospect-lists': 'prospectList',
  tags: 'tag',
  integrations: 'connection',
  'sip-trunks': 'trunk',
  'phone-numbers': 'number',
  insights: 'insight',
  evals: 'evaluation',
  'webhook-endpoints': 'webhookEndpoint',
  'webhook-deliveries': 'webhookDelivery',
  'api-keys': 'apiKey',
};

/** Path parameters that name no object by id: a connected integration's slug, a number on the do-not-call list, a run's attempt number. */
type ParamKind = Kind | 'slug' | 'listedNumber' | 'attemptNumber';

function paramKind(route: Route, param: string): ParamKind {
  if (param === 'slug') return 'slug';
  if (param === 'number' && route.path.startsWith('/do-not-call/')) return 'listedNumber';
  if (param === 'attempt') return 'attemptNumber';
  if (param === 'id') {
    const segments = route.path.split('/');
    const kind = SEGMENT_KINDS[segments[segments.indexOf(':id') - 1] ?? ''];
    if (kind) return kind;
  } else {
    const kind = referenceKind(param);
    if (kind) return kind;
  }
  throw new Error(
    `${route.method} ${route.path}: the matrix does not know what :${param} names; extend SEGMENT_KINDS or REFERENCE_STEMS`,
  );
}

/** The route a concrete path (below the organization) is a row of. */
const routeOf = (method: string, path: string) =>
  routes.find((route) => route.method === method && new RegExp(`^${route.path.replace(/:\w+/g, '[^/]+')}$`).test(path));

const paramsOf = (route: Route) => [...route.path.matchAll(/:(\w+)/g)].map((match) => match[1]!);

const referenceMembers = (schema: unknown) =>
  [...new Set(memberNames(schema))].filter((name) => referenceKind(name) !== null);

/** Every key of a JSON value, at any depth. */
function keysOf(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(keysOf);
  if (value && typeof value === 'object')
    return Object.entries(value).flatMap(([key, member]) => [key, ...keysOf(member)]);
  return [];
}

// ---------------------------------------------------------------------------
// The two organizations

interface Tenant {
  organizationId: string;
  apiKey: string;
  /** Ids by kind; the first of each kind is the one templates use. */
  ids: Record<Kind, string[]>;
  slug: string;
  /** A number on its do-not-call list. */
  listedNumber: string;
}

/** The ids a request template puts in reference members. */
interface Refs {
  organization: string;
  apiKey: string;
  agent: string;
  tool: string;
  evaluation: string;
  workflow: string;
  version: string;
  batch: string;
  run: string;
  prospect: string;
  prospects: string[];
  prospectList: string;
  tag: string;
  connection: string;
  trunk: string;
  number: string;
  insight: string;
  webhookEndpoint: string;
  webhookDelivery: string;
  slug: string;
  listedNumber: string;
  /** Attempt numbers are the same in every organization: the run names whose. */
  attemptNumber: string;
}

function refsOf(tenant: Tenant): Refs {
  const first = (kind: Kind) => tenant.ids[kind][0]!;
  return {
    organization: tenant.organizationId,
    apiKey: first('apiKey'),
    agent: first('agent'),
    tool: first('tool'),
    evaluation: first('evaluation'),
    workflow: first('workflow'),
    version: first('version'),
    batch: first('batch'),
    run: first('run'),
    prospect: first('prospect'),
    prospects: tenant.ids.prospect.slice(0, 2),
    prospectList: first('prospectList'),
    tag: first('tag'),
    connection: first('connection'),
    trunk: first('trunk'),
    number: first('number'),
    insight: first('insight'),
    webhookEndpoint: first('webhookEndpoint'),
    webhookDelivery: first('webhookDelivery'),
    slug: tenant.slug,
    listedNumber: tenant.listedNumber,
    attemptNumber: '1',
  };
}

const refOfParam = (refs: Refs, kind: ParamKind) => refs[kind];

let phoneCounter = 1000 + Math.floor(Math.random() * 1000);
/** A number no organization has yet. */
const freshNumber = (area = '212') => `+1${area}555${String(phoneCounter++).padStart(4, '0')}`;
const fresh = () => randomBytes(4).toString('hex');

// ---------------------------------------------------------------------------
// Valid requests: a body (and query) per REST route, variables per mutation

type Template = (refs: Refs) => Record<string, unknown>;

/** A valid body for every REST route that takes one, keyed `METHOD path`. */
const REST_BODIES: Record<string, Template> = {
  'POST /agents': () => ({ name: 'Attacker agent', llm_config: { provider: 'openai', model: 'gpt-4o' } }),
  'PATCH /agents/:agent_id': () => ({ name: 'Hijacked', prompt_template: 'hijacked', goodbye_config: null }),
  'POST /agents/evals': (refs) => ({ agent_id: refs.agent, category: 'c', title: 'Hijack', prompt: 'p', score: 1 }),
  'POST /workflows': () => ({ name: 'Attacker workflow', definition: { steps: [] } }),
  'PATCH /workflows/:workflow_id': () => ({ name: 'Hijacked', is_active: false }),
  'POST /workflows/:workflow_id/versions': () => ({ definition: { steps: [], hijacked: true } }),
  'POST /workflows/:workflow_id/batches': (refs) => ({
    name: 'Hijack',
    prospect_ids: refs.prospects,
    prospect_list_id: refs.prospectList,
  }),
  'PATCH /batches/:batch_id': () => ({ status: 'CANCELLED' }),
  'PATCH /batches/:batch_id/settings': () => ({
    max_concurrency: 1,
    calls_per_second: 0.5,
    retry: { max_attempts: 5 },
  }),
  'POST /prospects': () => ({ prospects: [{ first_name: 'Attacker', phone: '+14155550100' }] }),
  'PATCH /settings': () => ({ max_concurrent_calls: 3 }),
  'POST /prospects/:prospect_id/tags': (refs) => ({ tag_ids: [refs.tag] }),
  'POST /prospects/:prospect_id/consents': () => ({
    scope: 'renewals',
    source: 'web_form',
    captured_at: '2026-01-05T10:00:00Z',
    evidence: 'https://forms.example.com/1',
  }),
  'POST /prospects/:prospect_id/consents/revoke': () => ({ scope: 'renewals' }),
  'POST /prospect-lists': (refs) => ({ name: 'Attacker list', prospect_ids: refs.prospects }),
  'POST /tags': () => ({ name: `Attacker tag ${fresh()}` }),
  'POST /integrations': () => ({ slug: 'hubspot', credentials: { private_app_token: 'attacker-token' } }),
  'POST /sip-trunks': () => ({
    name: 'Attacker trunk',
    address: 'sip.attacker.example',
    provider: 'telnyx',
    phone_numbers: [freshNumber()],
  }),
  'POST /phone-numbers': (refs) => ({ number: freshNumber(), sip_trunk_id: refs.trunk, label: 'x' }),
  'POST /phone-numbers/bulk': (refs) => ({ sip_trunk_id: refs.trunk, numbers: [{ number: freshNumber() }] }),
  'POST /phone-numbers/:id/rest': () => ({ hours: 2 }),
  'POST /do-not-call': () => ({ numbers: [freshNumber()], reason: 'attacker' }),
  'POST /webhook-endpoints': () => ({ url: 'https://attacker.example/hook', events: ['*'] }),
  'PATCH /webhook-endpoints/:id': () => ({
    url: 'https://attacker.example/hijacked',
    events: ['agent.updated'],
    description: 'Hijacked',
    enabled: false,
  }),
  'POST /runs/:run_id/attempts/:attempt/outcome': () => ({ outcome: 'voicemail' }),
  'POST /runs/:run_id/attempts/:attempt/transfer': () => ({ to: '+14155550199', mode: 'cold' }),
  'POST /runs/:run_id/attempts/:attempt/record': (refs) => ({
    transcript: [{ role: 'callee', text: 'hello', started_ms: 0, ended_ms: 900 }],
    summary: 'Reported',
    evaluations: [{ evaluation_id: Number(refs.evaluation.slice('evl_'.length)), score: 10, passed: false }],
  }),
  // keys:admin only: a key holding just keys:admin may issue it (none grants what it lacks).
  'POST /api-keys': () => ({ name: 'Attacker key', scopes: ['keys:admin'] }),
  'POST /api-keys/:id/rotate': () => ({ grace_seconds: 0 }),
};

/** A valid file for every upload route (its body, of the route's media type). */
const REST_UPLOADS: Record<string, (refs: Refs) => string> = {
  'POST /prospects/import': () => `First Name,Phone\nAttacker,${freshNumber()}\n`,
};

/** Query parameters: every reference member a route's query takes. */
const REST_QUERIES: Record<string, (refs: Refs) => Record<string, string>> = {
  'GET /agents/evals': (refs) => ({ agent_id: refs.agent }),
  'POST /prospects/import': (refs) => ({ tag_ids: refs.tag }),
  'GET /call-records': (refs) => ({ agent_id: refs.agent, batch_id: refs.batch }),
  'GET /audit-events': (refs) => ({ resource_id: refs.agent, key_id: refs.apiKey }),
  'GET /workflows/:workflow_id/runs': (refs) => ({
    batch_id: refs.batch,
    prospect_id: refs.prospect,
    workflow_version_id: refs.version,
  }),
};

/** Valid variables for every mutation (GraphQL names). */
const MUTATION_VARIABLES: Record<string, Template> = {
  addDoNotCallNumbers: () => ({ input: { numbers: [freshNumber()], reason: 'attacker' } }),
  addConsent: (refs) => ({
    prospectId: refs.prospect,
    input: {
      scope: 'renewals',
      source: 'web_form',
      capturedAt: '2026-01-05T10:00:00Z',
      evidence: 'https://forms.example.com/1',
    },
  }),
  revokeConsent: (refs) => ({ prospectId: refs.prospect, input: { scope: 'renewals' } }),
  addTagsToProspect: (refs) => ({ prospectId: refs.prospect, input: { tagIds: [refs.tag] } }),
  connectIntegration: () => ({ input: { slug: 'hubspot', credentials: { private_app_token: 'attacker-token-2' } } }),
  createAgent: () => ({ input: { name: 'Attacker agent' } }),
  createApiKey: () => ({ name: 'attacker key', scopes: ['keys:admin'] }),
  createBatch: (refs) => ({
    workflowId: refs.workflow,
    input: { prospectIds: refs.prospects, prospectListId: refs.prospectList },
  }),
  createEvaluation: (refs) => ({ input: { agentId: refs.agent, score: 3 } }),
  createPhoneNumber: (refs) => ({ input: { number: freshNumber(), sipTrunkId: refs.trunk } }),
  createPhoneNumbers: (refs) => ({ input: { sipTrunkId: refs.trunk, numbers: [{ number: freshNumber() }] } }),
  createProspectList: (refs) => ({ input: { name: 'Attacker list', prospectIds: refs.prospects } }),
  createProspects: () => ({ input: { prospects: [{ firstName: 'Attacker' }] } }),
  createSipTrunk: () => ({
    input: {
      name: 'Attacker trunk',
      address: 'sip.attacker.example',
      provider: 'other',
      phoneNumbers: [freshNumber()],
    },
  }),
  createTag: () => ({ input: { name: `Attacker tag ${fresh()}` } }),
  createWorkflow: () => ({ input: { name: 'Attacker workflow', definition: { steps: [] } } }),
  createWebhookEndpoint: () => ({ input: { url: 'https://attacker.example/hook', events: ['*'] } }),
  updateWebhookEndpoint: (refs) => ({
    id: refs.webhookEndpoint,
    input: { url: 'https://attacker.example/hijacked', enabled: false },
  }),
  deleteWebhookEndpoint: (refs) => ({ id: refs.webhookEndpoint }),
  rotateWebhookEndpointSecret: (refs) => ({ id: refs.webhookEndpoint }),
  restPhoneNumber: (refs) => ({ id: refs.number, input: { hours: 2 } }),
  restorePhoneNumber: (refs) => ({ id: refs.number }),
  replayWebhookDelivery: (refs) => ({ id: refs.webhookDelivery }),
  importProspects: (refs) => ({
    csv: `First Name,Phone\nAttacker,${freshNumber()}\n`,
    options: { tagIds: [refs.tag] },
  }),
  deleteAgent: (refs) => ({ id: refs.agent }),
  eraseProspect: (refs) => ({ id: refs.prospect }),
  disconnectIntegration: (refs) => ({ id: refs.connection }),
  generateInsight: () => ({ periodStart: VICTIM_PERIOD[0], periodEnd: VICTIM_PERIOD[1] }),
  publishWorkflowVersion: (refs) => ({
    workflowId: refs.workflow,
    input: { definition: { steps: [], hijacked: true } },
  }),
  removeDoNotCallNumber: (refs) => ({ number: refs.listedNumber }),
  revokeApiKey: (refs) => ({ id: refs.apiKey }),
  rotateApiKey: (refs) => ({ id: refs.apiKey, graceSeconds: 0 }),
  setAgentTools: (refs) => ({ agentId: refs.agent, tools: [{ name: 'hijack', url: 'https://attacker.example' }] }),
  updateAgent: (refs) => ({ id: refs.agent, input: { name: 'Hijacked' } }),
  updateBatchStatus: (refs) => ({ id: refs.batch, status: 'CANCELLED' }),
  updateBatchSettings: (refs) => ({ id: refs.batch, input: { maxConcurrency: 1 } }),
  retryFailedRuns: (refs) => ({ id: refs.batch }),
  rotateSigningSecret: () => ({}),
  updateOrganizationSettings: () => ({ input: { maxConcurrentCalls: 3 } }),
  reportCallOutcome: (refs) => ({ runId: refs.run, attempt: 1, outcome: 'voicemail' }),
  transferCall: (refs) => ({ runId: refs.run, attempt: 1, input: { to: '+14155550199' } }),
  reportCallRecord: (refs) => ({
    runId: refs.run,
    attempt: 1,
    input: { summary: 'Hijacked' },
  }),
  updateWorkflow: (refs) => ({ id: refs.workflow, input: { isActive: false, name: 'Hijacked' } }),
};

const VICTIM_PERIOD = ['2026-01-01', '2026-01-31'] as const;

// ---------------------------------------------------------------------------
// GraphQL operations built from the schema

/** `number` names a number on the do-not-call list: tried like an id. */
const isIdArgument = (name: string, type: GraphQLInputType) =>
  getNamedType(type).name === 'ID' || name === 'slug' || name === 'number' || /(Id|Ids)$/.test(name);

const isListArgument = (type: GraphQLInputType) => isListType(isNonNullType(type) ? type.ofType : type);

/** A selection set: `depth` levels of leaves (with `id`, `totalCount` always), every interface member's id. */
function selection(type: GraphQLOutputType, depth: number): string {
  const named = getNamedType(type);
  if (isLeafType(named)) return '';
  if (isInterfaceType(named) || isUnionType(named)) {
    const members = schema.getPossibleTypes(named).filter((member) => 'id' in member.getFields());
    return `{ __typename ${members.map((member) => `... on ${member.name} { id }`).join(' ')} }`;
  }
  const parts = ['__typename'];
  for (const field of Object.values((named as GraphQLObjectType).getFields())) {
    if (field.args.some((arg) => isNonNullType(arg.type) && arg.defaultValue === undefined)) continue;
    if (isLeafType(getNamedType(field.type))) {
      if (depth > 0 || field.name === 'id' || field.name === 'totalCount') parts.push(field.name);
    } else if (depth > 0) {
      parts.push(`${field.name} ${selection(field.type, depth - 1)}`);
    }
  }
  return `{ ${parts.join(' ')} }`;
}

function operation(
  keyword: 'query' | 'mutation' | 'subscription',
  field: GraphQLField<unknown, unknown>,
  variables: Record<string, unknown>,
) {
  const used = field.args.filter((arg) => arg.name in variables);
  const definitions = used.map((arg) => `$${arg.name}: ${arg.type.toString()}`).join(', ');
  const call =
    used.length > 0 ? `${field.name}(${used.map((arg) => `${arg.name}: $${arg.name}`).join(', ')})` : field.name;
  return `${keyword}${definitions ? `(${definitions})` : ''} { ${call} ${selection(field.type, 1)} }`;
}

/** Reference members of an input type, at any depth (`agentId`, `prospectIds`, `filter.batchId`). */
function inputReferences(type: GraphQLInputType, seen = new Set<string>()): string[] {
  const named = getNamedType(type);
  if (!isInputObjectType(named) || seen.has(named.name)) return [];
  seen.add(named.name);
  // An integer reference (a call record's `evaluationId`, E18's integer id) cannot hold another kind's id:
  // its own tests give it another organization's (test/call-records.test.ts).
  return Object.values(named.getFields()).flatMap((field) => [
    ...(referenceKind(field.name) && getNamedType(field.type).name !== 'Int' ? [field.name] : []),
    ...inputReferences(field.type, seen),
  ]);
}

/** Sets every reference member (top-level id arguments too) of `value` with `pick`. */
function replaceReferences(
  value: unknown,
  pick: (name: string, current: unknown) => unknown,
  topLevelIds: string[] = [],
): unknown {
  if (Array.isArray(value)) return value.map((item) => replaceReferences(item, pick));
  if (!value || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, member]) =>
      topLevelIds.includes(key) || referenceKind(key)
        ? [key, pick(key, member)]
        : [key, replaceReferences(member, pick)],
    ),
  );
}

/** `id` where the member held one id, `[id]` where it held a list. */
const sameShape = (id: string) => (_name: string, current: unknown) => (Array.isArray(current) ? [id] : id);

/** A value that shows nothing: null, an empty list, a list of nulls, an empty connection. */
function isEmptyValue(value: unknown): boolean {
  if (value === null) return true;
  if (Array.isArray(value)) return value.every((item) => item === null);
  if (typeof value === 'object') {
    const connection = value as { totalCount?: number; nodes?: unknown[]; edges?: unknown[] };
    return (
      connection.totalCount === 0 && (connection.nodes ?? []).length === 0 && (connection.edges ?? []).length === 0
    );
  }
  return false;
}

// ---------------------------------------------------------------------------

describe('tenancy matrix: another organization gets 404 / null, never data, never a change', () => {
  let server: TestServer;
  let victim: Tenant;
  let attacker: Tenant;
  let V: Refs;
  let A: Refs;
  let before: Record<string, string[]>;
  const MARK = `victim${randomBytes(5).toString('hex')}`;
  const secrets: string[] = [];
  /** Victim strings no response may carry unless its request did. */
  let leakTokens: string[] = [];
  /** Victim id -> an id of the same shape that never existed. */
  const ghosts = new Map<string, string>();
  const leaks: string[] = [];
  const failures: string[] = [];
  let requests = 0;

  const fail = (message: string) => {
    failures.push(message);
  };

  // -- recording and comparing --------------------------------------------

  function record(label: string, requestText: string, responseText: string) {
    requests++;
    for (const token of leakTokens) {
      if (responseText.includes(token) && !requestText.includes(token))
        leaks.push(`${label}: the response carries victim data "${token}": ${responseText.slice(0, 400)}`);
    }
  }

  /** The text with victim ids (or their ghosts) replaced by the same placeholders. */
  function normalize(text: string, ghostSide: boolean) {
    const pairs = [...ghosts].sort((a, b) => b[0].length - a[0].length);
    let result = text;
    pairs.forEach(([real, ghost], index) => {
      result = result.split(ghostSide ? ghost : real).join(`<id${index}>`);
    });
    return result;
  }

  const toGhosts = (text: string) => {
    let result = text;
    for (const [real, ghost] of [...ghosts].sort((a, b) => b[0].length - a[0].length))
      result = result.split(real).join(ghost);
    return result;
  };

  const mentionsVictim = (text: string) => [...ghosts.keys()].some((id) => text.includes(id));

  // -- REST --------------------------------------------------------------------

  interface RestRequest {
    method: string;
    path: string;
    query?: Record<string, string>;
    body?: unknown;
    /** An upload route's file. */
    upload?: { contentType: string; text: string };
  }

  const urlOf = (request: RestRequest) =>
    request.path +
    (request.query && Object.keys(request.query).length > 0 ? `?${new URLSearchParams(request.query)}` : '');

  async function send(
    apiKey: string,
    request: RestRequest,
    label: string,
    headers: Record<string, string> = {},
  ): Promise<RestResponse> {
    const rest = restClient(server, '', apiKey);
    const response = await rest(
      request.method,
      urlOf(request),
      request.upload
        ? { raw: request.upload.text, headers: { 'content-type': request.upload.contentType, ...headers } }
        : { headers, ...(request.body === undefined ? {} : { body: request.body }) },
    );
    record(label, JSON.stringify(request), JSON.stringify(response.body ?? null));
    return response;
  }

  const isErrorBody = (response: RestResponse) =>
    response.body?.status === false &&
    Object.keys(response.body).sort().join() === 'data,error,message,status' &&
    response.body.data === null &&
    typeof response.body.message === 'string';

  /** Sends the request and its ghost twin; their answers must not be told apart. */
  async function sendWithGhost(request: RestRequest, label: string) {
    const response = await send(attacker.apiKey, request, label);
    const ghostRequest = JSON.parse(toGhosts(JSON.stringify(request))) as RestRequest;
    const ghost = await send(attacker.apiKey, ghostRequest, `${label} (ghost ids)`);
    const seen = normalize(JSON.stringify(response.body ?? null), false);
    const expected = normalize(JSON.stringify(ghost.body ?? null), true);
    if (response.status !== ghost.status || seen !== expected) {
      fail(
        `${label}: victim ids answer ${response.status} ${seen.slice(0, 300)} but ids that never existed answer ${ghost.status} ${expected.slice(0, 300)}`,
      );
    }
    if (response.status >= 400 && !isErrorBody(response))
      fail(`${label}: not SPEC's error body: ${JSON.stringify(response.body)}`);
    return response;
  }

  function restRequest(
    route: Route,
    prefix: string,
    organizationId: string,
    pathRefs: Refs,
    memberRefs: Refs,
  ): RestRequest {
    const key = `${route.method} ${route.path}`;
    const template = REST_BODIES[key];
    if (route.body && !template) throw new Error(`${key} takes a body: add a valid one to REST_BODIES`);
    const file = REST_UPLOADS[key];
    if (route.upload && !file) throw new Error(`${key} takes a file: add a valid one to REST_UPLOADS`);
    return {
      method: route.method,
      path:
        prefix.replace(':org_id', organizationId) +
        route.path.replace(/:(\w+)/g, (_, param: string) => refOfParam(pathRefs, paramKind(route, param))),
      query: REST_QUERIES[key]?.(memberRefs),
      body: route.body ? template!(memberRefs) : undefined,
      upload: route.upload ? { contentType: route.upload.contentType, text: file!(memberRefs) } : undefined,
    };
  }

  // -- GraphQL -----------------------------------------------------------------

  async function graphql(apiKey: string, query: string, variables: Record<string, unknown>, label: string) {
    const response = await server.graphql(apiKey, query, variables);
    record(label, JSON.stringify({ query, variables }), JSON.stringify(response.body));
    return response;
  }

  async function graphqlWithGhost(query: string, variables: Record<string, unknown>, label: string) {
    const response = await graphql(attacker.apiKey, query, variables, label);
    const ghost = await graphql(
      attacker.apiKey,
      query,
      JSON.parse(toGhosts(JSON.stringify(variables))),
      `${label} (ghost ids)`,
    );
    const seen = normalize(JSON.stringify(response.body), false);
    const expected = normalize(JSON.stringify(ghost.body), true);
    if (response.status !== ghost.status || seen !== expected) {
      fail(
        `${label}: victim ids answer ${response.status} ${seen.slice(0, 300)} but ids that never existed answer ${ghost.status} ${expected.slice(0, 300)}`,
      );
    }
    for (const error of response.body.errors ?? []) {
      if (!error.extensions?.code) fail(`${label}: an error without extensions.code: ${JSON.stringify(error)}`);
    }
    return response;
  }

  const codesOf = (body: { errors?: { extensions?: { code?: string } }[] }) =>
    (body.errors ?? []).map((error) => error.extensions?.code);

  // -- snapshot ------------------------------------------------------------------

  /**
   * Every row of the victim organization, table by table, as JSON text: rows with its
   * organizationId, rows of tables without one that reference one of its rows (list
   * members, prospect tags), and whole tables that belong to no organization (the catalog).
   */
  const victimRows = () => rowsOf(victim.organizationId);

  async function rowsOf(organizationId: string): Promise<Record<string, string[]>> {
    const prisma = server.db.prisma;
    const tables = await prisma.$queryRawUnsafe<{ table_name: string }[]>(
      `SELECT table_name FROM information_schema.tables
       WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' AND table_name NOT LIKE '\\_prisma%' ORDER BY table_name`,
    );
    const columns = await prisma.$queryRawUnsafe<{ table_name: string; column_name: string }[]>(
      `SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = current_schema()`,
    );
    const foreignKeys = await prisma.$queryRawUnsafe<
      { table_name: string; column_name: string; ref_table: string; ref_column: string }[]
    >(
      `SELECT kcu.table_name, kcu.column_name, ccu.table_name AS ref_table, ccu.column_name AS ref_column
       FROM information_schema.table_constraints tc
       JOIN information_schema.key_column_usage kcu ON kcu.constraint_name = tc.constraint_name AND kcu.table_schema = tc.table_schema
       JOIN information_schema.constraint_column_usage ccu ON ccu.constraint_name = tc.constraint_name AND ccu.table_schema = tc.table_schema
       WHERE tc.constraint_type = 'FOREIGN KEY' AND tc.table_schema = current_schema()`,
    );
    const owned = new Set(
      columns.filter((column) => column.column_name === 'organizationId').map((column) => column.table_name),
    );
    const snapshot: Record<string, string[]> = {};
    for (const { table_name: table } of tables) {
      let where: string;
      if (table === 'Organization') where = `t.id = $1`;
      else if (owned.has(table)) where = `t."organizationId" = $1`;
      else {
        const parents = foreignKeys.filter((fk) => fk.table_name === table && owned.has(fk.ref_table));
        where =
          parents.length > 0
            ? parents
                .map(
                  (fk) =>
                    `EXISTS (SELECT 1 FROM "${fk.ref_table}" p WHERE p."${fk.ref_column}" = t."${fk.column_name}" AND p."organizationId" = $1)`,
                )
                .join(' OR ')
            : `$1::text IS NOT NULL`;
      }
      const rows = await prisma.$queryRawUnsafe<{ row: string }[]>(
        `SELECT row_to_json(t)::text AS row FROM "${table}" t WHERE ${where}`,
        organizationId,
      );
      snapshot[table] = rows.map((row) => row.row).sort();
    }
    return snapshot;
  }

  // -- setup -----------------------------------------------------------------------

  /** Builds one of every object for an organization, through the API itself. */
  async function populate(
    name: string,
    mark: string,
    options: { slug: string; area: string; period: readonly [string, string] },
  ) {
    const { organizationId, apiKey } = await server.createOrganization(name);
    const rest = restClient(server, organizationId, apiKey);
    /** Every create is made with an Idempotency-Key, by route. */
    const idempotencyKeys = new Map<string, string>();
    const ok = async (method: string, path: string, body?: unknown) => {
      const route = routeOf(method, path);
      const headers: Record<string, string> = {};
      if (route?.status === 201) {
        headers['idempotency-key'] = `${mark}-${fresh()}`;
        idempotencyKeys.set(`${route.method} ${route.path}`, headers['idempotency-key']);
      }
      const response = await rest(method, `/org/{org}${path}`, { headers, ...(body === undefined ? {} : { body }) });
      if (response.status >= 300)
        throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(response.body)}`);
      return response.body;
    };
    const gql = async (query: string, variables?: Record<string, unknown>) => {
      const { body } = await server.graphql(apiKey, query, variables);
      if (body.errors) throw new Error(JSON.stringify(body.errors));
      return body.data;
    };
    const ownSecrets: string[] = [apiKey];
    // First: the changes below (the agent's tools, the integration) are events delivered there.
    const webhookEndpoint = await ok('POST', '/webhook-endpoints', {
      url: `https://${mark}.example/hook`,
      events: ['*'],
      description: `${mark} hook`,
    });
    ownSecrets.push(webhookEndpoint.secret);
    const agent = await ok('POST', '/agents', {
      name: `${mark} agent`,
      prompt_template: `${mark} prompt`,
      llm_config: { provider: 'openai', model: 'gpt-4o', system_prompt: `${mark} system` },
      precall_webhook: {
        method: 'POST',
        url: `https://${mark}.example/precall`,
        headers: { Authorization: `Bearer ${mark}-webhook-token` },
      },
    });
    const tools = await gql(
      `mutation($a: ID!, $t: [AgentToolInput!]!) { setAgentTools(agentId: $a, tools: $t) { tools { id } } }`,
      {
        a: agent.id,
        t: [{ name: `${mark}_tool`, description: mark, url: `https://${mark}.example/tool` }],
      },
    );
    const evaluation = await ok('POST', '/agents/evals', {
      agent_id: agent.id,
      category: mark,
      title: `${mark} eval`,
      prompt: mark,
      score: 42,
    });
    const workflow = await ok('POST', '/workflows', {
      name: `${mark} workflow`,
      description: mark,
      definition: { steps: [], note: mark },
    });
    await ok('POST', `/workflows/${workflow.id}/versions`, { definition: { steps: [], note: `${mark} v2` } });
    const versions = await ok('GET', `/workflows/${workflow.id}/versions`);
    const prospects = await ok('POST', '/prospects', {
      prospects: [0, 1, 2].map((index) => ({
        first_name: `${mark} P${index}`,
        last_name: mark,
        email: `${mark}${index}@example.com`,
        phone: '+14155550100',
      })),
    });
    const prospectIds: string[] = prospects.created.map((prospect: { id: string }) => prospect.id);
    const list = await ok('POST', '/prospect-lists', { name: `${mark} list`, prospect_ids: prospectIds.slice(0, 2) });
    const tag = await ok('POST', '/tags', { name: `${mark} tag` });
    await ok('POST', `/prospects/${prospectIds[0]}/tags`, { tag_ids: [tag.id] });
    // The CSV import (an upload route: a text/csv body), tagging what it imports, with an Idempotency-Key.
    const importKey = `${mark}-${fresh()}`;
    idempotencyKeys.set('POST /prospects/import', importKey);
    const imported = await rest('POST', `/org/{org}/prospects/import?tag_ids=${tag.id}`, {
      raw: `First Name,Phone,Plan\n${mark} imported,${freshNumber(options.area)},${mark} plan\n`,
      headers: { 'content-type': 'text/csv', 'idempotency-key': importKey },
    });
    if (imported.status !== 201)
      throw new Error(`POST /prospects/import: ${imported.status} ${JSON.stringify(imported.body)}`);
    const batch = await ok('POST', `/workflows/${workflow.id}/batches`, {
      name: `${mark} batch`,
      prospect_ids: [prospectIds[2]],
      prospect_list_id: list.id,
      scheduled_at: '2099-01-01T00:00:00Z',
    });
    const runs = await ok('GET', `/workflows/${workflow.id}/runs`);
    // A call that ended (written as the engine would: the batch waits until 2099), and its record as reported.
    await server.db.prisma.runAttempt.create({
      data: {
        organizationId,
        runId: runs.data[0].id,
        batchId: batch.id,
        number: 1,
        stepId: 'dial',
        startedAt: new Date(),
        endedAt: new Date(),
        outcome: 'answered',
        toNumber: '+14155550100',
      },
    });
    await ok('POST', `/runs/${runs.data[0].id}/attempts/1/record`, {
      transcript: [{ role: 'callee', text: `${mark} said this`, started_ms: 0, ended_ms: 900 }],
      summary: `${mark} summary`,
      disposition: { label: `${mark} label`, category: 'issue' },
    });
    const credentials =
      options.slug === 'slack'
        ? { bot_token: `xoxb-${mark}-bot-token` }
        : { private_app_token: `${mark}-private-token` };
    ownSecrets.push(...Object.values(credentials));
    const connection = await ok('POST', '/integrations', {
      slug: options.slug,
      credentials,
      settings: options.slug === 'slack' ? { channel: `#${mark}` } : {},
    });
    const sipPassword = `${mark}-sip-password`;
    ownSecrets.push(sipPassword);
    const trunks = await ok('POST', '/sip-trunks', {
      name: `${mark} trunk`,
      address: `${mark}.sip.example`,
      provider: 'twilio',
      auth_username: `${mark}-user`,
      auth_password: sipPassword,
      phone_numbers: [freshNumber(options.area)],
    });
    const single = await ok('POST', '/phone-numbers', {
      number: freshNumber(options.area),
      sip_trunk_id: trunks.inbound_trunk.id,
      label: mark,
    });
    const bulk = await ok('POST', '/phone-numbers/bulk', {
      sip_trunk_id: trunks.outbound_trunk.id,
      numbers: [{ number: freshNumber(options.area), label: mark }],
    });
    const insight = await gql(
      `mutation($s: Date!, $e: Date!) { generateInsight(periodStart: $s, periodEnd: $e) { id } }`,
      {
        s: options.period[0],
        e: options.period[1],
      },
    );
    const listedNumber = freshNumber(options.area);
    await ok('POST', '/do-not-call', { numbers: [listedNumber], reason: `${mark} opted out` });
    await ok('POST', `/prospects/${prospectIds[0]}/consents`, {
      scope: 'renewals',
      source: 'web_form',
      captured_at: '2026-01-05T10:00:00Z',
      evidence: `${mark} signed form`,
    });
    const secondKey = await ok('POST', '/api-keys', { name: `${mark} key`, scopes: ['keys:admin'] });
    ownSecrets.push(secondKey.api_key);
    const keys = await server.db.prisma.apiKey.findMany({ where: { organizationId }, orderBy: { createdAt: 'asc' } });
    const numbers = [...trunks.phone_numbers, single, ...bulk.created] as { id: string; number: string }[];
    const tenant: Tenant = {
      organizationId,
      apiKey,
      slug: options.slug,
      listedNumber,
      ids: {
        organization: [organizationId],
        apiKey: keys.map((key) => key.id),
        agent: [agent.id],
        tool: tools.setAgentTools.tools.map((tool: { id: string }) => tool.id),
        evaluation: [`evl_${evaluation.id}`],
        workflow: [workflow.id],
        version: versions.data.map((version: { id: string }) => version.id),
        batch: [batch.id],
        run: runs.data.map((run: { id: string }) => run.id),
        prospect: prospectIds,
        prospectList: [list.id],
        tag: [tag.id],
        connection: [connection.id],
        trunk: [trunks.outbound_trunk.id, trunks.inbound_trunk.id],
        number: numbers.map((number) => number.id),
        insight: [insight.generateInsight.id],
        webhookEndpoint: [webhookEndpoint.id],
        webhookDelivery: (await ok('GET', `/webhook-endpoints/${webhookEndpoint.id}/deliveries`)).data.map(
          (delivery: { id: string }) => delivery.id,
        ),
      },
    };
    return {
      tenant,
      secrets: ownSecrets,
      numbers: [...numbers.map((number) => number.number), listedNumber],
      tagName: tag.name as string,
      idempotencyKeys,
    };
  }

  let victimNumbers: string[] = [];
  let victimIdempotencyKeys = new Map<string, string>();
  let victimTagName = '';

  beforeAll(async () => {
    server = await startTestServer();
    const built = await populate('Victim', MARK, { slug: 'slack', area: '415', period: VICTIM_PERIOD });
    victim = built.tenant;
    victimNumbers = built.numbers;
    victimTagName = built.tagName;
    victimIdempotencyKeys = built.idempotencyKeys;
    secrets.push(...built.secrets);
    // The attacker owns objects of every kind too: the matrix mixes its ids with the victim's.
    attacker = (
      await populate('Attacker', 'attacker', { slug: 'hubspot', area: '646', period: ['2025-06-01', '2025-06-30'] })
    ).tenant;
    V = refsOf(victim);
    A = refsOf(attacker);
    expect(victim.ids.version).toHaveLength(2);
    expect(victim.ids.run).toHaveLength(3);
    expect(victim.ids.webhookDelivery.length).toBeGreaterThan(0);
    for (const ids of Object.values(victim.ids)) {
      for (const id of ids) {
        const match = /^([a-z]+)_([0-9a-z]+)$/.exec(id);
        if (!match) throw new Error(`unexpected id shape ${id}`);
        ghosts.set(
          id,
          match[1] === 'evl'
            ? `evl_${2_000_000_000 + ghosts.size}`
            : `${match[1]}_${randomBytes(match[2]!.length).toString('hex').slice(0, match[2]!.length)}`,
        );
      }
    }
    // A catalog slug nobody connected stands in for the victim's.
    ghosts.set(victim.slug, 'telnyx');
    leakTokens = [
      ...new Set(
        [...ghosts.keys()].filter((token) => token !== victim.slug).concat(MARK, ...secrets, ...victimNumbers),
      ),
    ];
    before = await victimRows();
    expect(Object.values(before).flat().length).toBeGreaterThan(30);
  });
  afterAll(() => server?.close());
  // Each test reports its own findings.
  beforeEach(() => {
    leaks.length = 0;
    failures.length = 0;
  });

  const allVictimIds = () => [...ghosts.keys()].filter((id) => id !== victim.slug);

  /** `value` with the reference member `name` set to the victim's ids of its kind (all of them where it is a list). */
  const withVictimReference = <T>(value: T, name: string): T =>
    replaceReferences(value, (member, current) => {
      if (member !== name) return current;
      const ids = victim.ids[referenceKind(member)!];
      return Array.isArray(current) ? ids : ids[0];
    }) as T;

  const expectClean = () => {
    expect(leaks).toEqual([]);
    expect(failures).toEqual([]);
  };

  // -- the REST matrix -----------------------------------------------------------------

  it('every REST route, both prefixes: victim ids in paths, bodies and queries get 404 (or a 400 naming the reference)', async () => {
    expect(routes.length).toBeGreaterThan(20);
    const covered = new Set<string>();
    for (const route of routes) {
      const key = `${route.method} ${route.path}`;
      const params = paramsOf(route);
      for (const param of params) paramKind(route, param);
      const references = [...referenceMembers(route.body), ...referenceMembers(route.query)];
      // Every reference member the route declares is filled by the templates.
      const filled = keysOf({ ...(REST_QUERIES[key]?.(V) ?? {}), ...(route.body ? REST_BODIES[key]?.(V) : {}) });
      for (const reference of references) {
        if (!filled.includes(reference))
          throw new Error(`${key}: the template does not fill the reference member ${reference}`);
      }
      for (const prefix of REST_PREFIXES) {
        const label = (scenario: string) => `${key} under ${prefix} (${scenario})`;

        // 1. The attacker's own path, the victim's ids everywhere.
        {
          const request = restRequest(route, prefix, attacker.organizationId, V, V);
          const involved = mentionsVictim(JSON.stringify(request));
          const response = involved
            ? await sendWithGhost(request, label('victim ids'))
            : await send(attacker.apiKey, request, label('no ids'));
          if (params.length > 0) {
            if (response.status !== 404)
              fail(`${label('victim ids')}: expected 404, got ${response.status} ${JSON.stringify(response.body)}`);
          } else if (involved) {
            checkReferenceRefusal(route, references, response, label('victim ids'));
          } else if (response.status >= 300) {
            fail(`${label('no ids')}: expected a success, got ${response.status} ${JSON.stringify(response.body)}`);
          }
        }
        // 2. The attacker's own objects in the path, the victim's in reference members.
        if (params.length > 0 && references.length > 0) {
          const response = await sendWithGhost(
            restRequest(route, prefix, attacker.organizationId, A, V),
            label('own path, victim references'),
          );
          checkReferenceRefusal(route, references, response, label('own path, victim references'));
        }
        // 2b. One reference member at a time holds the victim's ids; everything else is the attacker's own.
        for (const reference of references) {
          const request = restRequest(route, prefix, attacker.organizationId, A, A);
          request.body = withVictimReference(request.body, reference);
          request.query = withVictimReference(request.query, reference);
          const response = await sendWithGhost(request, label(`victim ${reference} only`));
          checkReferenceRefusal(route, [reference], response, label(`victim ${reference} only`));
        }
        // 3. The victim's objects in the path, the attacker's in reference members.
        if (params.length > 0 && references.length > 0) {
          const response = await sendWithGhost(
            restRequest(route, prefix, attacker.organizationId, V, A),
            label('victim path, own references'),
          );
          if (response.status !== 404)
            fail(`${label('victim path, own references')}: expected 404, got ${response.status}`);
        }
        // 4-5. The victim's organization in the path: 404 whatever the ids.
        for (const [scenario, refs] of [
          ['victim org, victim ids', V],
          ['victim org, own ids', A],
        ] as const) {
          const response = await sendWithGhost(
            restRequest(route, prefix, victim.organizationId, refs, refs),
            label(scenario),
          );
          if (response.status !== 404)
            fail(`${label(scenario)}: expected 404, got ${response.status} ${JSON.stringify(response.body)}`);
        }
      }
      covered.add(key);
    }
    expect([...covered].sort()).toEqual(routes.map((route) => `${route.method} ${route.path}`).sort());
    expectClean();
  });

  /** A request whose only victim ids are in reference members: refused (404, or 400 naming one), or a read that shows nothing. */
  function checkReferenceRefusal(route: Route, references: string[], response: RestResponse, label: string) {
    if (response.status === 404) return;
    if (response.status === 400) {
      const paths: string[] = (Array.isArray(response.body?.error) ? response.body.error : []).map(
        (problem: { path?: string }) => String(problem.path ?? ''),
      );
      // A reference may be nested (`evaluations.0.evaluation_id`): the path names it by its last name.
      if (!paths.some((path) => path.split('.').some((name) => references.includes(name))))
        fail(`${label}: a 400 that names no reference member: ${JSON.stringify(response.body)}`);
      return;
    }
    if (response.status < 300 && route.method === 'GET') return; // a filter that matches nothing (compared with the ghost answer)
    fail(
      `${label}: expected 404 or a 400 naming the reference, got ${response.status} ${JSON.stringify(response.body)}`,
    );
  }

  it('every REST route with path parameters, both prefixes: each victim id of any kind in every parameter is a 404', async () => {
    for (const route of routes.filter((candidate) => paramsOf(candidate).length > 0)) {
      for (const prefix of REST_PREFIXES) {
        for (const id of allVictimIds()) {
          const request = restRequest(route, prefix, attacker.organizationId, A, A);
          request.path =
            prefix.replace(':org_id', attacker.organizationId) +
            route.path.replace(/:(\w+)/g, () => encodeURIComponent(id));
          const response = await send(
            attacker.apiKey,
            request,
            `${route.method} ${route.path} under ${prefix} with ${id}`,
          );
          if (response.status !== 404 || !isErrorBody(response)) {
            fail(
              `${route.method} ${request.path}: expected a 404 error body, got ${response.status} ${JSON.stringify(response.body)}`,
            );
          }
        }
      }
    }
    expectClean();
  });

  it('every REST route with reference members, both prefixes: each victim id of any kind in them is refused like an unknown id', async () => {
    for (const route of routes) {
      const references = [...referenceMembers(route.body), ...referenceMembers(route.query)];
      if (references.length === 0) continue;
      for (const prefix of REST_PREFIXES) {
        for (const id of allVictimIds()) {
          const request = restRequest(route, prefix, attacker.organizationId, A, A);
          request.body = replaceReferences(request.body, sameShape(id));
          request.query = replaceReferences(request.query, sameShape(id)) as Record<string, string> | undefined;
          const label = `${route.method} ${route.path} under ${prefix} with ${id} in ${references.join(', ')}`;
          checkReferenceRefusal(route, references, await sendWithGhost(request, label), label);
        }
      }
    }
    expectClean();
  });

  it("REST reads with the attacker's own ids work (the matrix is not vacuous)", async () => {
    for (const route of routes.filter((candidate) => candidate.method === 'GET')) {
      for (const prefix of REST_PREFIXES) {
        const response = await send(
          attacker.apiKey,
          restRequest(route, prefix, attacker.organizationId, A, A),
          `${route.path} own`,
        );
        if (response.status !== 200)
          fail(
            `GET ${route.path} under ${prefix} with the attacker's own ids: ${response.status} ${JSON.stringify(response.body)}`,
          );
      }
    }
    expectClean();
  });

  // -- GraphQL ---------------------------------------------------------------------------

  const covered = { query: new Set<string>(), mutation: new Set<string>(), subscription: new Set<string>() };

  it('every query root field: victim ids read as null / empty, like ids that never existed', async () => {
    const fields = schema.getQueryType()!.getFields();
    for (const field of Object.values(fields)) {
      const idArgs = field.args.filter((arg) => isIdArgument(arg.name, arg.type));
      const required = field.args.filter(
        (arg) => isNonNullType(arg.type) && arg.defaultValue === undefined && !idArgs.includes(arg),
      );
      if (required.length > 0)
        throw new Error(`Query.${field.name} requires ${required.map((arg) => arg.name)}: teach the matrix a value`);
      const filters = field.args.filter((arg) => !idArgs.includes(arg) && inputReferences(arg.type).length > 0);
      const label = (what: string) => `Query.${field.name} ${what}`;

      if (idArgs.length === 0) {
        const query = operation('query', field, {});
        const { status, body } = await graphql(attacker.apiKey, query, {}, label('(no ids)'));
        if (status !== 200 || body.errors) fail(`${label('(no ids)')}: ${status} ${JSON.stringify(body.errors)}`);
      } else {
        // Each victim id of any kind in every id argument, then in each optional one alone.
        const alone = idArgs.length > 1 ? idArgs.filter((arg) => !isNonNullType(arg.type)) : [];
        const victimTries = allVictimIds()
          .concat(victim.slug)
          .flatMap((id) => [
            Object.fromEntries(idArgs.map((arg) => [arg.name, isListArgument(arg.type) ? [id] : id])),
            ...alone.map((arg) => ({ [arg.name]: isListArgument(arg.type) ? [id] : id })),
          ]);
        for (const variables of victimTries) {
          const id = Object.values(variables)[0];
          const { body } = await graphqlWithGhost(operation('query', field, variables), variables, label(`with ${id}`));
          if (!isEmptyValue(body.data?.[field.name] ?? null))
            fail(`${label(`with ${id}`)}: shows ${JSON.stringify(body.data[field.name])}`);
          for (const code of codesOf(body))
            if (code !== 'BAD_INPUT' && code !== 'NOT_FOUND') fail(`${label(`with ${id}`)}: error code ${code}`);
        }
        // Every victim id at once (nodes(ids)).
        const lists = idArgs.filter((arg) => isListArgument(arg.type));
        if (lists.length > 0) {
          const variables = Object.fromEntries(
            idArgs.map((arg) => [arg.name, lists.includes(arg) ? allVictimIds() : V.agent]),
          );
          const { body } = await graphqlWithGhost(
            operation('query', field, variables),
            variables,
            label('with every victim id'),
          );
          if (!isEmptyValue(body.data?.[field.name] ?? null))
            fail(`${label('with every victim id')}: shows ${JSON.stringify(body.data[field.name])}`);
        }
        // Positive control: some id of the attacker's own shows something.
        const ownIds = Object.values(attacker.ids).flat().concat(attacker.slug);
        let shown = false;
        // Each id in every id argument, then (an argument that may be left out, `callRecords(agentId:, batchId:)`) in one alone.
        const optional = idArgs.length > 1 ? idArgs.filter((arg) => !isNonNullType(arg.type)) : [];
        const tries = ownIds.flatMap((id) => [
          Object.fromEntries(idArgs.map((arg) => [arg.name, lists.includes(arg) ? [id] : id])),
          ...optional.map((arg) => ({ [arg.name]: lists.includes(arg) ? [id] : id })),
        ]);
        for (const variables of tries) {
          const id = Object.values(variables)[0];
          const { body } = await graphql(
            attacker.apiKey,
            operation('query', field, variables),
            variables,
            label(`own ${id}`),
          );
          if (!isEmptyValue(body.data?.[field.name] ?? null)) {
            shown = true;
            break;
          }
        }
        if (!shown) fail(`${label('')}: no id of the attacker's own shows anything; the matrix would be vacuous`);
      }
      // Filters naming the victim's objects, on the attacker's own parent: nothing matches.
      // (each reference alone, then all of them), on the attacker's own parent: nothing matches.
      for (const filter of filters) {
        const base = Object.fromEntries(idArgs.map((arg) => [arg.name, A[paramKindOfArgument(arg.name)]]));
        const names = inputReferences(filter.type);
        for (const chosen of [...names.map((name) => [name]), names]) {
          const value = Object.fromEntries(chosen.map((name) => [name, V[referenceKind(name)! as keyof Refs]]));
          const variables = { ...base, [filter.name]: value };
          const what = `filtered by the victim's ${chosen.join(', ')}`;
          const { body } = await graphqlWithGhost(operation('query', field, variables), variables, label(what));
          if (body.errors || !isEmptyValue(body.data?.[field.name] ?? null))
            fail(`${label(what)}: ${JSON.stringify(body)}`);
        }
      }
      covered.query.add(field.name);
    }
    expect([...covered.query].sort()).toEqual(Object.keys(fields).sort());
    expectClean();
  });

  /** The kind a query's id argument names, for the filter scenario (`runs(workflowId)`). */
  function paramKindOfArgument(name: string): Kind {
    const kind = referenceKind(name);
    if (!kind) throw new Error(`cannot tell what the argument ${name} names`);
    return kind;
  }

  it('every mutation: victim ids are NOT_FOUND (or BAD_INPUT naming the reference), like ids that never existed', async () => {
    const fields = schema.getMutationType()!.getFields();
    for (const field of Object.values(fields)) {
      const template = MUTATION_VARIABLES[field.name];
      if (!template)
        throw new Error(
          `Mutation.${field.name} is not in the tenancy matrix: add valid variables to MUTATION_VARIABLES`,
        );
      const idArgs = field.args.filter((arg) => isIdArgument(arg.name, arg.type)).map((arg) => arg.name);
      const references = field.args.flatMap((arg) => inputReferences(arg.type));
      // The template fills every reference the schema declares.
      const filled = keysOf(template(V));
      for (const name of [...idArgs, ...references]) {
        if (!filled.includes(name)) throw new Error(`Mutation.${field.name}: MUTATION_VARIABLES does not fill ${name}`);
      }
      const label = (what: string) => `Mutation.${field.name} ${what}`;
      type Answer = {
        data?: Record<string, unknown> | null;
        errors?: { extensions?: { code?: string; detail?: unknown } }[];
      };
      const expectRefused = (body: Answer, codes: string[], what: string) => {
        const [code] = codesOf(body);
        if (!code || !codes.includes(code))
          fail(`${label(what)}: expected ${codes.join(' or ')}, got ${JSON.stringify(body)}`);
        if (code === 'BAD_INPUT') {
          const detail = body.errors?.[0]?.extensions?.detail;
          const paths = (Array.isArray(detail) ? detail : []).map((problem: { path?: string }) =>
            snake(
              String(problem.path ?? '')
                .split('.')
                .at(-1) ?? '',
            ),
          );
          if (!paths.some((path) => references.map(snake).includes(path)))
            fail(`${label(what)}: a BAD_INPUT that names no reference: ${JSON.stringify(body)}`);
        }
        if (body.data && body.data[field.name] !== null && body.data[field.name] !== undefined)
          fail(`${label(what)}: returned ${JSON.stringify(body.data)}`);
      };

      if (idArgs.length === 0 && references.length === 0) {
        const variables = template(A);
        const { body } = await graphql(
          attacker.apiKey,
          operation('mutation', field, variables),
          variables,
          label('(no ids)'),
        );
        if (body.errors) fail(`${label('(no ids)')}: ${JSON.stringify(body.errors)}`);
      } else {
        // Each victim id of any kind in every id argument and reference member, on top of valid variables.
        const base = template(A);
        for (const id of allVictimIds()) {
          const variables = replaceReferences(base, sameShape(id), idArgs) as Record<string, unknown>;
          const { body } = await graphqlWithGhost(
            operation('mutation', field, variables),
            variables,
            label(`with ${id}`),
          );
          expectRefused(body, idArgs.length > 0 ? ['NOT_FOUND'] : ['NOT_FOUND', 'BAD_INPUT'], `with ${id}`);
        }
        // The victim's ids where they belong.
        {
          const variables = template(V);
          const { body } = await graphqlWithGhost(
            operation('mutation', field, variables),
            variables,
            label('with the victim ids'),
          );
          expectRefused(body, idArgs.length > 0 ? ['NOT_FOUND'] : ['NOT_FOUND', 'BAD_INPUT'], 'with the victim ids');
        }
        // One reference member at a time holds the victim's ids; everything else is the attacker's own.
        for (const reference of references) {
          const variables = withVictimReference(template(A), reference);
          const { body } = await graphqlWithGhost(
            operation('mutation', field, variables),
            variables,
            label(`victim ${reference} only`),
          );
          expectRefused(body, ['NOT_FOUND', 'BAD_INPUT'], `victim ${reference} only`);
        }
        if (idArgs.length > 0 && references.length > 0) {
          // The attacker's own object, the victim's in the input's references.
          const own = template(A);
          const variables = { ...template(V), ...Object.fromEntries(idArgs.map((name) => [name, own[name]])) };
          const { body } = await graphqlWithGhost(
            operation('mutation', field, variables),
            variables,
            label('own object, victim references'),
          );
          expectRefused(body, ['NOT_FOUND', 'BAD_INPUT'], 'own object, victim references');
          // The victim's object, the attacker's own references.
          const mixed = { ...own, ...Object.fromEntries(idArgs.map((name) => [name, template(V)[name]])) };
          const second = await graphqlWithGhost(
            operation('mutation', field, mixed),
            mixed,
            label('victim object, own references'),
          );
          expectRefused(second.body, ['NOT_FOUND'], 'victim object, own references');
        }
      }
      covered.mutation.add(field.name);
    }
    expect([...covered.mutation].sort()).toEqual(Object.keys(fields).sort());
    expectClean();
  });

  it('every subscription: victim ids are NOT_FOUND, no event is delivered', async () => {
    const fields = schema.getSubscriptionType()?.getFields() ?? {};
    const client = createClient({
      url: `${server.url.replace('http', 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { 'x-api-key': attacker.apiKey },
      retryAttempts: 0,
      lazy: true,
    });
    try {
      for (const field of Object.values(fields)) {
        const idArgs = field.args.filter((arg) => isIdArgument(arg.name, arg.type));
        if (idArgs.length === 0)
          throw new Error(`Subscription.${field.name} takes no id: teach the matrix what to try`);
        for (const id of allVictimIds()) {
          const variables = Object.fromEntries(idArgs.map((arg) => [arg.name, id]));
          const query = operation('subscription', field, variables);
          const outcome = await new Promise<{ data: unknown[]; errors: unknown[] }>((resolve) => {
            const data: unknown[] = [];
            const errors: unknown[] = [];
            // The refusal ends the subscription; the timer only bounds a server that never refuses.
            const timer = setTimeout(() => {
              stop();
              resolve({ data, errors });
            }, 20_000);
            const stop = client.subscribe(
              { query, variables },
              {
                next: (message) => {
                  if (message.data) data.push(message.data);
                  if (message.errors) errors.push(...message.errors);
                },
                error: (error) => {
                  errors.push(...(Array.isArray(error) ? error : [error]));
                  clearTimeout(timer);
                  resolve({ data, errors });
                },
                complete: () => {
                  clearTimeout(timer);
                  resolve({ data, errors });
                },
              },
            );
          });
          const text = JSON.stringify(outcome);
          record(`Subscription.${field.name} with ${id}`, JSON.stringify({ query, variables }), text);
          if (outcome.data.some((data) => !isEmptyValue((data as Record<string, unknown>)[field.name] ?? null))) {
            fail(`Subscription.${field.name} with ${id}: delivered ${text}`);
          }
          const codes = (outcome.errors as { extensions?: { code?: string } }[]).map(
            (error) => error?.extensions?.code,
          );
          if (!codes.includes('NOT_FOUND'))
            fail(`Subscription.${field.name} with ${id}: expected NOT_FOUND, got ${text}`);
        }
        covered.subscription.add(field.name);
      }
    } finally {
      await client.dispose();
    }
    expect([...covered.subscription].sort()).toEqual(Object.keys(fields).sort());
    expectClean();
  });

  // -- uniqueness must not reveal the other organization -------------------------------------

  it("every create route: the victim's Idempotency-Keys are free for the attacker (no replay of the victim's answer, no 409)", async () => {
    const creates = routes.filter((route) => route.status === 201);
    expect(creates.length).toBeGreaterThan(5);
    for (const route of creates) {
      const key = victimIdempotencyKeys.get(`${route.method} ${route.path}`);
      if (!key)
        throw new Error(
          `${route.method} ${route.path}: the victim's set-up creates nothing through it; add it to populate()`,
        );
      const label = `${route.method} ${route.path} with the victim's Idempotency-Key`;
      const response = await send(
        attacker.apiKey,
        restRequest(route, REST_PREFIXES[0]!, attacker.organizationId, A, A),
        label,
        { 'idempotency-key': key },
      );
      if (response.status !== 201 || response.headers.get('idempotent-replayed') !== null) {
        fail(
          `${label}: expected a fresh 201, got ${response.status} (replayed: ${response.headers.get('idempotent-replayed')}) ${JSON.stringify(response.body)}`,
        );
      }
    }
    expectClean();
  });

  it("the victim's unique values are free for the attacker: a tag name, phone numbers, a do-not-call number, an integration, an insight period", async () => {
    const rest = restClient(server, attacker.organizationId, attacker.apiKey);
    const call = async (method: string, path: string, body: unknown) => {
      const response = await rest(method, `/org/{org}${path}`, { body });
      record(`${method} ${path}`, JSON.stringify(body), JSON.stringify(response.body ?? null));
      return response;
    };
    const tag = await call('POST', '/tags', { name: victimTagName });
    expect(tag.status, JSON.stringify(tag.body)).toBe(201);
    expect(tag.body.id).not.toBe(V.tag);
    const trunk = await call('POST', '/sip-trunks', {
      name: 'Same numbers',
      address: 'sip.attacker.example',
      provider: 'other',
      phone_numbers: [victimNumbers[0]],
    });
    expect(trunk.status, JSON.stringify(trunk.body)).toBe(201);
    const number = await call('POST', '/phone-numbers', { number: victimNumbers[1], sip_trunk_id: A.trunk });
    expect(number.status, JSON.stringify(number.body)).toBe(201);
    const bulk = await call('POST', '/phone-numbers/bulk', {
      sip_trunk_id: A.trunk,
      numbers: [{ number: victimNumbers[2] }],
    });
    expect(bulk.status, JSON.stringify(bulk.body)).toBe(201);
    const listed = await call('POST', '/do-not-call', { numbers: [V.listedNumber], reason: 'attacker' });
    expect(listed.body).toEqual({ count: 1 });
    const connected = await call('POST', '/integrations', {
      slug: victim.slug,
      credentials: { bot_token: 'attacker-bot' },
      settings: { channel: '#a' },
    });
    expect(connected.status, JSON.stringify(connected.body)).toBe(201);
    expect(connected.body.id).not.toBe(V.connection);
    const bySlug = await rest('GET', `/org/{org}/integrations/slug/${victim.slug}`);
    expect(bySlug.body.id).toBe(connected.body.id);
    const insight = await graphql(
      attacker.apiKey,
      `mutation($s: Date!, $e: Date!) { generateInsight(periodStart: $s, periodEnd: $e) { id } }`,
      { s: VICTIM_PERIOD[0], e: VICTIM_PERIOD[1] },
      'generateInsight on the victim period',
    );
    expect(insight.body.errors).toBeUndefined();
    expect(insight.body.data.generateInsight.id).not.toBe(V.insight);
    expectClean();
  });

  // -- nothing changed, nothing leaked --------------------------------------------------------

  it("after the whole matrix every row of the victim organization is as it was, and no response carried the victim's data", async () => {
    const after = await victimRows();
    for (const table of new Set([...Object.keys(before), ...Object.keys(after)])) {
      expect(after[table], `table ${table}`).toEqual(before[table]);
    }
    expect(leaks).toEqual([]);
    expect(requests).toBeGreaterThan(1000);
    // The victim's key still works and sees all of it.
    const { body } = await server.graphql(
      victim.apiKey,
      `{ agent(id: "${V.agent}") { name evaluations { totalCount } tools { id } } }`,
    );
    expect(body.data.agent).toMatchObject({
      name: `${MARK} agent`,
      evaluations: { totalCount: 1 },
      tools: [{ id: V.tool }],
    });
  });

  // -- scopes: every operation x every scope ------------------------------------------------

  /** Values for a field's required arguments that GraphQL accepts (ids that need not exist). */
  function requiredVariables(field: GraphQLField<unknown, unknown>, refs: Refs): Record<string, unknown> {
    const argumentValue = (name: string, type: GraphQLInputType): unknown => {
      const inner = isNonNullType(type) ? type.ofType : type;
      if (isListType(inner)) return [argumentValue(name, inner.ofType)];
      const named = getNamedType(inner);
      if (isInputObjectType(named))
        return Object.fromEntries(
          Object.values(named.getFields())
            .filter((member) => isNonNullType(member.type) && member.defaultValue === undefined)
            .map((member) => [member.name, argumentValue(member.name, member.type)]),
        );
      if (isEnumType(named)) return named.getValues()[0]!.name;
      if (named.name === 'Int' || named.name === 'Float') return 1;
      if (named.name === 'Boolean') return true;
      if (named.name === 'Date') return '2026-01-01';
      if (named.name === 'DateTime') return '2026-01-01T00:00:00.000Z';
      const kind = name === 'slug' ? 'slug' : name === 'number' ? 'listedNumber' : referenceKind(name);
      return kind ? refs[kind as keyof Refs] : 'agt_00000000000000000000000000000000';
    };
    return Object.fromEntries(
      field.args
        .filter((arg) => isNonNullType(arg.type) && arg.defaultValue === undefined)
        .map((arg) => [arg.name, argumentValue(arg.name, arg.type)]),
    );
  }

  it('every REST route and every query and mutation, with a key of each scope: refused with a 403 / FORBIDDEN naming the scope exactly when the table says, and nothing written when refused', async () => {
    // One organization's own keys and objects: nothing here is the victim's (the attacker took some of its
    // numbers above, legitimately), so answers are not searched for its data.
    leakTokens = [];
    const rest = restClient(server, attacker.organizationId, attacker.apiKey);
    const keys = new Map<string, string>();
    for (const scope of KEY_SCOPES) {
      const issued = await rest('POST', '/org/{org}/api-keys', { body: { name: `only ${scope}`, scopes: [scope] } });
      expect(issued.status, JSON.stringify(issued.body)).toBe(201);
      expect(issued.body.scopes).toEqual([scope]);
      keys.set(scope, issued.body.api_key);
    }
    // Rotating and revoking name the attacker's keys:admin key: a keys:admin key holds all it has.
    const refs: Refs = { ...A, apiKey: attacker.ids.apiKey[1]! };
    const graphqlFields = [
      ...Object.values(schema.getQueryType()!.getFields()).map((field) => ({ keyword: 'query' as const, field })),
      ...Object.values(schema.getMutationType()!.getFields()).map((field) => ({ keyword: 'mutation' as const, field })),
    ];
    const withoutLastUse = (rows: Record<string, string[]>) =>
      JSON.stringify(rows).replace(/\\"lastUsedAt\\":(null|\\"[^\\"]*\\")/g, '');
    const refusals = { rest: 0, graphql: 0 };
    const allowed: (() => Promise<void>)[] = [];
    const before = withoutLastUse(await rowsOf(attacker.organizationId));
    for (const scope of KEY_SCOPES) {
      const key = keys.get(scope)!;
      for (const route of routes) {
        const needs = routeNeeds(schema, route);
        expect(needs.length, `${route.method} ${route.path} needs no scope`).toBeGreaterThan(0);
        const label = `${route.method} ${route.path} with ${scope}`;
        const request = () =>
          send(key, restRequest(route, REST_PREFIXES[0]!, attacker.organizationId, refs, refs), label);
        if (allowedWith([scope], needs)) {
          allowed.push(async () => {
            const response = await request();
            if (response.status === 403) fail(`${label}: refused ${JSON.stringify(response.body)}`);
          });
          continue;
        }
        const response = await request();
        refusals.rest++;
        const missing = needs.find((set) => !allowedWith([scope], [set]))!;
        if (response.status !== 403 || !isErrorBody(response) || !missing.includes(response.body.error?.scope))
          fail(
            `${label}: expected a 403 naming ${missing.join(' or ')}, got ${response.status} ${JSON.stringify(response.body)}`,
          );
      }
      for (const { keyword, field } of graphqlFields) {
        const variables =
          keyword === 'mutation' ? MUTATION_VARIABLES[field.name]!(refs) : requiredVariables(field, refs);
        const text = operation(keyword, field, variables);
        const needs = operationNeeds(schema, text);
        const label = `${keyword === 'query' ? 'Query' : 'Mutation'}.${field.name} with ${scope}`;
        const ask = () => graphql(key, text, variables, label);
        const refusal = (body: { errors?: { extensions?: { code?: string; scope?: string } }[] }) =>
          body.errors?.find((error) => error.extensions?.code === 'FORBIDDEN');
        if (allowedWith([scope], needs)) {
          allowed.push(async () => {
            const { body } = await ask();
            if (refusal(body)) fail(`${label}: refused ${JSON.stringify(body.errors)}`);
          });
          continue;
        }
        const { body } = await ask();
        refusals.graphql++;
        const missing = needs.find((set) => !allowedWith([scope], [set]))!;
        const refused = refusal(body);
        if (!refused || !missing.includes(refused.extensions?.scope ?? ''))
          fail(`${label}: expected FORBIDDEN naming ${missing.join(' or ')}, got ${JSON.stringify(body)}`);
        if (keyword === 'mutation' && body.data?.[field.name]) fail(`${label}: returned ${JSON.stringify(body.data)}`);
      }
    }
    // Every refusal above wrote nothing (the keys' last use aside, which any request may refresh).
    expect(withoutLastUse(await rowsOf(attacker.organizationId))).toBe(before);
    for (const ask of allowed) await ask();
    expect(refusals.rest).toBeGreaterThan(routes.length * (KEY_SCOPES.length - 3));
    expect(refusals.graphql).toBeGreaterThan(graphqlFields.length * (KEY_SCOPES.length - 3));
    expectClean();
  });
});
