// GET /openapi.json: a valid OpenAPI 3.1 document of every REST route, under
// both prefixes, generated from the same validation schemas as the routes.
import SwaggerParser from '@apidevtools/swagger-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes } from '../src/rest/routes/index.ts';
import { agentConfigMembers } from './support/agent-configs.ts';
import { startTestServer, type TestServer } from './support/server.ts';

type Schema = Record<string, any>;

const PREFIXES = ['/org/{org_id}', '/api/org/{org_id}'];

/** SPEC.md's endpoints: method and path below `/org/{org_id}`. */
const SPEC_ENDPOINTS: Record<string, [string, string]> = {
  E1: ['patch', '/agents/{agent_id}'],
  E2: ['get', '/agents/{agent_id}'],
  E3: ['delete', '/agents/{agent_id}'],
  E4: ['post', '/workflows/{workflow_id}/batches'],
  E5: ['patch', '/workflows/{workflow_id}'],
  E6: ['get', '/workflows/{workflow_id}/runs'],
  E7: ['get', '/workflows/{workflow_id}/batches'],
  E8: ['get', '/workflows/{workflow_id}/versions'],
  E9: ['patch', '/batches/{batch_id}'],
  E10: ['post', '/integrations'],
  E11: ['get', '/integrations'],
  E12: ['get', '/integrations/connected'],
  E13: ['get', '/integrations/slug/{slug}'],
  E14: ['get', '/integrations/{id}'],
  E15: ['post', '/sip-trunks'],
  E16: ['post', '/phone-numbers'],
  E17: ['post', '/phone-numbers/bulk'],
  E18: ['post', '/agents/evals'],
  E19: ['get', '/agents/evals'],
  E20: ['get', '/analytics/insights'],
  E21: ['post', '/prospects/{prospect_id}/tags'],
};

/** DECISIONS.md: 201 for creates (E4, E10, E15-E18 and the create extensions), 200 otherwise (E21 included). */
const CREATES = new Set(['E4', 'E10', 'E15', 'E16', 'E17', 'E18']);
/** POSTs that act on what exists instead of creating: 200. */
const ACTIONS = new Set([
  '/prospects/:prospect_id/tags',
  '/prospects/:prospect_id/consents/revoke',
  '/batches/:batch_id/retry-failed',
  '/signing-secret/rotate',
  '/runs/:run_id/attempts/:attempt/outcome',
  '/runs/:run_id/attempts/:attempt/record',
  '/runs/:run_id/attempts/:attempt/transfer',
  '/webhook-endpoints/:id/rotate-secret',
  '/webhook-deliveries/:id/replay',
  '/api-keys/:id/rotate',
  '/phone-numbers/:id/rest',
  '/phone-numbers/:id/restore',
]);
const expectedSuccess = (endpoint: string | null, method: string, path: string) =>
  endpoint ? (CREATES.has(endpoint) ? '201' : '200') : method === 'POST' && !ACTIONS.has(path) ? '201' : '200';

/** Routes that answer 409 for a state of their own (besides a create's Idempotency-Key conflicts). */
const CONFLICTS = new Set([
  'POST /workflows/:workflow_id/batches',
  'PATCH /batches/:batch_id',
  'POST /batches/:batch_id/retry-failed',
  'POST /runs/:run_id/attempts/:attempt/outcome',
  'POST /runs/:run_id/attempts/:attempt/transfer',
  'POST /sip-trunks',
  'POST /phone-numbers',
  'POST /phone-numbers/bulk',
  'POST /tags',
  'POST /webhook-deliveries/:id/replay',
]);
/** Routes that call LiveKit (DIALER=livekit): 502 when it refuses. */
const LIVEKIT = new Set([
  'POST /sip-trunks',
  'POST /phone-numbers',
  'POST /phone-numbers/bulk',
  'POST /runs/:run_id/attempts/:attempt/transfer',
]);

/**
 * The error statuses a route can answer, in order: every route 400 (a path
 * parameter, the query or the body), 401, 403 (a key without its scope), 404 (its organization, its objects),
 * 429 and 503; a method that takes a body 413 and 415; 409 on a create (its
 * Idempotency-Key) and where its state conflicts; 502 where LiveKit is called.
 */
