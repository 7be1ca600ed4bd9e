import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createClient } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { defaultGraphQLLimits } from '../src/config/request-limits.ts';
import { operationHash } from '../src/graphql/protections.ts';
import { restClient } from './support/rest.ts';
import { startTestServer, type TestServer } from './support/server.ts';

const refusedWith = (body: { errors?: { message: string }[] }, pattern: RegExp) => {
  expect(body.errors?.[0]?.message).toMatch(pattern);
};

describe('GraphQL limits (defaults)', () => {
  let server: TestServer;
  let apiKey: string;
  beforeAll(async () => {
    server = await startTestServer();
    ({ apiKey } = await server.createOrganization());
  });
  afterAll(() => server.close());
  const gql = (query: string) => server.graphql(apiKey, query).then((response) => response.body);

  it('accepts the dashboard query and refuses deeper ones', async () => {
    const dashboard =
      await gql(`{ workflow(id: "wf_x") { batches(first: 20) { edges { node { stats { pendingCount totalCount }
      runs(first: 50) { edges { node { status startedAt prospect { firstName lastName phone tags { name } } } } } } } } } }`);
    expect(dashboard.errors).toBeUndefined();
    const deep = `{ workflows { nodes { batches { nodes { runs { nodes { batch { workflow { runs { nodes { prospect { runs { nodes { id } } } } } } } } } } } } } }`;
    refusedWith(await gql(deep), /depth/i);
  });

  it('counts depth in fields: fragments nested five deep add no level, and cannot hide one', async () => {
    // 10 levels of fields, spread over five nested fragments (Relay composes queries this way).
    const nested = `query Nested { workflows(first: 1) { ...W } }
      fragment W on QueryWorkflowsConnection { nodes { batches(first: 1) { ...B } } }
      fragment B on WorkflowBatchesConnection { nodes { ... on Batch { runs(last: 2) { ...R } } } }
      fragment R on BatchRunsConnection { edges { node { ...Run } } }
      fragment Run on Run { prospect { ...P } }
      fragment P on Prospect { tags { name } }`;
    expect((await gql(nested)).errors).toBeUndefined();
    // One level more than the limit, inside the fragments, is still refused.
    const deeper = nested.replace('tags { name }', 'runs { nodes { batch { workflow { id } } } }');
    refusedWith(await gql(deeper), /^Query depth limit of 12 exceeded, found 13\.$/);
  });

  it('refuses a document over a limit as an invalid document: one code, its status, no "Syntax Error"', async () => {
    const overLimits = {
      'depth limit': `{ workflows { nodes { batches { nodes { runs { nodes { batch { workflow { runs { nodes { prospect { runs { nodes { id } } } } } } } } } } } } } }`,
      'aliases limit': `{ ${Array.from({ length: defaultGraphQLLimits.maxAliases + 1 }, (_, index) => `a${index}: organization { id }`).join(' ')} }`,
      'token limit': `{ ${Array.from({ length: 1100 }, () => 'organization { id }').join(' ')} }`,
      'directives limit': `{ ${'__typename @skip(if: false) '.repeat(defaultGraphQLLimits.maxDirectives + 1)}}`,
      'cost limit': `{ workflows(first: 100) { nodes { batches(first: 100) { nodes { runs(first: 100) { nodes { id } } } } } } }`,
    };
    for (const [limit, query] of Object.entries(overLimits)) {
      for (const [accept, status] of [
        ['application/graphql-response+json', 400],
        ['application/json', 200],
      ] as const) {
        const response = await fetch(`${server.url}/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept, 'x-api-key': apiKey },
          body: JSON.stringify({ query }),
        });
        const body = await response.json();
        expect({ limit, accept, status: response.status }).toEqual({ limit, accept, status });
        expect(body.data, limit).toBeUndefined();
        expect(body.errors, limit).toEqual([
          {
            message: expect.stringMatching(new RegExp(`^(?!Syntax Error).*${limit}`, 'i')),
            extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
          },
        ]);
      }
    }
  });

  it('refuses too many aliases, tokens and too high a cost', async () => {
    const aliases = Array.from(
      { length: defaultGraphQLLimits.maxAliases + 1 },
      (_, index) => `a${index}: organization { id }`,
    ).join(' ');
    refusedWith(await gql(`{ ${aliases} }`), /alias/i);
    const tokens = `{ ${Array.from({ length: 1100 }, () => 'organization { id }').join(' ')} }`;
    refusedWith(await gql(tokens), /token/i);
    const costly = `{ workflows(first: 100) { nodes { batches(first: 100) { nodes { runs(first: 100) { nodes { id status startedAt } } } } } } }`;
    refusedWith(await gql(costly), /cost/i);
  });

  it('serves introspection by default', async () => {
    const body = await gql('{ __schema { queryType { name } } }');
    expect(body.data.__schema.queryType.name).toBe('Query');
  });
});

describe('GraphQL limits (production settings)', () => {
  let server: TestServer;
  let org: { organizationId: string; apiKey: string };
  const allowed = 'query Allowed { organization { name } }';
  beforeAll(async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'persisted-'));
    const file = path.join(dir, 'operations.json');
    await writeFile(file, JSON.stringify({ [operationHash(allowed)]: allowed }));
    server = await startTestServer({
      graphqlLimits: {
        ...defaultGraphQLLimits,
        introspection: false,
        persistedOnly: true,
        persistedOperationsFile: file,
      },
    });
    org = await server.createOrganization('Prod');
  });
  afterAll(() => server.close());
  const post = async (body: unknown) => {
    const response = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': org.apiKey },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: await response.json() };
  };

  it('runs persisted operations only, by hash', async () => {
    const ok = await post({ extensions: { persistedQuery: { version: 1, sha256Hash: operationHash(allowed) } } });
    expect(ok.body).toEqual({ data: { organization: { name: 'Prod' } } });
    const arbitrary = await post({ query: '{ organization { id } }' });
    expect(arbitrary.status).toBe(400);
    refusedWith(arbitrary.body, /persisted operations only/);
    const unknown = await post({ extensions: { persistedQuery: { version: 1, sha256Hash: 'f'.repeat(64) } } });
    refusedWith(unknown.body, /no persisted operation/);
  });

  it('runs persisted operations only over graphql-ws too', async () => {
    const client = createClient({
      url: `${server.url.replace('http', 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { 'x-api-key': org.apiKey },
      retryAttempts: 0,
    });
    const run = (payload: { query: string; extensions?: Record<string, unknown> }) =>
      new Promise<{ data?: unknown; errors?: { message: string }[] }>((resolve) => {
        client.subscribe(payload, {
          next: (result) => resolve(result as never),
          error: (errors) => resolve({ errors: errors as { message: string }[] }),
          complete: () => {},
        });
      });
    try {
      const byHash = await run({
        query: '',
        extensions: { persistedQuery: { version: 1, sha256Hash: operationHash(allowed) } },
      });
      expect(byHash).toEqual({ data: { organization: { name: 'Prod' } } });
      const arbitrary = await run({ query: '{ organization { id } }' });
      expect(arbitrary.errors?.[0]?.message).toMatch(/persisted operations only/);
      const unknown = await run({
        query: '',
        extensions: { persistedQuery: { version: 1, sha256Hash: 'f'.repeat(64) } },
      });
      expect(unknown.errors?.[0]?.message).toMatch(/no persisted operation/);
    } finally {
      await client.dispose();
    }
  });

  it('keeps the REST layer working: its operations are persisted', async () => {
    const rest = restClient(server, org.organizationId, org.apiKey);
    const created = await rest('POST', '/org/{org}/workflows', { body: { name: 'Still works' } });
    expect(created.status).toBe(201);
  });

  it('refuses introspection when it is off', async () => {
    const introspection = 'query Schema { __schema { types { name } } }';
    // Even as a persisted operation: the rule is a validation rule.
    const dir = await mkdtemp(path.join(os.tmpdir(), 'persisted-'));
    const file = path.join(dir, 'operations.json');
    await writeFile(file, JSON.stringify({ [operationHash(introspection)]: introspection }));
    const strict = await startTestServer({
      graphqlLimits: { ...defaultGraphQLLimits, introspection: false, persistedOperationsFile: file },
    });
    try {
      const { apiKey } = await strict.createOrganization();
      const response = await strict.graphql(apiKey, introspection);
      refusedWith(response.body, /introspection/i);
    } finally {
      await strict.close();
    }
  });
});
