// A test's GraphQL calls through a test server, as one organization.
import type { TestServer } from './server.ts';

type Variables = Record<string, unknown>;

/**
 * `gql` answers an operation's body; `ok` its data, and throws the errors, if any, as the message (tests match
 * it with `rejects.toThrow`). `server` and `apiKey` are read at each call (tests set them in beforeAll); `key`
 * calls as another organization.
 */
export function graphqlCalls(server: () => TestServer, apiKey: () => string) {
  const gql = async (query: string, variables?: Variables, key = apiKey()) =>
    (await server().graphql(key, query, variables)).body;
  const ok = async (query: string, variables?: Variables, key = apiKey()) => {
    const body = await gql(query, variables, key);
    if (body.errors) throw new Error(JSON.stringify(body.errors));
    return body.data;
  };
  return { gql, ok };
}
