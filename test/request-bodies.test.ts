// A body whose bytes are not UTF-8 is refused (400), on REST routes and on
// /graphql alike, instead of being decoded into U+FFFD and stored; a /graphql
// body past its size limit is refused (413), declared or streamed.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_REQUEST_BODY_BYTES } from '../src/graphql/use-request-bodies.ts';
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

describe('a /graphql body past the size limit', () => {
  const query = '{"query":"{ __typename }"}';

  /**
   * Posts `size` bytes to /graphql (the query padded with spaces) over a plain socket, in chunks
   * (no Content-Length) or after a declared one, and returns what came back until the server
   * closed or answered. A socket, not an HTTP client: the server may answer 413 and close
   * while the body is still being written, and a client would report the write's failure only.
   */
  function post(size: number, { declare = false, write = true } = {}) {
    return new Promise<string>((resolve) => {
      const socket = net.connect(Number(new URL(server.url).port), '127.0.0.1');
      let answer = '';
      socket.on('data', (data: Buffer) => {
        answer += data;
        if (/\r\n0\r\n\r\n$|"data"|"errors"/.test(answer)) socket.destroy();
      });
      socket.on('error', () => {});
      socket.on('close', () => resolve(answer));
      const length = declare ? `content-length: ${size}` : 'transfer-encoding: chunked';
      socket.write(
        `POST /graphql HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\nx-api-key: ${org.apiKey}\r\n${length}\r\n\r\n`,
      );
      if (!write) return;
      const pieces = [
        Buffer.from(query),
        ...Array.from({ length: Math.ceil(size / 2 ** 20) }, () => Buffer.alloc(2 ** 20, ' ')),
      ];
      let left = size;
      for (const piece of pieces) {
        const bytes = piece.subarray(0, Math.min(left, piece.length));
        left -= bytes.length;
        if (bytes.length === 0 || socket.destroyed) break;
        socket.write(
          declare
            ? bytes
            : Buffer.concat([Buffer.from(`${bytes.length.toString(16)}\r\n`), bytes, Buffer.from('\r\n')]),
        );
      }
      if (!declare && !socket.destroyed) socket.write('0\r\n\r\n');
    });
  }
  const statusOf = (answer: string) => Number(answer.split(' ')[1]);

  it('is a 413 when its Content-Length says so, before it is read', async () => {
    const answer = await post(MAX_REQUEST_BODY_BYTES + 1, { declare: true, write: false });
    expect(statusOf(answer)).toBe(413);
    expect(answer).toContain('"code":"REQUEST_ENTITY_TOO_LARGE"');
  });

  it('is a 413 when it is streamed past the limit', async () => {
    const answer = await post(MAX_REQUEST_BODY_BYTES + 1);
    expect(statusOf(answer)).toBe(413);
    expect(answer).toContain('"code":"REQUEST_ENTITY_TOO_LARGE"');
  });

  it('is read whole when it is streamed or declared within the limit', async () => {
    for (const declare of [false, true]) {
      const answer = await post(MAX_REQUEST_BODY_BYTES, { declare });
      expect(statusOf(answer)).toBe(200);
      // The answer is the query's data, whole.
      expect(answer.endsWith('\r\n\r\n{"data":{"__typename":"Query"}}')).toBe(true);
    }
  });
});
