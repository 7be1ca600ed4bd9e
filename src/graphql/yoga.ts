// The GraphQL server: yoga over the Pothos schema. Every operation needs an
// API key (X-API-Key); the organization it belongs to scopes everything the
// operation reads or writes.
import { createRequire } from 'node:module';
import { type DocumentNode, GraphQLError, Kind, type OperationDefinitionNode } from 'graphql';
import { createYoga, type Maybe, maskError, type YogaServerInstance } from 'graphql-yoga';
import { isTransientDatabaseError } from '../db/transient.ts';
import { DomainError, httpStatusOf, RETRY_AFTER_SECONDS, unavailable } from '../domain/errors.ts';
import { unstorableMembers } from '../domain/validation.ts';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../http/json-depth.ts';
import { INVALID_UTF8, utf8Text } from '../http/utf8.ts';
import { authenticate, type Viewer } from '../domain/organizations.ts';
import { createContext, type GraphQLContext } from '../schema/context.ts';
import type { RequestAudit } from '../observability/request-log.ts';
import { tracing } from '../observability/tracing.ts';
import type { Services } from '../services.ts';
import { useCompiledQueries } from './compiled-execution.ts';
import { type GraphQLLimits, type PersistedOperations, protectionPlugins } from './protections.ts';
import { schema } from '../schema/index.ts';

/**
 * What the host hands yoga with each request. The REST router authenticates
 * first (401 before 400) and passes the viewer it found, so the key is looked
 * up once; requests to /graphql carry none and are authenticated here.
 */
export interface ServerContext {
  viewer?: Viewer;
  /** The HTTP request's log facts, filled in as they become known. */
  audit?: RequestAudit;
}
export type GraphQLServer = YogaServerInstance<ServerContext, GraphQLContext>;

export function unauthenticated(): GraphQLError {
  return new GraphQLError('a valid API key is required in the X-API-Key header', {
    extensions: { code: 'UNAUTHENTICATED', http: { status: 401 } },
  });
}

/** Domain failures become GraphQL errors with a stable code; anything else is masked by yoga. */
function toGraphQLError(error: DomainError): GraphQLError {
  // A request worth retrying says so in HTTP too (status, Retry-After), for clients and proxies that read only that.
  const http =
    error.kind === 'SERVICE_UNAVAILABLE' ? { http: { status: 503, headers: { 'retry-after': String(RETRY_AFTER_SECONDS) } } } : {};
  return new GraphQLError(error.message, {
    extensions: { code: error.kind, status: httpStatusOf[error.kind], detail: error.detail, ...http },
  });
}

const badInputError = (message: string, detail: unknown = null) =>
  new GraphQLError(message, { extensions: { code: 'BAD_INPUT', status: 400, http: { status: 400 }, detail } });

export interface GraphQLServerOptions {
  limits: GraphQLLimits;
  /** The operations that may run by hash (the gateway's own: the REST layer's and the console's, and the allow-list's). */
  operations: PersistedOperations;
}

const require = createRequire(import.meta.url);
let graphiql: typeof import('@graphql-yoga/render-graphiql') | undefined;
const loadGraphiQL = () => (graphiql ??= require('@graphql-yoga/render-graphiql') as typeof import('@graphql-yoga/render-graphiql'));

