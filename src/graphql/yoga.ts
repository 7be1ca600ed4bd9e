// The GraphQL server: yoga over the Pothos schema. Every operation needs an
// API key (X-API-Key); the organization it belongs to scopes everything the
// operation reads or writes.
import { createRequire } from 'node:module';
import { GraphQLError } from 'graphql';
import { createYoga, maskError, type YogaServerInstance } from 'graphql-yoga';
import { authenticate, type Viewer } from '../auth/authenticate.ts';
import type { GraphQLLimits } from '../config/request-limits.ts';
import type { RequestConsistency } from '../db/read-replicas.ts';
import { isTransientDatabaseError } from '../db/transient.ts';
import { DomainError, httpStatusOf, RETRY_AFTER_SECONDS, unavailable } from '../domain/errors.ts';
import type { RequestAudit } from '../observability/request-log.ts';
import { tracing } from '../observability/tracing.ts';
import { createContext, type GraphQLContext } from '../schema/context.ts';
import { schema, subgraphSchema } from '../schema/index.ts';
import type { ParsedBody } from '../schema/parsed-input.ts';
import type { Services } from '../services.ts';
import { useCompiledQueries } from './compiled-execution.ts';
import { type PersistedOperations, protectionPlugins } from './protections.ts';
import { useBadInputCode } from './use-bad-input-code.ts';
import { useLiveQueries } from './use-live-queries.ts';
import { useOperationBounds } from './use-operation-bounds.ts';
import { useOperationMetrics } from './use-operation-metrics.ts';
import { useReadReplicas } from './use-read-replicas.ts';
import { useRequestBodies } from './use-request-bodies.ts';
import { useSharedResponseCache } from './use-response-cache.ts';
import { useSharedSubscriptionEvents } from './use-shared-subscription-events.ts';
import { useSqlSubtrees } from './use-sql-subtrees.ts';
import { useStorableInput } from './use-storable-input.ts';
import { useSubscriptionSlots } from './use-subscription-slots.ts';
import { useWriteInvalidations } from './use-write-invalidations.ts';

/**
 * What the host hands yoga with each request, and the REST router with each
 * operation it runs (src/graphql/run-operation.ts). The router authenticates
 * first (401 before 400) and passes the viewer it found, so the key is looked
 * up once; so does the host for /graphql, whose rate limiter looked it up
 * (src/requests/request-viewer.ts). Without one, the request is authenticated here.
 */
export interface ServerContext {
  /** The caller, when the host has looked its key up already; null: it found none valid. */
  viewer?: Viewer | null;
  /** The HTTP request's log facts, filled in as they become known. */
  audit?: RequestAudit;
  /** The REST router's parsed body, which the operation's mutation takes as its input. */
  parsedBody?: ParsedBody;
  /** With read replicas: the request's X-Consistency token, and who wrote (src/requests/consistency.ts). */
  consistency?: RequestConsistency;
  /**
   * Holds one of the organization's subscription slots for this HTTP request's
   * subscription or live query (SSE) until its response ends, and watches its
   * key meanwhile: a signal that aborts once the key no longer holds
   * (src/auth/key-lapse.ts), or the refusal when the organization has no slot left.
   */
  holdSubscription?: (viewer: Viewer) => GraphQLError | AbortSignal;
}
export type GraphQLServer = YogaServerInstance<ServerContext, GraphQLContext>;

function unauthenticated(): GraphQLError {
  return new GraphQLError('a valid API key is required in the X-API-Key header', {
    extensions: { code: 'UNAUTHENTICATED', http: { status: 401 } },
  });
}

/** Domain failures become GraphQL errors with a stable code; anything else is masked by yoga. */
function toGraphQLError(error: DomainError): GraphQLError {
  // A request worth retrying says so in HTTP too (status, Retry-After), for clients and proxies that read only that.
  const http =
    error.kind === 'SERVICE_UNAVAILABLE'
      ? { http: { status: 503, headers: { 'retry-after': String(RETRY_AFTER_SECONDS) } } }
      : {};
  // A refusal for a missing scope names it in the extensions too, as REST's 403 body does in its detail.
  const scope = error.kind === 'FORBIDDEN' ? { scope: (error.detail as { scope: string }).scope } : {};
  return new GraphQLError(error.message, {
    extensions: { code: error.kind, status: httpStatusOf[error.kind], detail: error.detail, ...scope, ...http },
  });
}

