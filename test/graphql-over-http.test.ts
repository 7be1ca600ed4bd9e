// The GraphQL over HTTP audits of graphql-http (the reference implementation
// of the spec): every MUST, SHOULD and MAY, with a valid key.
import { serverAudits } from 'graphql-http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './support/server.ts';

describe('GraphQL over HTTP', async () => {
  let server: TestServer;
  let apiKey: string;
  beforeAll(async () => {
    server = await startTestServer();
    ({ apiKey } = await server.createOrganization());
  });
  afterAll(() => server.close());

  const audits = serverAudits({
    url: () => `${server.url}/graphql`,
    fetchFn: (input: RequestInfo | URL, init?: RequestInit) => {
      const headers = new Headers(init?.headers);
      headers.set('x-api-key', apiKey);
      return fetch(input, { ...init, headers });
    },
  });

  for (const audit of audits) {
    it(`${audit.name}`, async () => {
      const result = await audit.fn();
      expect(result.status === 'ok' ? 'ok' : `${result.status}: ${result.reason}`).toBe('ok');
    });
  }
});
