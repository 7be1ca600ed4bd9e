// The REST compatibility layer: each row of the route table becomes a
// Fastify route under /org/{org_id} and /api/org/{org_id}. A request is
// authenticated, checked and validated here, then runs the row's GraphQL
// operation in process through yoga's envelop pipeline (the same plugins,
// context, resolvers and dataloaders as /graphql: src/graphql/run-operation.ts),
// and the result is reshaped into SPEC.md's body.
// Upload rows (a CSV import) hand their body to the domain as a stream
// instead, with the same authentication, tenancy check, Idempotency-Key and
// error body; text rows (GET /workflows/{workflow_id}/runs) write their answer's JSON text themselves.
import { createHash, type Hash } from 'node:crypto';
import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { Viewer } from '../auth/authenticate.ts';
import type { Database } from '../db/database.ts';
import type { ReadReplicas } from '../db/read-replicas.ts';
import { tenantClient } from '../db/tenant.ts';
import { actorOf, recordWrite } from '../domain/audit-log.ts';
import { DomainError, forbidden, httpStatusOf, notFound } from '../domain/errors.ts';
import type { Scope } from '../domain/scope.ts';
import type { SecretBox } from '../domain/secrets.ts';
import { parseOrThrow, refuseUnstorable } from '../domain/validation.ts';
import { type OperationRunner, operationRunner } from '../graphql/run-operation.ts';
import type { GraphQLServer } from '../graphql/yoga.ts';
import { allows, FIELD_SCOPES } from '../key-scopes.ts';
import { sendError } from '../requests/error-body.ts';
import { jsonTextDepth, MAX_JSON_DEPTH } from '../requests/json-depth.ts';
import { type RateLimiter, unlimited } from '../requests/rate-limits.ts';
import type { RequestViewers } from '../requests/request-viewer.ts';
import { INVALID_UTF8, utf8Text } from '../requests/utf8.ts';
import { readingFrom } from '../schema/context.ts';
import { claimIdempotencyKey, openMembers, requestHashOf, sealMembers, validKey } from './idempotency.ts';
import { decodeJsonMembers } from './json-bytes.ts';
import { lingerAfterAnswer } from './lingering-close.ts';
import { openApiDocument } from './openapi.ts';
import {
  type OperationRoute,
  REST_PREFIXES,
  type Route,
  type RouteInput,
  type TextRoute,
  type UploadRoute,
} from './route.ts';
import { routes } from './routes/index.ts';

/** HTTP statuses of the GraphQL error codes an operation can end with. */
const statusOfCode: Record<string, number> = {
  ...httpStatusOf,
  GRAPHQL_VALIDATION_FAILED: 400,
  GRAPHQL_PARSE_FAILED: 400,
};

class OperationFailedError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly detail: unknown,
  ) {
    super(message);
  }
}

async function runOperation(
  run: OperationRunner,
  request: FastifyRequest,
  route: OperationRoute<unknown, unknown>,
  input: RouteInput<unknown, unknown>,
  viewer: Viewer,
) {
  // The mutation takes the body parsed here as its input (src/schema/parsed-input.ts), as the schema it went through makes it.
  const parsedBody = route.body && {
    schema: route.body instanceof z.ZodPipe ? route.body.out : route.body,
    value: input.body,
  };
  const result = await run(route.operation, route.variables(input), {
    viewer,
    audit: request.audit,
    parsedBody,
    consistency: request.consistency,
  });
  const [error] = result.errors ?? [];
  if (error) {
    const { code, detail } = error.extensions as { code?: string; detail?: unknown };
    const status = statusOfCode[code ?? ''] ?? 500;
    throw new OperationFailedError(
      status,
      status === 500 ? 'internal error' : error.message,
      status === 500 ? null : (detail ?? null),
    );
  }
  return result.data;
}

/** Refuses a key without the scope `field` needs, before anything is read or written. */
function refuseMissingScope(viewer: Viewer, field: string) {
  const needs = FIELD_SCOPES[field];
  if (!needs) throw new Error(`${field} is not in FIELD_SCOPES (src/key-scopes.ts)`);
  if (!allows(viewer.scopes, needs)) throw forbidden(needs);
}

/** A checked request, ready to run: what an Idempotency-Key compares of it, and how it is answered. */
interface Prepared {
  identity: unknown;
  respond(): Promise<unknown>;
}

function prepareOperation(
  route: OperationRoute<unknown, unknown>,
  run: OperationRunner,
  request: FastifyRequest,
  viewer: Viewer,
  params: Record<string, string>,
  query: unknown,
): Prepared {
  refuseUnstorable(request.body);
  const input: RouteInput<unknown, unknown> = {
    params,
    query,
    body: route.body
      ? parseOrThrow(
          route.body,
          decodeJsonMembers(request.body, route.jsonMembers?.objects ?? [], route.jsonMembers?.lists ?? []),
        )
      : undefined,
  };
  return {
    // The route and its parameters, not the URL: the same request under either prefix is the same request.
    identity: { params: input.params, body: input.body },
    respond: async () => route.respond(await runOperation(run, request, route, input, viewer), input),
  };
}

