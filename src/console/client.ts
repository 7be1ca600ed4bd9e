// The console's GraphQL client: urql over fetch, subscriptions over SSE
// (`Accept: text/event-stream` on POST /graphql), and every document sent as
// a persisted operation, its hash only (GRAPHQL_PERSISTED_ONLY=on serves it).
// No cache exchange: every page reads fresh data, which a console wants.
import { Client, fetchExchange, getOperationName, gql, type TypedDocumentNode } from '@urql/core';
import { persistedExchange } from '@urql/exchange-persisted';
import type { Operation } from '../console-operations/console-operations.ts';

// Documents of all operations, keyed by name: each is typed again by its operation when read.
const documents = new Map<string, TypedDocumentNode>();

/** The parsed document of an operation, typed by it (parsed once). */
export function documentOf<Data, Variables>(
  operation: Operation<Data, Variables>,
): TypedDocumentNode<Data, Variables & Record<string, unknown>> {
  let document = documents.get(operation.name);
  if (!document) {
    document = gql(operation.text);
    documents.set(operation.name, document);
  }
  return document as TypedDocumentNode<Data, Variables & Record<string, unknown>>;
}

function hashOf(name: string | undefined): string {
  const hash = name ? CONSOLE_OPERATION_HASHES[name] : undefined;
  // Every document comes from operations.ts, whose hashes the build computed: anything else is a bug here.
  if (!hash) throw new Error(`no persisted hash for operation ${name ?? '(unnamed)'}`);
  return hash;
}

export function createConsoleClient(apiKey: string): Client {
  return new Client({
    url: '/graphql',
    requestPolicy: 'network-only',
    fetchSubscriptions: true,
    preferGetMethod: false,
    fetchOptions: () => ({ headers: { 'x-api-key': apiKey } }),
    exchanges: [
      persistedExchange({
        enforcePersistedQueries: true,
        enableForMutation: true,
        enableForSubscriptions: true,
        preferGetForPersistedQueries: false,
        generateHash: async (_query, document) => hashOf(getOperationName(document)),
      }),
      fetchExchange,
    ],
  });
}