/** What a masked error says: yoga's default, named so that the REST layer's operations say it too. */
const MASKED_MESSAGE = 'Unexpected error.';

/**
 * What an operation's failure is answered as: a domain failure with its code,
 * a database failure that outlasted its retries (src/db/retrying.ts) as a 503,
 * anything else masked by yoga (`message`, no detail). The REST layer's
 * operations, run in process (src/graphql/run-operation.ts), fail the same way.
 */
export function maskOperationError(error: unknown, message = MASKED_MESSAGE, isDev?: boolean): Error {
  const original = error instanceof GraphQLError ? error.originalError : error;
  if (original instanceof DomainError) return toGraphQLError(original);
  if (isTransientDatabaseError(original)) return toGraphQLError(unavailable());
  return maskError(error, message, isDev);
}

export interface GraphQLServerOptions {
  limits: GraphQLLimits;
  /** The operations that may run by hash (the gateway's own: the REST layer's and the console's, and the allow-list's). */
  operations: PersistedOperations;
  /** Serve the subgraph schema (with `_entities` and `_service`) for a federation router. */
  federation?: boolean;
  /** PostgreSQL writes the connection subtrees it can (GRAPHQL_SQL_SUBTREES, docs/sql-rendering.md); on unless false. */
  sqlSubtrees?: boolean;
}

const require = createRequire(import.meta.url);
let graphiql: typeof import('@graphql-yoga/render-graphiql') | undefined;
const loadGraphiQL = () =>
  (graphiql ??= require('@graphql-yoga/render-graphiql') as typeof import('@graphql-yoga/render-graphiql'));

export function createGraphQLServer(
  services: Services,
  { limits, operations, federation, sqlSubtrees = true }: GraphQLServerOptions,
): GraphQLServer {
  return createYoga<ServerContext, GraphQLContext>({
    schema: federation ? subgraphSchema() : schema,
    graphqlEndpoint: '/graphql',
    logging: false,
    graphiql: { title: 'Agent gateway', headers: JSON.stringify({ 'X-API-Key': '' }) },
    // Served from the npm package, not a CDN: GraphiQL works offline and under the CSP.
    // The page inlines a 9 MB bundle: it is loaded the first time someone opens it, not at start.
    renderGraphiQL: (options) => loadGraphiQL().renderGraphiQL(options),
    // CORS is the host's (Fastify's), one policy for REST and GraphQL.
    cors: false,
    // Bodies are limited where they are read (src/graphql/use-request-bodies.ts), without yoga's stream.
    maxRequestBodySize: false,
    maskedErrors: { errorMessage: MASKED_MESSAGE, maskError: maskOperationError },
    plugins: [
      useRequestBodies(),
      useStorableInput(),
      ...protectionPlugins(limits, operations),
      // Before the executor is chosen: an operation over a bound runs on neither.
      useOperationBounds(limits),
      useCompiledQueries(),
      // After it: a live query sets graphql-js's executor, wrapped by the live-query store.
      useLiveQueries(services.live),
      // After both: runs the executor they chose on the document it rewrote.
      ...(sqlSubtrees ? [useSqlSubtrees(services.responseCache)] : []),
      // After both: a miss runs the executor they chose, on the document the cache rewrote.
      ...useSharedResponseCache(services.responseCache, services.metrics),
      useWriteInvalidations(services.live, services.responseCache),
      useBadInputCode(),
      useOperationMetrics(services.metrics, operations),
      useSubscriptionSlots(),
      useSharedSubscriptionEvents(),
      ...(services.replicas ? [useReadReplicas(services.replicas)] : []),
      // Last, so the operation's span is active in the executor the plugins above chose (graphql-jit's or graphql-js's).
      ...[tracing().graphqlPlugin].filter((plugin) => plugin !== null),
    ],
    context: async ({ request, viewer: authenticated, audit, parsedBody, consistency }): Promise<GraphQLContext> => {
      const viewer =
        authenticated !== undefined
          ? authenticated
          : await authenticate(services.db, request.headers.get('x-api-key'), services.apiKeys);
      if (!viewer) throw unauthenticated();
      if (audit) audit.organizationId = viewer.organizationId;
      return createContext(services, viewer, parsedBody, consistency, audit);
    },
  });
}
