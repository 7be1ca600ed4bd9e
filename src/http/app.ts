// The HTTP host: Fastify, with yoga mounted at /graphql. Built by a function
// and started elsewhere (src/server.ts), so tests run the same app in-process.
import cors from '@fastify/cors';
import websocket from '@fastify/websocket';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest, LogController } from 'fastify';
import { GraphQLError } from 'graphql';
import { keyLapse } from '../auth/key-lapse.ts';
import {
  defaultGraphQLLimits,
  defaultSubscriptionLimits,
  type GraphQLLimits,
  type RateLimits,
  type SubscriptionLimits,
} from '../config/request-limits.ts';
import { consoleOperations } from '../console-operations/console-operations.ts';
import { retryingDatabase } from '../db/retrying.ts';
import { ping } from '../db/sql/ping.ts';
import { isTransientDatabaseError } from '../db/transient.ts';
import { unavailable } from '../domain/errors.ts';
import { persistedOperations } from '../graphql/protections.ts';
import { HIT_BODY_BYTES, ResponseCacheHits } from '../graphql/response-cache-hits.ts';
import { SubscriptionSlots } from '../graphql/subscription-slots.ts';
import { MAX_REQUEST_BODY_BYTES } from '../graphql/use-request-bodies.ts';
import { cachedHit } from '../graphql/use-response-cache.ts';
import { graphqlWebSocketHandler } from '../graphql/websocket.ts';
import { createGraphQLServer, type ServerContext } from '../graphql/yoga.ts';
import { registerRequestLog, requestIdOf } from '../observability/request-log.ts';
import { tracing } from '../observability/tracing.ts';
import { registerConsistency } from '../requests/consistency.ts';
import { errorBody, sendError } from '../requests/error-body.ts';
import { registerRateLimits, unlimited } from '../requests/rate-limits.ts';
import { requestViewers } from '../requests/request-viewer.ts';
import { registerRestRoutes } from '../rest/router.ts';
import { routes } from '../rest/routes/index.ts';
import type { Services } from '../services.ts';
import { registerLiveKitWebhook } from './livekit-webhook.ts';
import { registerMetricsRoute } from './metrics-route.ts';
import { registerPages } from './pages.ts';
import { graphiqlPolicy, registerSecurityHeaders } from './security-headers.ts';

const isHtml = (response: Response) => /^text\/html\b/.test(response.headers.get('content-type') ?? '');

/** An answer yoga made whole (not an event stream or a multipart one): its body is one JSON text. */
const isWholeJson = (response: Response) =>
  /^application\/(graphql-response\+)?json\b/.test(response.headers.get('content-type') ?? '');

export interface AppOptions {
  /** The caller owns them: closing the app leaves them open. */
  services: Services;
  rateLimits: RateLimits;
  subscriptionLimits?: SubscriptionLimits;
  graphqlLimits?: GraphQLLimits;
  /** Serve /graphql as an Apollo Federation 2 subgraph (FEDERATION=on). */
  federation?: boolean;
  /** PostgreSQL writes the connection subtrees it can (GRAPHQL_SQL_SUBTREES); on unless false. */
  sqlSubtrees?: boolean;
  /** Origins browsers may call the API from (`*` for any); none by default. */
  corsOrigins?: string[];
  /** The bearer token /metrics requires (METRICS_TOKEN); none: /metrics is off. */
  metricsToken?: string;
  logLevel?: string;
  /** Where logs go (stdout unless given; tests read them). */
  logStream?: NodeJS.WritableStream;
}

/** Never written to a log: keys and credentials, wherever they would appear. */
const REDACTED_LOG_PATHS = [
  'req.headers["x-api-key"]',
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["idempotency-key"]',
];