/** A body that is JSON text already: sent as it is, not serialized again. */
class JsonText {
  constructor(readonly text: string) {}
}

function prepareText(
  route: TextRoute<unknown>,
  db: Database,
  viewer: Viewer,
  params: Record<string, string>,
  query: unknown,
): Prepared {
  const { organizationId } = viewer;
  const { loaders } = readingFrom(db, organizationId);
  return {
    identity: { params, query },
    respond: async () =>
      new JsonText(await route.answer({ organizationId, sql: db.sql, loaders }, { params, query, body: undefined })),
  };
}

/**
 * Sends `body` with `status`: JSON text as it is (Fastify's own content type for JSON), anything else serialized.
 * The text goes as its bytes, encoded once, as /graphql's answers do (src/http/app.ts): not measured, then copied.
 */
const send = (reply: FastifyReply, status: number, body: unknown) =>
  body instanceof JsonText
    ? reply.code(status).type('application/json; charset=utf-8').send(Buffer.from(body.text))
    : reply.code(status).send(body);

/** The chunks of `body`, each added to `digest` on its way. */
async function* digested(body: AsyncIterable<Uint8Array>, digest: Hash) {
  for await (const chunk of body) {
    digest.update(chunk);
    yield chunk;
  }
}

async function prepareUpload(
  route: UploadRoute<unknown, unknown>,
  db: Database,
  request: FastifyRequest,
  viewer: Viewer,
  params: Record<string, string>,
  query: unknown,
): Promise<Prepared> {
  const { contentType, maxBytes } = route.upload;
  const charset = /;\s*charset="?([^";\s]+)/i.exec(request.headers['content-type'] ?? '')?.[1];
  if (!(request.body instanceof Readable) || (charset && !/^utf-?8$/i.test(charset))) {
    throw new DomainError('UNSUPPORTED_MEDIA_TYPE', `the body must be a ${contentType} file in UTF-8`);
  }
  if (Number(request.headers['content-length']) > maxBytes) {
    throw new DomainError('PAYLOAD_TOO_LARGE', `the body is larger than ${maxBytes} bytes`);
  }
  const scope: Scope = { prisma: tenantClient(db.prisma, viewer.organizationId), viewer };
  const digest = createHash('sha256');
  // Read without destroying the request when the reading stops early: the answer goes out on its socket.
  const body = digested(request.body.iterator({ destroyOnReturn: false }), digest);
  const accepted = await route.read(scope, query, body);
  return {
    // The file by its digest, and the options it was imported with.
    identity: { params, query, body: digest.digest('hex') },
    // A write as the mutation it stands for would be: with its audit event, in its transaction.
    respond: () =>
      recordWrite(
        scope.prisma,
        {
          organizationId: viewer.organizationId,
          actor: actorOf(viewer, request.audit),
          operation: route.field.slice(route.field.indexOf('.') + 1),
        },
        (prisma) => route.write({ ...scope, prisma }, accepted, query),
      ),
  };
}

/** Where a text route (a GET) reads: a replica that has the caller's writes, else the primary. */
async function readsFor(request: FastifyRequest, viewer: Viewer, { db, replicas }: RestDependencies) {
  return (await replicas?.reader(viewer.apiKeyId, request.consistency?.token)) ?? db;
}

