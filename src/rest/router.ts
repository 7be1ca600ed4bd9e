// The REST compatibility layer: each row of the route table becomes a
// Fastify route under /org/{org_id} and /api/org/{org_id}. A request is
// authenticated, checked and validated here, then runs the row's GraphQL
// operation through yoga (the same plugins, context, resolvers and
// dataloaders as /graphql), and the result is reshaped into SPEC.md's body.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Database } from '../db/database.ts';
import { DomainError, httpStatusOf, notFound } from '../domain/errors.ts';
import { authenticate, type Viewer } from '../domain/organizations.ts';
import { parseOrThrow, refuseUnstorable } from '../domain/validation.ts';
import { operationHash } from '../graphql/protections.ts';
import type { GraphQLServer } from '../graphql/yoga.ts';
import { sendError } from '../http/errors.ts';
import { MAX_JSON_DEPTH, jsonTextDepth } from '../http/json-depth.ts';
import { agentUpdateLimiter, type RateLimits, unlimited } from '../http/rate-limits.ts';
import { INVALID_UTF8, utf8Text } from '../http/utf8.ts';
import { claimIdempotencyKey, requestHashOf, validKey } from './idempotency.ts';
import { decodeJsonMembers } from './json-bytes.ts';
import { openApiDocument } from './openapi.ts';
import { REST_PREFIXES, type Route, type RouteInput } from './route.ts';
import { routes } from './routes/index.ts';

/** HTTP statuses of the GraphQL error codes an operation can end with. */
const statusOfCode: Record<string, number> = {
  ...httpStatusOf,
  BAD_USER_INPUT: 400,
  GRAPHQL_VALIDATION_FAILED: 400,
  GRAPHQL_PARSE_FAILED: 400,
};

interface GraphQLErrorJson {
  message: string;
  extensions?: { code?: string; detail?: unknown };
}

class OperationFailed extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly detail: unknown,
  ) {
    super(message);
  }
}

async function runOperation(graphql: GraphQLServer, request: FastifyRequest, route: Route, input: RouteInput, viewer: Viewer) {
  const response = await graphql.fetch(
    'http://gateway.internal/graphql',
    {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/graphql-response+json',
        'x-api-key': String(request.headers['x-api-key'] ?? ''),
        'x-request-id': request.id,
      },
      // The operation travels as a persisted one (its hash): it runs even where only persisted operations may.
      body: JSON.stringify({
        extensions: { persistedQuery: { version: 1, sha256Hash: operationHash(route.operation) } },
        variables: route.variables(input),
      }),
    },
    { viewer, audit: request.audit },
  );
  const result = (await response.json()) as { data?: unknown; errors?: GraphQLErrorJson[] };
  const [error] = result.errors ?? [];
  if (error) {
    const status = statusOfCode[error.extensions?.code ?? ''] ?? 500;
    throw new OperationFailed(status, status === 500 ? 'internal error' : error.message, status === 500 ? null : (error.extensions?.detail ?? null));
  }
  return result.data;
}

function handlerFor(route: Route, db: Database, graphql: GraphQLServer) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    try {
      const viewer = await authenticate(db, request.headers['x-api-key'] as string | undefined);
      if (!viewer) {
        return sendError(reply, 401, 'a valid API key is required in the X-API-Key header');
      }
      request.audit.organizationId = viewer.organizationId;
      const params = request.params as Record<string, string>;
      refuseUnstorable(params);
      refuseUnstorable(request.query);
      refuseUnstorable(request.body);
      // Another organization's path reads as missing: nothing about other tenants leaks.
      if (params.org_id !== viewer.organizationId) throw notFound('organization');
      const input: RouteInput = {
        params,
        query: route.query ? parseOrThrow(route.query, request.query) : {},
        body: route.body
          ? parseOrThrow(
              route.body,
              decodeJsonMembers(request.body, route.jsonMembers?.objects ?? [], route.jsonMembers?.lists ?? []),
            )
          : undefined,
      };
      const status = route.status ?? 200;
      const idempotencyKey = request.headers['idempotency-key'];
      if (status !== 201 || idempotencyKey === undefined) {
        return reply.code(status).send(route.respond(await runOperation(graphql, request, route, input, viewer), input));
      }
      const claim = await claimIdempotencyKey(
        db.prisma,
        viewer.organizationId,
        validKey(idempotencyKey),
        // The route and its parameters, not the URL: the same request under either prefix is the same request.
        requestHashOf(route.method, route.path, { params: input.params, body: input.body }),
      );
      if (claim.kind === 'replay') return reply.code(claim.status).header('idempotent-replayed', 'true').send(claim.body);
      try {
        const body = route.respond(await runOperation(graphql, request, route, input, viewer), input);
        await claim.complete(status, body);
        return reply.code(status).send(body);
      } catch (error) {
        await claim.abandon();
        throw error;
      }
    } catch (error) {
      if (error instanceof DomainError) return sendError(reply, httpStatusOf[error.kind], error.message, error.detail);
      if (error instanceof OperationFailed) return sendError(reply, error.status, error.message, error.detail);
      // Anything else is the app's error handler's (src/http/app.ts): a transient database error is a 503 there.
      throw error;
    }
  };
}

export interface RestDependencies {
  db: Database;
  graphql: GraphQLServer;
  rateLimits: RateLimits;
}

export async function registerRestRoutes(app: FastifyInstance, { db, graphql, rateLimits }: RestDependencies) {
  const document = openApiDocument(routes);
  app.get('/openapi.json', { config: unlimited }, async () => document);
  const agentUpdateQuota = agentUpdateLimiter(app, rateLimits);
  await app.register(async (scope) => {
    // SPEC.md's interface is JSON only: any other body is a 415. JSON is
    // parsed as Fastify does (prototype keys refused), after a UTF-8 and a nesting check.
    scope.removeContentTypeParser(['text/plain', 'application/json']);
    const parseJson = scope.getDefaultJsonParser('error', 'error');
    const refuse = (message: string) => Object.assign(new Error(message), { statusCode: 400 });
    scope.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, bytes, done) => {
      const text = utf8Text(bytes as Buffer);
      if (text === null) return done(refuse(INVALID_UTF8), undefined);
      if (jsonTextDepth(text) > MAX_JSON_DEPTH) return done(refuse(`the body nests deeper than ${MAX_JSON_DEPTH} levels`), undefined);
      parseJson(request, text, done);
    });
    for (const route of routes) {
      for (const prefix of REST_PREFIXES) {
        scope.route({
          method: route.method,
          url: `${prefix}${route.path}`,
          bodyLimit: route.bodyLimit,
          ...(route.quota === 'agentUpdate' ? { config: unlimited, onRequest: agentUpdateQuota } : {}),
          handler: handlerFor(route, db, graphql),
        });
      }
    }
  });
}
