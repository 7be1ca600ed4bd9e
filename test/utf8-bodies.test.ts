// A body whose bytes are not UTF-8 is refused (400), on REST routes and on
// /graphql alike, instead of being decoded into U+FFFD and stored.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody } from './support/rest.ts';
import { startTestServer, type TestServer } from './support/server.ts';

let server: TestServer;
let org: { organizationId: string; apiKey: string };
beforeAll(async () => {
  server = await startTestServer();
  org = await server.createOrganization();
});
afterAll(() => server.close());

/** JSON text around a run of raw bytes. */
const bytes = (before: string, raw: number[], after: string) =>
  Buffer.concat([Buffer.from(before, 'utf8'), Buffer.from(raw), Buffer.from(after, 'utf8')]);

const NOT_UTF8 = {
  'a stray continuation byte': [0x80],
  'a Latin-1 byte': [0xe9],
  'an overlong encoding': [0xc0, 0xaf],
  'an encoded surrogate': [0xed, 0xa0, 0x80],
  'a truncated sequence': [0xf0, 0x9f, 0x9a],
};

async function post(path: string, body: Buffer) {
  const response = await fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/graphql-response+json',
      'x-api-key': org.apiKey,
    },
    body: Uint8Array.from(body),
  });
  return { status: response.status, headers: response.headers, body: await response.json() };
}

async function workflowsNamed(prefix: string) {
  const { rows } = await server.db.sql.query<{ count: number }>(
    `SELECT count(*)::int AS count FROM "Workflow" WHERE name LIKE $1`,
    [`${prefix}%`],
  );
  return rows[0]!.count;
}

describe('a body that is not UTF-8', () => {
  it.each(Object.entries(NOT_UTF8))('is a 400 on a REST route (%s), and creates nothing', async (_what, raw) => {
    const response = await post(`/org/${org.organizationId}/workflows`, bytes('{"name":"Caf', raw, '"}'));
    expect(expectErrorBody(response, 400).message).toBe('invalid UTF-8 in the body');
    expect(await workflowsNamed('Caf')).toBe(0);
  });

  it.each(Object.entries(NOT_UTF8))('is a 400 on /graphql (%s), and creates nothing', async (_what, raw) => {
    const query = 'mutation($name: String!) { createWorkflow(input: { name: $name }) { id } }';
    const response = await post(
      '/graphql',
      bytes(`{"query":${JSON.stringify(query)},"variables":{"name":"Caf`, raw, '"}}'),
    );
    expect(response.status).toBe(400);
    expect(response.body.errors).toEqual([
      expect.objectContaining({
        message: 'invalid UTF-8 in the body',
        extensions: expect.objectContaining({ code: 'BAD_INPUT' }),
      }),
    ]);
    expect(await workflowsNamed('Caf')).toBe(0);
  });

  it('is told apart from UTF-8 beyond ASCII, which is accepted on both', async () => {
    const name = 'Zoë’s 🚀 run';
    const created = await post(`/org/${org.organizationId}/workflows`, Buffer.from(JSON.stringify({ name }), 'utf8'));
    expect(created.status).toBe(201);
    expect(created.body.name).toBe(name);
    const query = 'mutation($name: String!) { createWorkflow(input: { name: $name }) { name } }';
    const viaGraphQL = await post(
      '/graphql',
      Buffer.from(JSON.stringify({ query, variables: { name: `${name} 2` } }), 'utf8'),
    );
    expect(viaGraphQL.body).toEqual({ data: { createWorkflow: { name: `${name} 2` } } });
  });
});