const expectedErrors = (method: string, path: string, success: string) => {
  const key = `${method} ${path}`;
  return [
    '400',
    '401',
    '403',
    '404',
    ...(success === '201' || CONFLICTS.has(key) ? ['409'] : []),
    ...(method === 'GET' ? [] : ['413', '415']),
    '429',
    ...(LIVEKIT.has(key) ? ['502'] : []),
    '503',
  ];
};

/** Each id path parameter's type, by the prefix of its ids. */
const ID_PREFIXES: Record<string, string> = {
  org_id: 'org',
  agent_id: 'agt',
  workflow_id: 'wf',
  batch_id: 'bat',
  run_id: 'run',
  prospect_id: 'prs',
  '/integrations/:id': 'oint',
  '/webhook-endpoints/:id': 'whe',
  '/webhook-deliveries/:id': 'dlv',
  '/api-keys/:id': 'key',
  '/phone-numbers/:id': 'num',
};
const hex = 'a1b2c3d4e5f60718293a4b5c6d7e8f90';

/** DECISIONS.md's query parameter names. */
const QUERY_PARAMETERS: Record<string, string[]> = {
  E6: [
    'page',
    'limit',
    'status',
    'prospect_id',
    'batch_id',
    'workflow_version_id',
    'started_after',
    'started_before',
    'sort',
  ],
  E7: ['page', 'limit'],
  E8: ['page', 'size'],
  E19: ['agent_id', 'page', 'size'],
  E20: ['period_start', 'period_end', 'limit', 'offset'],
};

const openApiPath = (prefix: string, path: string) => `${prefix}${path}`.replace(/:(\w+)/g, '{$1}');