export function createGraphQLServer(services: Services, { limits, operations }: GraphQLServerOptions): GraphQLServer {
  return createYoga<ServerContext, GraphQLContext>({
    schema,
    graphqlEndpoint: '/graphql',
    logging: false,
    graphiql: { title: 'Agent gateway', headers: JSON.stringify({ 'X-API-Key': '' }) },
    // Served from the npm package, not a CDN: GraphiQL works offline and under the CSP.
    // The page inlines a 9 MB bundle: it is loaded the first time someone opens it, not at start.
    renderGraphiQL: (options) => loadGraphiQL().renderGraphiQL(options),
    // CORS is the host's (Fastify's), one policy for REST and GraphQL.
    cors: false,
    maskedErrors: {
      maskError(error, message, isDev) {
        const original = error instanceof GraphQLError ? error.originalError : error;
        if (original instanceof DomainError) return toGraphQLError(original);
        // Still failing after its retries (src/db/retrying.ts): a 503, not an internal error.
        if (isTransientDatabaseError(original)) return toGraphQLError(unavailable());
        return maskError(error, message, isDev);
      },
    },
    plugins: [
      {
        // A body that is not UTF-8 is refused before it is parsed (src/http/utf8.ts). The REST
        // router's own requests (they come with a viewer) carry the JSON it checked and made.
        onRequestParse({ request, requestParser, setRequestParser, serverContext, fetchAPI }) {
          if (!requestParser || request.method === 'GET' || (serverContext as ServerContext).viewer) return;
          setRequestParser(async (raw) => {
            const text = utf8Text(new Uint8Array(await raw.arrayBuffer()));
            if (text === null) throw badInputError(INVALID_UTF8);
            return requestParser(new fetchAPI.Request(raw.url, { method: raw.method, headers: raw.headers, body: text }));
          });
        },
      },
      {
        // Input no database could store (NUL in strings, non-finite numbers) is bad input, named where it is.
        onParams({ params }) {
          // A query that is not a string is yoga's to refuse (400) after this hook.
          const query = typeof params.query === 'string' ? params.query : '';
          const inQuery =
            query.includes('\u0000') || query.includes('\\u0000')
              ? [{ path: 'query', rule: 'no NUL', message: 'must not contain the NUL character (U+0000)' }]
              : [];
          // Variables hold a body one level down (`input`), so they may nest one level more than a REST body.
          if (nestsDeeperThan(params.variables, MAX_JSON_DEPTH + 1)) {
            throw badInputError(`invalid input: variables nest deeper than ${MAX_JSON_DEPTH} levels`);
          }
          const problems = [...inQuery, ...unstorableMembers(params.variables ?? {}, ['variables'])];
          if (problems.length > 0) {
            throw badInputError(`invalid input: ${problems.map((problem) => `${problem.path} ${problem.message}`).join('; ')}`, problems);
          }
        },
      },
      ...protectionPlugins(limits, operations),
      useCompiledQueries(),
      {
        // graphql-js's own refusals of variables (missing, null, of the wrong type) carry no code; they are bad input.
        onResultProcess({ result, setResult }) {
          if (!result || Array.isArray(result) || !('errors' in result) || !result.errors?.length) return;
          const { errors } = result as { errors: readonly GraphQLError[] };
          if (errors.every((error) => error.extensions?.code)) return;
          setResult({
            ...result,
            errors: errors.map((error) =>
              error.extensions?.code
                ? error
                : new GraphQLError(error.message, {
                    nodes: error.nodes,
                    path: error.path,
                    extensions: { ...error.extensions, code: 'BAD_USER_INPUT' },
                  }),
            ),
          });
        },
      },
      {
        // Latency by operation, and the operation's name for the request's log line.
        onExecute({ args }: { args: { document: DocumentNode; operationName?: Maybe<string>; contextValue: unknown } }) {
          const operation = operationLabel(args.document, args.operationName);
          const { audit } = args.contextValue as { audit?: RequestAudit };
          if (audit) audit.operation = operation.name;
          const started = performance.now();
          return {
            onExecuteDone: () =>
              services.metrics.operationDuration.observe(
                { operation: operation.name, type: operation.type },
                (performance.now() - started) / 1000,
              ),
          };
        },
      },
      // Last, so the operation's span is active in the executor the plugins above chose (graphql-jit's or graphql-js's).
      ...[tracing().graphqlPlugin].filter((plugin) => plugin !== null),
    ],
    context: async ({ request, viewer: authenticated, audit }): Promise<GraphQLContext> => {
      const viewer = authenticated ?? (await authenticate(services.db, request.headers.get('x-api-key')));
      if (!viewer) throw unauthenticated();
      if (audit) audit.organizationId = viewer.organizationId;
      return createContext(services, viewer);
    },
  });
}

/** An operation's name for logs and metrics: its own, else its first root field (REST's operations are unnamed). */
function operationLabel(document: DocumentNode, operationName?: Maybe<string>) {
  const operation = document.definitions.find(
    (definition): definition is OperationDefinitionNode =>
      definition.kind === Kind.OPERATION_DEFINITION && (!operationName || definition.name?.value === operationName),
  );
  const firstField = operation?.selectionSet.selections.find((selection) => selection.kind === Kind.FIELD);
  return {
    name: operation?.name?.value ?? (firstField?.kind === Kind.FIELD ? firstField.name.value : 'anonymous'),
    type: operation?.operation ?? 'query',
  };
}