function handlerFor(route: Route, dependencies: RestDependencies, run: OperationRunner) {
  const { db, viewers, secrets } = dependencies;
  return async (request: FastifyRequest, reply: FastifyReply) => {
    try {
      const viewer = await viewers(request);
      if (!viewer) {
        return sendError(reply, 401, 'a valid API key is required in the X-API-Key header');
      }
      request.audit.organizationId = viewer.organizationId;
      const params = request.params as Record<string, string>;
      refuseUnstorable(params);
      refuseUnstorable(request.query);
      // Another organization's path reads as missing: nothing about other tenants leaks.
      if (params.org_id !== viewer.organizationId) throw notFound('organization');
      // A route that runs no GraphQL operation checks the scope of the field it does the work of;
      // the others are checked by their operation's fields (src/schema/key-scope-checks.ts).
      if ('field' in route && route.field) refuseMissingScope(viewer, route.field);
      // A route that writes without a GraphQL mutation (an upload) answers its token too (src/requests/consistency.ts).
      if (route.upload && request.consistency) request.consistency.writer = viewer.apiKeyId;
      const query = route.query ? parseOrThrow(route.query, request.query) : {};
      const status = route.status ?? 200;
      const idempotencyKey = request.headers['idempotency-key'];
      const key = status === 201 && idempotencyKey !== undefined ? validKey(idempotencyKey) : undefined;
      const prepared = route.upload
        ? await prepareUpload(route, db, request, viewer, params, query)
        : 'answer' in route
          ? prepareText(route, await readsFor(request, viewer, dependencies), viewer, params, query)
          : prepareOperation(route, run, request, viewer, params, query);
      if (key === undefined) return send(reply, status, await prepared.respond());
      const claim = await claimIdempotencyKey(
        db.prisma,
        viewer.organizationId,
        key,
        requestHashOf(route.method, route.path, prepared.identity),
      );
      const secretMembers = route.secretMembers ?? [];
      if (claim.kind === 'replay') {
        return reply
          .code(claim.status)
          .header('idempotent-replayed', 'true')
          .send(openMembers(claim.body, secretMembers, secrets));
      }
      try {
        const body = await prepared.respond();
        await claim.complete(status, sealMembers(body, secretMembers, secrets));
        return reply.code(status).send(body);
      } catch (error) {
        await claim.abandon();
        throw error;
      }
    } catch (error) {
      if (error instanceof DomainError) return sendError(reply, httpStatusOf[error.kind], error.message, error.detail);
      if (error instanceof OperationFailedError) return sendError(reply, error.status, error.message, error.detail);
      // Anything else is the app's error handler's (src/http/app.ts): a transient database error is a 503 there.
      throw error;
    }
  };
}

export interface RestDependencies {
  db: Database;
  /** Who a request is (its key looked up once, by the rate limiter first: src/requests/request-viewer.ts). */
  viewers: RequestViewers;
  /** Runs the routes' operations (src/graphql/run-operation.ts). */
  graphql: GraphQLServer;
  /** The agent update's own quota. */
  rateLimiter: RateLimiter;
  /** Seals the secrets an answer kept for its Idempotency-Key shows. */
  secrets: SecretBox;
  /** Read replicas for the text routes' reads (the operations' are chosen in src/graphql/use-read-replicas.ts). */
  replicas?: ReadReplicas;
}

export async function registerRestRoutes(app: FastifyInstance, dependencies: RestDependencies) {
  const document = openApiDocument(routes);
  app.get('/openapi.json', { config: unlimited }, async () => document);
  const agentUpdateQuota = dependencies.rateLimiter.agentUpdate;
  const run = operationRunner(dependencies.graphql);
  const register = (scope: FastifyInstance, route: Route) => {
    for (const prefix of REST_PREFIXES) {
      scope.route({
        method: route.method,
        url: `${prefix}${route.path}`,
        bodyLimit: route.upload ? undefined : route.bodyLimit,
        ...(route.quota === 'agentUpdate' ? { config: unlimited, onRequest: agentUpdateQuota } : {}),
        handler: handlerFor(route, dependencies, run),
      });
    }
  };
  // The plugins are named: their names are the route handlers' span names in traces (`handler - jsonRoutes`).
  await app.register(async function jsonRoutes(scope) {
    // SPEC.md's interface is JSON only: any other body is a 415. JSON is
    // parsed as Fastify does (prototype keys refused), after a UTF-8 and a nesting check.
    scope.removeContentTypeParser(['text/plain', 'application/json']);
    const parseJson = scope.getDefaultJsonParser('error', 'error');
    const refuse = (message: string) => Object.assign(new Error(message), { statusCode: 400 });
    scope.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, bytes, done) => {
      const text = utf8Text(bytes as Buffer);
      if (text === null) return done(refuse(INVALID_UTF8), undefined);
      if (jsonTextDepth(text) > MAX_JSON_DEPTH)
        return done(refuse(`the body nests deeper than ${MAX_JSON_DEPTH} levels`), undefined);
      parseJson(request, text, done);
    });
    for (const route of routes) if (!route.upload) register(scope, route);
  });
  await app.register(async function uploadRoutes(scope) {
    // Upload routes take their one media type, handed to the route as the
    // request's stream: read as it arrives, never buffered whole here.
    scope.removeAllContentTypeParsers();
    const uploads = routes.filter((route) => route.upload);
    for (const contentType of new Set(uploads.map((route) => route.upload!.contentType))) {
      scope.addContentTypeParser(contentType, (_request, payload, done) => done(null, payload));
    }
    // An answer given before the body was read to its end (a refusal) closes
    // the connection, rather than reading the rest of the upload through: after
    // a short linger (lingering-close.ts), so that the client reads the answer.
    scope.addHook('onSend', async (request, reply) => {
      if (request.raw.readableEnded) return;
      reply.header('connection', 'close');
      lingerAfterAnswer(request.raw);
    });
    for (const route of uploads) register(scope, route);
  });
}