describe('GET /openapi.json', () => {
  let server: TestServer;
  let doc: Schema;
  let headers: Headers;

  /** Follows `#/components/schemas/...` references. */
  const resolve = (schema: Schema): Schema => {
    if (typeof schema?.$ref !== 'string') return schema;
    const match = /^#\/components\/schemas\/(.+)$/.exec(schema.$ref);
    expect(match, schema.$ref).not.toBeNull();
    const target = doc.components.schemas[match![1]!];
    expect(target, schema.$ref).toBeDefined();
    return resolve(target);
  };
  const operation = (method: string, path: string, prefix = PREFIXES[0]!) => {
    const found = doc.paths[`${prefix}${path}`]?.[method];
    expect(found, `${method} ${prefix}${path}`).toBeDefined();
    return found as Schema;
  };
  const requestSchema = (method: string, path: string) =>
    resolve(operation(method, path).requestBody.content['application/json'].schema);
  /** The member's schema, references followed; a nullable member (`anyOf [X, null]`) reads as X. */
  const property = (schema: Schema, name: string) => {
    const resolved = resolve(schema);
    expect(resolved.properties, `properties of ${JSON.stringify(schema).slice(0, 80)}`).toHaveProperty(name);
    const member = resolve(resolved.properties[name]);
    if (!Array.isArray(member.anyOf)) return member;
    const [other, ...more] = member.anyOf.filter((alternative: Schema) => alternative.type !== 'null');
    expect(more, `alternatives of ${name}`).toEqual([]);
    return resolve(other);
  };

  beforeAll(async () => {
    server = await startTestServer();
    // No key needed.
    const response = await fetch(`${server.url}/openapi.json`);
    expect(response.status).toBe(200);
    headers = response.headers;
    doc = await response.json();
  });
  afterAll(() => server.close());

  it('is served as JSON without a key, also with a bad one', async () => {
    expect(headers.get('content-type')).toMatch(/^application\/json/);
    const withBadKey = await fetch(`${server.url}/openapi.json`, { headers: { 'x-api-key': 'gwk_not_a_key' } });
    expect(withBadKey.status).toBe(200);
    expect(await withBadKey.json()).toEqual(doc);
  });

  it('is a valid OpenAPI 3.1 document', async () => {
    expect(doc.openapi).toMatch(/^3\.1\.\d+$/);
    expect(doc.info).toMatchObject({ title: expect.any(String), version: 'devel' });
    await expect(SwaggerParser.validate(structuredClone(doc) as never)).resolves.toBeDefined();
    // The API key scheme SPEC.md declares: a header named X-API-Key, required everywhere.
    expect(doc.components.securitySchemes).toEqual({ apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' } });
    expect(doc.security).toEqual([{ apiKey: [] }]);
  });

  it('has every route of the table under both prefixes, with its method, parameters and success code', () => {
    expect(routes.length).toBeGreaterThanOrEqual(33);
    const operationIds = new Set<string>();
    for (const route of routes) {
      const success = expectedSuccess(route.endpoint, route.method, route.path);
      expect(String(route.status ?? 200), `${route.method} ${route.path}`).toBe(success);
      for (const prefix of PREFIXES) {
        const path = openApiPath(prefix, route.path);
        const op = doc.paths[path]?.[route.method.toLowerCase()];
        expect(op, `${route.method} ${path}`).toBeDefined();
        expect(operationIds.has(op.operationId), op.operationId).toBe(false);
        operationIds.add(op.operationId);
        // The success code and no other 2xx.
        expect(Object.keys(op.responses).filter((code) => code.startsWith('2'))).toEqual([success]);
        expect(op.responses[success].content['application/json'].schema).toBeDefined();
        // The error codes of DECISIONS.md it can answer, and no other, each in SPEC.md's error body.
        const errors = expectedErrors(route.method, route.path, success);
        expect(
          Object.keys(op.responses).filter((code) => !code.startsWith('2')),
          `${route.method} ${path}`,
        ).toEqual(errors);
        for (const code of errors) {
          expect(op.responses[code]?.content['application/json'].schema, `${code} of ${route.method} ${path}`).toEqual({
            $ref: '#/components/schemas/ErrorBody',
          });
        }
        // Each path parameter declared, required, as a string.
        const pathParameters = [...path.matchAll(/\{(\w+)\}/g)].map(([, name]) => name);
        expect(op.parameters.filter((p: Schema) => p.in === 'path').map((p: Schema) => p.name)).toEqual(pathParameters);
        for (const parameter of op.parameters.filter((p: Schema) => p.in === 'path')) {
          expect(parameter).toMatchObject({ required: true, schema: { type: 'string' } });
        }
        expect(Boolean(op.requestBody), `request body of ${route.method} ${path}`).toBe(
          Boolean(route.body ?? route.upload),
        );
        if (route.endpoint) expect(op.summary).toMatch(new RegExp(`^${route.endpoint}\\. `));
        else expect(op.summary).not.toMatch(/^E\d+\./);
      }
    }
    // And nothing that is not a route.
    const documented = Object.entries(doc.paths).flatMap(([path, methods]) =>
      Object.keys(methods as object).map((m) => `${m} ${path}`),
    );
    const expected = routes.flatMap((route) =>
      PREFIXES.map((prefix) => `${route.method.toLowerCase()} ${openApiPath(prefix, route.path)}`),
    );
    expect(documented.sort()).toEqual(expected.sort());
  });

  it('has every SPEC.md endpoint E1-E21 at its method and path, named by its summary', () => {
    for (const [endpoint, [method, path]] of Object.entries(SPEC_ENDPOINTS)) {
      for (const prefix of PREFIXES) {
        expect(operation(method, path, prefix).summary, `${endpoint} under ${prefix}`).toMatch(
          new RegExp(`^${endpoint}\\. \\S`),
        );
      }
    }
    const summaries = Object.values(doc.paths).flatMap((methods) =>
      Object.values(methods as Record<string, Schema>).map((op) => op.summary),
    );
    for (let n = 1; n <= 21; n += 1) {
      expect(
        summaries.filter((summary) => summary.startsWith(`E${n}. `)),
        `E${n}`,
      ).toHaveLength(2);
    }
  });

  it('gives each path parameter the pattern of what it names: ids by their prefix, attempt numbers, E.164 numbers, slugs', () => {
    for (const route of routes) {
      for (const parameter of operation(route.method.toLowerCase(), openApiPath('', route.path)).parameters) {
        if (parameter.in !== 'path') continue;
        const where = `:${parameter.name} of ${route.method} ${route.path}`;
        expect(parameter.schema.pattern, where).toEqual(expect.any(String));
        const pattern = new RegExp(parameter.schema.pattern);
        const segment = route.path.split('/:')[0];
        const prefix = ID_PREFIXES[parameter.name] ?? ID_PREFIXES[`${segment}/:${parameter.name}`];
        if (prefix) {
          expect(pattern.test(`${prefix}_${hex}`), where).toBe(true);
          expect(pattern.test(`xyz_${hex}`), where).toBe(false);
          expect(pattern.test(`${prefix}_${hex}/..`), where).toBe(false);
        } else if (parameter.name === 'attempt') {
          expect(
            ['1', '2', '123456789'].every((text) => pattern.test(text)),
            where,
          ).toBe(true);
          expect(
            ['0', '-1', '01', '1.5', 'one', '1234567890'].some((text) => pattern.test(text)),
            where,
          ).toBe(false);
        } else if (parameter.name === 'number') {
          expect(pattern.test('+14155550100'), where).toBe(true);
          expect(
            ['14155550100', '+1234567', '+1415555abcd'].some((text) => pattern.test(text)),
            where,
          ).toBe(false);
        } else {
          expect(parameter.name, where).toBe('slug');
          expect(
            ['hubspot', 'zoho-crm'].every((text) => pattern.test(text)),
            where,
          ).toBe(true);
          expect(
            ['HubSpot', '-x', 'a b'].some((text) => pattern.test(text)),
            where,
          ).toBe(false);
        }
      }
    }
  });

  it('documents the Idempotency-Key header on every create, and on nothing else', () => {
    for (const route of routes) {
      const op = operation(route.method.toLowerCase(), openApiPath('', route.path));
      const headers = op.parameters.filter((p: Schema) => p.in === 'header');
      if (route.status !== 201) {
        expect(headers, `${route.method} ${route.path}`).toEqual([]);
        continue;
      }
      expect(headers, `${route.method} ${route.path}`).toEqual([
        expect.objectContaining({
          name: 'Idempotency-Key',
          required: false,
          description: expect.stringMatching(/409/),
        }),
      ]);
      const key = new RegExp(headers[0].schema.pattern);
      expect(['retry-1', 'x'.repeat(255)].every((text) => key.test(text))).toBe(true);
      expect(['', 'x'.repeat(256), 'a b', 'é'].some((text) => key.test(text))).toBe(false);
    }
  });

  it("shows the responses' statuses, event types and outcomes as the enums the requests take", () => {
    const runStatuses = ['PENDING', 'IN_PROGRESS', 'PAUSED', 'FINISHED', 'CANCELLED', 'FAILED'];
    const batchShown = resolve(
      operation('get', '/batches/{batch_id}').responses['200'].content['application/json'].schema,
    );
    expect(property(batchShown, 'status').enum).toEqual(runStatuses);
    const runShown = resolve(operation('get', '/runs/{run_id}').responses['200'].content['application/json'].schema);
    expect(property(runShown, 'status').enum).toEqual(runStatuses);
    expect(property(runShown, 'status').enum).toEqual(
      operation('get', '/workflows/{workflow_id}/runs').parameters.find((p: Schema) => p.name === 'status').schema.enum,
    );
    const outcomes = ['answered', 'no_answer', 'busy', 'voicemail', 'failed', 'ivr', 'call_screening'];
    expect(property(runShown, 'last_outcome').enum).toEqual(outcomes);
    expect(property(resolve(property(runShown, 'call_attempts').items), 'outcome').enum).toEqual(outcomes);
    const listed = resolve(property(runShown, 'call_attempts').items);
    expect(listed).toBe(resolve({ $ref: '#/components/schemas/CallAttempt' }));

    const endpointShown = resolve(
      operation('get', '/webhook-endpoints/{id}').responses['200'].content['application/json'].schema,
    );
    const eventsTaken = property(requestSchema('post', '/webhook-endpoints'), 'events').items.enum;
    expect(eventsTaken).toContain('*');
    expect(property(endpointShown, 'events').items.enum).toEqual(eventsTaken);
    const agentShown = resolve(
      operation('get', '/agents/{agent_id}').responses['200'].content['application/json'].schema,
    );
    expect(property(agentShown, 'type').enum).toEqual(
      property(requestSchema('patch', '/agents/{agent_id}'), 'type').enum,
    );
  });

  it('erasing a prospect: DELETE /prospects/{prospect_id} under both prefixes answers {} (like E3), 403 and 404; prospect.erased is an event type', () => {
    for (const prefix of PREFIXES) {
      const erase = operation('delete', '/prospects/{prospect_id}', prefix);
      const answered = resolve(erase.responses['200'].content['application/json'].schema);
      expect(answered).toMatchObject({ type: 'object', additionalProperties: false });
      expect(Object.keys(answered.properties ?? {})).toEqual([]);
      expect(Object.keys(erase.responses)).toEqual(expect.arrayContaining(['200', '403', '404']));
      expect(erase.requestBody).toBeUndefined();
      expect(erase.parameters.find((p: Schema) => p.name === 'prospect_id').schema.pattern).toContain('prs_');
    }
    const eventsTaken = property(requestSchema('post', '/webhook-endpoints'), 'events').items.enum;
    expect(eventsTaken).toContain('prospect.erased');
  });

  it('names the query parameters as DECISIONS.md does, with their ranges', () => {
    for (const [endpoint, names] of Object.entries(QUERY_PARAMETERS)) {
      const [method, path] = SPEC_ENDPOINTS[endpoint]!;
      for (const prefix of PREFIXES) {
        const query = operation(method, path, prefix).parameters.filter((p: Schema) => p.in === 'query');
        expect(query.map((p: Schema) => p.name).sort(), endpoint).toEqual([...names].sort());
      }
    }
    const parameter = (method: string, path: string, name: string) =>
      operation(method, path).parameters.find((p: Schema) => p.in === 'query' && p.name === name).schema as Schema;
    expect(parameter('get', '/analytics/insights', 'limit')).toMatchObject({
      type: 'integer',
      minimum: 1,
      maximum: 100,
    });
    expect(parameter('get', '/analytics/insights', 'offset')).toMatchObject({ type: 'integer', minimum: 0 });
    expect(parameter('get', '/analytics/insights', 'period_start')).toMatchObject({ type: 'string', format: 'date' });
    expect(parameter('get', '/analytics/insights', 'period_end')).toMatchObject({ type: 'string', format: 'date' });
    expect(parameter('get', '/workflows/{workflow_id}/batches', 'page')).toMatchObject({
      type: 'integer',
      minimum: 1,
      default: 1,
    });
    expect(parameter('get', '/workflows/{workflow_id}/batches', 'limit')).toMatchObject({
      type: 'integer',
      minimum: 1,
      maximum: 100,
      default: 20,
    });
    expect(parameter('get', '/workflows/{workflow_id}/runs', 'status').enum).toEqual([
      'PENDING',
      'IN_PROGRESS',
      'PAUSED',
      'FINISHED',
      'CANCELLED',
      'FAILED',
    ]);
    expect(parameter('get', '/workflows/{workflow_id}/runs', 'sort').enum).toEqual([
      'started_asc',
      'started_desc',
      'status_asc',
      'status_desc',
    ]);
    expect(parameter('get', '/workflows/{workflow_id}/versions', 'size')).toMatchObject({
      type: 'integer',
      minimum: 1,
      maximum: 100,
    });
  });

  it("E1's body is SPEC.md's agent update request, from the same validation schemas: bounds, enums, required members, recursive fallbacks", () => {
    const body = requestSchema('patch', '/agents/{agent_id}');
    expect(body.type).toBe('object');
    expect(body.required ?? []).toEqual([]);
    expect(body.additionalProperties).toBe(false);
    expect(Object.keys(body.properties).sort()).toEqual(
      ['name', 'type', 'prompt_template', 'default_functions', 'plugins', ...agentConfigMembers].sort(),
    );
    expect(property(body, 'type').enum).toEqual(['voice', 'chat', 'video']);
    // Each config member is its object, or null (which clears it).
    for (const member of agentConfigMembers) {
      expect(property(body, member).type, member).toBe('object');
      expect(property(body, member).additionalProperties, member).toBe(false);
    }

    const llm = property(body, 'llm_config');
    expect(llm.required.sort()).toEqual(['model', 'provider']);
    expect(property(llm, 'provider').enum).toEqual(['openai', 'anthropic', 'google', 'groq', 'azure']);
    expect(property(llm, 'temperature')).toMatchObject({ type: 'number', minimum: 0, maximum: 2 });
    expect(property(llm, 'top_p')).toMatchObject({ minimum: 0, maximum: 1 });
    expect(property(llm, 'top_k')).toMatchObject({ type: 'integer', minimum: 1 });
    expect(property(llm, 'max_tokens')).toMatchObject({ type: 'integer', minimum: 1 });
    expect(property(llm, 'frequency_penalty')).toMatchObject({ minimum: -2, maximum: 2 });
    expect(property(llm, 'presence_penalty')).toMatchObject({ minimum: -2, maximum: 2 });
    // Fallbacks are the same schema, to any depth: a reference back to it, not a copy.
    const llmFallbacks = resolve(llm.properties.fallbacks);
    expect(llmFallbacks.type).toBe('array');
    expect(llmFallbacks.items.$ref).toBeDefined();
    expect(resolve(llmFallbacks.items)).toBe(llm);
    expect(resolve(resolve(resolve(llmFallbacks.items).properties.fallbacks).items)).toBe(llm);

    expect(property(property(body, 'goodbye_config'), 'message')).toMatchObject({ type: 'string', maxLength: 500 });

    const transcriber = property(body, 'transcriber_config');
    expect(transcriber.required).toEqual(['provider']);
    expect(property(transcriber, 'provider').enum).toEqual(['deepgram', 'assemblyai', 'elevenlabs', 'google', 'azure']);
    expect(property(transcriber, 'sample_rate')).toMatchObject({ type: 'integer', minimum: 8000, maximum: 48000 });
    expect(property(transcriber, 'commit_strategy').enum).toEqual(['manual', 'vad']);
    expect(property(transcriber, 'eot_threshold')).toMatchObject({ minimum: 0, maximum: 1 });
    expect(resolve(resolve(transcriber.properties.fallbacks).items)).toBe(transcriber);

    const voice = property(body, 'voice_config');
    expect(voice.required.sort()).toEqual(['model', 'provider']);
    expect(property(voice, 'provider')).toMatchObject({ type: 'string' });
    expect(property(voice, 'provider').enum).toBeUndefined();
    expect(property(voice, 'sample_rate')).toMatchObject({ type: 'integer', minimum: 8000, maximum: 48000 });
    expect(property(voice, 'speed')).toMatchObject({ minimum: 0.1, maximum: 5 });
    expect(property(voice, 'volume')).toMatchObject({ minimum: 0.5, maximum: 10 });
    expect(property(voice, 'pitch')).toMatchObject({ minimum: -12, maximum: 12 });
    expect(property(voice, 'intensity')).toMatchObject({ minimum: -100, maximum: 100 });
    expect(property(voice, 'user_instructions')).toMatchObject({ minLength: 3, maxLength: 1000 });
    expect(resolve(resolve(voice.properties.fallbacks).items)).toBe(voice);

    expect(property(property(body, 'vad_config'), 'sample_rate')).toMatchObject({ minimum: 8000, maximum: 48000 });
    expect(property(property(body, 'vad_config'), 'activation_threshold')).toMatchObject({ minimum: 0, maximum: 1 });

    const webhook = property(body, 'precall_webhook');
    expect(webhook.required.sort()).toEqual(['method', 'url']);
    expect(property(webhook, 'method').enum).toEqual(['GET', 'POST', 'PUT', 'PATCH']);
    expect(property(webhook, 'timeout_seconds')).toMatchObject({ type: 'integer', minimum: 1, maximum: 60 });

    const background = property(body, 'background_sound');
    expect(background.required).toEqual(['file']);
    expect(property(background, 'volume')).toMatchObject({ minimum: 0, maximum: 1 });
    expect(resolve(property(background, 'thinking_sound').items).required).toEqual(['sound']);

    expect(property(property(body, 'extra_config'), 'use_gender_plugin').enum).toEqual([
      'none',
      'pitch',
      'enhanced',
      'enhanced-multi',
    ]);
    expect(property(property(body, 'greeting_config'), 'pause_before_first_message')).toMatchObject({
      type: 'integer',
      minimum: 0,
    });
    expect(property(property(body, 'room_duration_config'), 'max_duration_min')).toMatchObject({
      type: 'integer',
      minimum: 1,
    });

    // The same objects as the agent create extension's body: one definition each.
    const create = requestSchema('post', '/agents');
    expect(create.required).toEqual(['name']);
    expect(property(create, 'llm_config')).toBe(llm);
    expect(property(create, 'voice_config')).toBe(voice);
  });

  it("E15-E17's bodies carry SPEC.md's and DECISIONS.md's rules; no response carries the password", () => {
    const trunk = requestSchema('post', '/sip-trunks');
    expect(trunk.required.sort()).toEqual(['address', 'name', 'phone_numbers', 'provider']);
    expect(property(trunk, 'provider').enum).toEqual(['twilio', 'telnyx', 'custom', 'plivo', 'vonage', 'other']);
    const phoneNumbers = property(trunk, 'phone_numbers');
    expect(phoneNumbers).toMatchObject({ type: 'array', minItems: 1, maxItems: 10_000 });
    const e164 = new RegExp(resolve(phoneNumbers.items).pattern);
    expect(['+14155550100', '+12345678'].every((n) => e164.test(n))).toBe(true);
    expect(['14155550100', '+1234567', '+1234567890123456', '+1415555abcd'].some((n) => e164.test(n))).toBe(false);
    expect(Object.keys(trunk.properties).sort()).toEqual(
      ['address', 'auth_password', 'auth_username', 'max_concurrency', 'name', 'phone_numbers', 'provider'].sort(),
    );
    expect(property(trunk, 'max_concurrency')).toMatchObject({ type: 'integer' });

    const single = requestSchema('post', '/phone-numbers');
    expect(single.required.sort()).toEqual(['number', 'sip_trunk_id']);
    expect(property(single, 'number').pattern).toBe(resolve(phoneNumbers.items).pattern);
    const bulk = requestSchema('post', '/phone-numbers/bulk');
    expect(bulk.required.sort()).toEqual(['numbers', 'sip_trunk_id']);
    expect(property(bulk, 'numbers')).toMatchObject({ type: 'array', minItems: 1 });
    expect(resolve(property(bulk, 'numbers').items).required).toEqual(['number']);

    const created = resolve(operation('post', '/sip-trunks').responses['201'].content['application/json'].schema);
    expect(Object.keys(created.properties).sort()).toEqual(['inbound_trunk', 'outbound_trunk', 'phone_numbers']);
    expect(Object.keys(property(created, 'inbound_trunk').properties).sort()).toEqual([
      'id',
      'is_active',
      'max_concurrency',
      'name',
      'phone_count',
      'provider',
      'type',
    ]);
    expect(Object.keys(resolve(property(created, 'phone_numbers').items).properties).sort()).toEqual([
      'id',
      'is_verified',
      'label',
      'number',
      'provider',
      'sip_trunk_id',
      'trunk_name',
    ]);
    for (const [path, methods] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(methods as Record<string, Schema>)) {
        const responses = JSON.stringify(op.responses);
        expect(responses, `${method} ${path}`).not.toContain('password');
      }
    }
    expect(
      JSON.stringify(
        Object.fromEntries(Object.entries(doc.components.schemas).filter(([name]) => !name.endsWith('Create'))),
      ),
    ).not.toContain('password');
  });

  it('the do-not-call routes: E.164 numbers, envelope A of entries, page and limit; prospects take an IANA timezone', () => {
    const add = requestSchema('post', '/do-not-call');
    expect(add.required).toEqual(['numbers']);
    expect(add.additionalProperties).toBe(false);
    expect(property(add, 'numbers')).toMatchObject({ type: 'array', minItems: 1, maxItems: 10_000 });
    const e164 = resolve(requestSchema('post', '/phone-numbers').properties.number).pattern;
    expect(resolve(property(add, 'numbers').items).pattern).toBe(e164);
    expect(property(add, 'reason')).toMatchObject({ type: 'string', maxLength: 500 });
    const created = resolve(operation('post', '/do-not-call').responses['201'].content['application/json'].schema);
    expect(Object.keys(created.properties)).toEqual(['count']);
    const list = operation('get', '/do-not-call');
    expect(
      list.parameters
        .filter((p: Schema) => p.in === 'query')
        .map((p: Schema) => p.name)
        .sort(),
    ).toEqual(['limit', 'page']);
    const envelope = resolve(list.responses['200'].content['application/json'].schema);
    expect(Object.keys(property(envelope, 'pagination').properties).sort()).toEqual([
      'limit',
      'page',
      'total',
      'total_pages',
    ]);
    expect(Object.keys(resolve(property(envelope, 'data').items).properties).sort()).toEqual([
      'created_at',
      'number',
      'reason',
    ]);
    expect(
      operation('delete', '/do-not-call/{number}')
        .parameters.filter((p: Schema) => p.in === 'path')
        .map((p: Schema) => p.name),
    ).toEqual(['org_id', 'number']);

    const prospect = resolve(resolve(property(requestSchema('post', '/prospects'), 'prospects').items));
    expect(property(prospect, 'timezone')).toMatchObject({
      type: 'string',
      description: expect.stringContaining('IANA'),
    });
    const shown = resolve(
      resolve(
        property(
          resolve(operation('post', '/prospects').responses['201'].content['application/json'].schema),
          'created',
        ).items,
      ),
    );
    expect(shown.properties.timezone.type).toEqual(['string', 'null']);
  });

  it('the CSV import takes a text/csv body and its options as query parameters', () => {
    const importing = operation('post', '/prospects/import');
    expect(Object.keys(importing.requestBody.content)).toEqual(['text/csv']);
    expect(importing.requestBody.content['text/csv'].schema).toEqual({ type: 'string' });
    expect(importing.requestBody.description).toMatch(/phone/);
    const query = importing.parameters.filter((p: Schema) => p.in === 'query');
    expect(query.map((p: Schema) => p.name).sort()).toEqual([
      'default_country',
      'list_name',
      'on_duplicate',
      'tag_ids',
    ]);
    expect(query.find((p: Schema) => p.name === 'on_duplicate').schema).toMatchObject({
      enum: ['skip', 'update', 'error'],
      default: 'skip',
    });
    const created = resolve(importing.responses['201'].content['application/json'].schema);
    expect(Object.keys(created.properties).sort()).toEqual(['count', 'duplicates_skipped', 'list_id']);
  });

  it("E20's response is envelope C of SPEC.md's insight; the error body is SPEC.md's", () => {
    const envelope = resolve(
      operation('get', '/analytics/insights').responses['200'].content['application/json'].schema,
    );
    expect(Object.keys(envelope.properties).sort()).toEqual(['insights', 'limit', 'offset', 'total']);
    expect(envelope.required.sort()).toEqual(['insights', 'limit', 'offset', 'total']);
    const insight = resolve(property(envelope, 'insights').items);
    expect(Object.keys(insight.properties).sort()).toEqual([
      'created_at',
      'executive_summary',
      'id',
      'issue_rate',
      'issues_identified',
      'period_end',
      'period_start',
      'total_calls',
    ]);
    expect(property(insight, 'total_calls').type).toBe('integer');
    expect(property(insight, 'issue_rate').type).toBe('number');
    expect(doc.components.schemas.ErrorBody).toMatchObject({
      type: 'object',
      required: ['status', 'message', 'error', 'data'],
      properties: { status: { const: false }, message: { type: 'string' } },
    });
  });
});