export async function buildApp({
  services,
  rateLimits,
  subscriptionLimits = defaultSubscriptionLimits,
  graphqlLimits = defaultGraphQLLimits,
  federation = false,
  sqlSubtrees = true,
  corsOrigins = [],
  metricsToken,
  logLevel = 'silent',
  logStream,
}: AppOptions): Promise<FastifyInstance> {
  const { db, redis, redisHealth, replicas } = services;
  // Requests ride out a lost connection, a deadlock or a serialization failure: their database
  // work is tried again (src/db/retrying.ts). The run engine keeps the plain database.
  const requestServices: Services = { ...services, db: retryingDatabase(db) };
  const app = Fastify({
    logger: {
      level: logLevel,
      redact: { paths: REDACTED_LOG_PATHS, censor: '[redacted]' },
      ...(logStream ? { stream: logStream } : {}),
    },
    // One line per request, written when it ends (src/observability/request-log.ts).
    logController: new LogController({ disableRequestLogging: true }),
    genReqId: requestIdOf,
    // Ids are short; a longer path segment is refused before routing, in SPEC.md's error body.
    routerOptions: { maxParamLength: 200 },
    frameworkErrors: (error, _request, reply) => {
      const status = (error as { statusCode?: number }).statusCode ?? 400;
      void (reply as unknown as FastifyReply).code(status).send(errorBody(error.message));
    },
  });
  // Traces, when on: the request's span starts before any other hook runs (src/observability/tracing.ts).
  const { fastifyPlugin } = tracing();
  if (fastifyPlugin) await app.register(fastifyPlugin);
  registerRequestLog(app, services.metrics);
  // The REST layer's operations and the console's (/dashboard) are the gateway's own: always allowed.
  const operations = persistedOperations(graphqlLimits, [
    ...routes.flatMap((route) => route.operation ?? []),
    ...consoleOperations.map((operation) => operation.text),
  ]);
  const graphql = createGraphQLServer(requestServices, {
    limits: graphqlLimits,
    operations,
    federation,
    sqlSubtrees,
  });

  // Set before any route is registered, so every scope inherits SPEC.md's error body.
  app.setNotFoundHandler((request, reply) =>
    reply.code(404).send(errorBody(`no route for ${request.method} ${request.url.split('?')[0]}`)),
  );

  app.setErrorHandler((error: Error & { statusCode?: number }, _request, reply) => {
    // Still failing after its retries: the request may succeed shortly, and is told so.
    if (isTransientDatabaseError(error)) return sendError(reply, 503, unavailable().message);
    const status = error.statusCode && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500;
    if (status === 500) reply.log.error(error);
    return sendError(reply, status, status === 500 ? 'internal error' : error.message);
  });

  // Said once per outage, when it starts and when it ends.
  const stopReportingRedis = redisHealth?.onChange((degraded) =>
    degraded
      ? app.log.warn(
          'Redis does not answer: rate limits count on this instance only, and progress events are polled, until it returns',
        )
      : app.log.info('Redis answers again: rate limits and progress events are shared again'),
  );
  const stopReportingReplicas = replicas?.onChange((degraded) =>
    degraded
      ? app.log.warn('a read replica is away or lags past DATABASE_REPLICA_MAX_LAG_MS: the primary serves its reads')
      : app.log.info('every read replica serves reads again'),
  );
  app.addHook('onClose', async () => {
    stopReportingRedis?.();
    stopReportingReplicas?.();
  });
  registerConsistency(app, replicas);

  const viewers = requestViewers(requestServices.db, services.apiKeys);
  const rateLimiter = await registerRateLimits(app, rateLimits, {
    viewers,
    shared: redis,
  });
  const subscriptionSlots = new SubscriptionSlots(subscriptionLimits.perOrganization);
  const cacheHits = new ResponseCacheHits(services.responseCache, services.metrics);

  registerSecurityHeaders(app);
  await app.register(cors, {
    origin: corsOrigins.includes('*') ? true : corsOrigins,
    allowedHeaders: ['content-type', 'x-api-key', 'idempotency-key', 'accept', 'x-consistency'],
    exposedHeaders: [
      'retry-after',
      'x-ratelimit-limit',
      'x-ratelimit-remaining',
      'x-ratelimit-reset',
      'idempotent-replayed',
      'x-consistency',
      // Whether a GraphQL answer came from the response cache (src/graphql/use-response-cache.ts).
      'x-response-cache',
    ],
  });
  await app.register(websocket, {
    // A graphql-ws message is bounded as a /graphql body is (ws's own default is 100 MiB).
    options: { maxPayload: MAX_REQUEST_BODY_BYTES },
    // Shutting down: every subscriber is told the server is going away (1001), then the port closes.
    preClose(done) {
      for (const client of this.websocketServer.clients) client.close(1001, 'server shutting down');
      this.websocketServer.close(() => done());
    },
  });
  await app.register(async (scope) => {
    // Yoga reads and parses GraphQL bodies itself (JSON, and the other media
    // types GraphQL over HTTP allows), so this route leaves them unparsed.
    scope.removeAllContentTypeParsers();
    // A small body (a declared length up to HIT_BODY_BYTES) is read here, whole, as bytes: a response
    // cache hit is recognised by them before yoga runs (response-cache-hits.ts); yoga is handed the same bytes.
    scope.addContentTypeParser('*', (request, payload, done) => {
      const declared = Number(request.headers['content-length']);
      if (!(declared > 0 && declared <= HIT_BODY_BYTES)) return done(null);
      const chunks: Buffer[] = [];
      payload.on('data', (chunk: Buffer) => chunks.push(chunk));
      payload.on('end', () => done(null, chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)));
      payload.on('error', (error) => done(error));
    });
    const handler = async (request: FastifyRequest, reply: FastifyReply) => {
      // Not found for the database being away: yoga looks again, and answers that in GraphQL's shape (503).
      const viewer = await viewers(request).catch(() => undefined);
      const route = request.method === 'HEAD' ? undefined : cacheHits.routeOf(request, { viewer });
      const hit = await cacheHits.answer(route);
      if (hit) {
        if (request.audit && viewer) request.audit.organizationId = viewer.organizationId;
        return reply.code(hit.status).headers(hit.headers).send(hit.bytes);
      }
      const context: ServerContext = {
        audit: request.audit,
        consistency: request.consistency,
        viewer,
        // An SSE subscription holds its organization's slot, and its key is watched, until its response ends, however it ends.
        holdSubscription: (holder) => {
          const slot = subscriptionSlots.take(holder.organizationId);
          if (slot instanceof GraphQLError) return slot;
          const ended = new AbortController();
          reply.raw.once('close', () => {
            slot();
            ended.abort();
          });
          // The key yoga authenticated the request with (it would not run without one).
          const key = String(request.headers['x-api-key']);
          return keyLapse(requestServices.db, requestServices.apiKeys, key, holder, ended.signal);
        },
      };
      const response = await graphql.handleNodeRequestAndResponse(request, reply, context);
      if (request.method !== 'HEAD' && isHtml(response)) {
        // GraphiQL: a page whose inline script the general policy would refuse.
        const page = await response.text();
        reply.code(response.status);
        for (const [name, value] of response.headers) reply.header(name, value);
        return reply.header('content-security-policy', graphiqlPolicy(page)).send(page);
      }
      if (request.method === 'HEAD' || !isWholeJson(response)) return response;
      // A JSON answer is already whole: sent as a string, it skips the stream (and its pipeline)
      // Fastify would send a Response's body through, which costs a trivial query more than its execution.
      reply.code(response.status);
      for (const [name, value] of response.headers) reply.header(name, value);
      // A response cache hit's answer is written as the bytes kept (its text, encoded once);
      // the same request is answered before yoga from now on. Any other as its bytes too:
      // Fastify measures a string (a pass over a dashboard's hundreds of KB) and node:http
      // copies it behind the headers before encoding it; bytes are encoded once, and written
      // beside the headers as they are.
      const kept = cachedHit(context);
      if (kept) cacheHits.learn(route, kept.key, response);
      return reply.send(kept?.bytes ?? Buffer.from(await response.text()));
    };
    // GET /graphql: GraphiQL, queries, SSE subscriptions, and graphql-ws upgrades.
    scope.route({
      url: graphql.graphqlEndpoint,
      method: 'GET',
      handler,
      wsHandler: graphqlWebSocketHandler(graphql, requestServices, operations, {
        rateLimiter,
        slots: subscriptionSlots,
        perConnection: subscriptionLimits.perConnection,
      }),
    });
    scope.route({ url: graphql.graphqlEndpoint, method: ['POST', 'OPTIONS'], handler });
  });
  await registerRestRoutes(app, {
    db: requestServices.db,
    viewers,
    graphql,
    rateLimiter,
    secrets: services.secrets,
    replicas,
  });
  if (services.livekit) await registerLiveKitWebhook(app, services.livekit);
  await registerPages(app);

  registerMetricsRoute(app, services.metrics, metricsToken);

  app.get('/health', { config: unlimited }, async () => ({ status: 'ok' }));

  // Ready when the database answers. Redis is not needed to serve (src/redis/redis-health.ts), nor are read
  // replicas (the primary serves their reads): without them the instance is ready, and says that it runs degraded.
  app.get('/ready', { config: unlimited }, async (_request, reply) => {
    try {
      await ping(db.sql);
    } catch {
      return sendError(reply, 503, 'the database is not reachable');
    }
    const state = (degraded: boolean) => (degraded ? 'degraded' : 'ok');
    return {
      status: 'ready',
      ...(redisHealth ? { redis: state(redisHealth.degraded) } : {}),
      ...(replicas ? { replicas: state(replicas.degraded) } : {}),
    };
  });

  return app;
}
