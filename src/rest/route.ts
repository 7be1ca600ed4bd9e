// What a REST route is: a row of the table in src/rest/routes/. The router
// (src/rest/router.ts) does the rest the same way for every row.
import { z } from 'zod';
import type { SqlQueryable } from '../db/database.ts';
import { notFound } from '../domain/errors.ts';
import type { Scope } from '../domain/scope.ts';
import type { Loaders } from '../schema/loaders.ts';
import { cursorBefore, MAX_PAGE_SIZE } from '../schema/pagination.ts';

/** Every route answers under both (DECISIONS.md). */
export const REST_PREFIXES = ['/org/:org_id', '/api/org/:org_id'];

/** A route without a query schema gets `{}` as its query; without a body schema, no body. */
export interface RouteInput<Query = Record<string, never>, Body = undefined> {
  params: Record<string, string>;
  query: Query;
  body: Body;
}

interface RouteBase<Query> {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** Below `/org/{org_id}` (and `/api/org/{org_id}`), with `:name` parameters. */
  path: string;
  /** SPEC.md's endpoint (E1…E21), or null for DECISIONS.md's extensions. */
  endpoint: string | null;
  summary: string;
  query?: z.ZodType<Query>;
  /** Success status: 201 for creates, 200 otherwise. */
  status?: 200 | 201;
  /**
   * Members of a create's answer that are secrets (a webhook endpoint's `secret`): the answer kept for
   * its Idempotency-Key holds them sealed (src/rest/idempotency.ts), and a replay opens them.
   */
  secretMembers?: string[];
  /** The rate-limit quota the route counts against (`default` unless named). */
  quota?: 'default' | 'agentUpdate';
  /** Its path parameters' schemas, for the OpenAPI document, where `pathParameters` names none (`:id`, `:slug`). */
  params?: Record<string, z.ZodType>;
  /**
   * The statuses it answers beyond every route's, each with when: 409 (a
   * create's Idempotency-Key conflicts are every create's), 502 (a service the
   * route calls refused). Every route answers 400, 401, 404, 429 and 503; one
   * whose method takes a body 413 and 415 too.
   */
  answers?: { 409?: string; 502?: string };
  /** The response body's JSON Schema, for the OpenAPI document. */
  response: z.ZodType;
}

/** A route that runs a GraphQL operation on a JSON body (or none). */
export interface OperationRoute<Query = Record<string, never>, Body = undefined> extends RouteBase<Query> {
  /** The GraphQL operation the route runs, with its fragments. */
  operation: string;
  body?: z.ZodType<Body>;
  /** Members sent as JSON or UTF-8 JSON bytes: objects, and lists (see json-bytes.ts). */
  jsonMembers?: { objects: string[]; lists?: string[] };
  bodyLimit?: number;
  variables(input: RouteInput<Query, Body>): Record<string, unknown>;
  /** The response body, from the operation's data; throws the domain's errors (e.g. notFound). */
  // biome-ignore lint/suspicious/noExplicitAny: the operation is a string, so its data has no static type
  respond(data: any, input: RouteInput<Query, Body>): unknown;
  upload?: never;
}

/**
 * A route whose body is a file of another media type (a CSV import), read
 * as it arrives instead of parsed whole: the domain reads it, then writes
 * what it accepted. In between, the router claims the Idempotency-Key (the
 * file's digest is part of the request it names).
 */
export interface UploadRoute<Query = Record<string, never>, Accepted = undefined> extends RouteBase<Query> {
  upload: {
    /** The media type the body must have (`text/csv`). */
    contentType: string;
    /** The body's description in the OpenAPI document. */
    description: string;
    maxBytes: number;
  };
  /** The GraphQL field it does the work of, whose scope it needs (src/key-scopes.ts): the router checks it first. */
  field: string;
  /** Checks the query and reads the whole body, writing nothing. */
  read(scope: Scope, query: Query, body: AsyncIterable<Uint8Array>): Promise<Accepted>;
  /** Writes what `read` accepted; returns the response body. */
  write(scope: Scope, accepted: Accepted, query: Query): Promise<unknown>;
  operation?: never;
  body?: never;
}

/** What a text route reads with: the caller's organization, the database, this request's dataloaders. */
interface ReadScope {
  organizationId: string;
  sql: SqlQueryable;
  loaders: Loaders;
}

/**
 * A read answered without a GraphQL operation: the route writes the body's
 * JSON text itself, from text the database wrote in the answer's shape (the runs listing's
 * runs), which Node.js neither parses nor walks; the router sends it as it is.
 */
export interface TextRoute<Query = Record<string, never>> extends RouteBase<Query> {
  method: 'GET';
  status?: 200;
  /** The GraphQL field it reads as, whose scope it needs (src/key-scopes.ts): the router checks it first. */
  field: string;
  /** The response body as JSON text; throws the domain's errors (e.g. notFound). */
  answer(scope: ReadScope, input: RouteInput<Query>): Promise<string>;
  operation?: never;
  upload?: never;
  body?: never;
  bodyLimit?: never;
}

/** A row of the table, as the router reads it: each row's own types are checked where it is defined. */
export type Route = OperationRoute<unknown, unknown> | UploadRoute<unknown, unknown> | TextRoute<unknown>;

/** A row that runs an operation, its query and body typed by its schemas. */
export const operationRoute = <Query = Record<string, never>, Body = undefined>(route: OperationRoute<Query, Body>) =>
  route;

/** A row that reads an uploaded file, its query typed by its schema. */
export const uploadRoute = <Query = Record<string, never>, Accepted = undefined>(route: UploadRoute<Query, Accepted>) =>
  route;

/** A row answered as JSON text, its query typed by its schema. */
export const textRoute = <Query = Record<string, never>>(route: TextRoute<Query>) => route;

/** An id path parameter: the prefix of the ids of its type, then 32 hex digits. */
export const idParameter = (prefix: string) =>
  z
    .string()
    .regex(new RegExp(`^${prefix}_[0-9a-f]{32}$`))
    .meta({ description: `\`${prefix}_…\`` });

/** The path parameters named alike on every route that has them; a route declares its others (`params`). */
export const pathParameters: Record<string, z.ZodType> = {
  org_id: idParameter('org'),
  agent_id: idParameter('agt'),
  workflow_id: idParameter('wf'),
  batch_id: idParameter('bat'),
  run_id: idParameter('run'),
  prospect_id: idParameter('prs'),
};

/** What an operation found, or a 404 naming `what` when it found nothing (null: missing, or another tenant's). */
export const found = <T>(value: T | null | undefined, what: string): T => {
  if (value === null || value === undefined) throw notFound(what);
  return value;
};

const MAX_PAGE = 1_000_000;

const pageNumber = () => z.coerce.number().int().min(1).max(MAX_PAGE).default(1);
const pageSize = () => z.coerce.number().int().min(1).max(MAX_PAGE_SIZE).default(20);

/** `page` and `limit` (envelope A: runs, batches). */
export const pageLimitQuery = z.object({ page: pageNumber(), limit: pageSize() });
/** `page` and `limit`, 100 by default: the lists answered as `{ data }` (DECISIONS.md). */
export const dataListQuery = pageLimitQuery.extend({ limit: pageSize().unwrap().default(MAX_PAGE_SIZE) });
/** `page` and `size` (envelope B: versions, evaluations, agents). */
export const pageSizeQuery = z.object({ page: pageNumber(), size: pageSize() });

/** The connection arguments that select page `page` of `size` items. */
export const pageArgs = (page: number, size: number) => ({ first: size, after: cursorBefore((page - 1) * size) });

export interface Listed<T> {
  totalCount: number;
  nodes: T[];
}

const totalPages = (total: number, size: number) => Math.ceil(total / size);

const paginationMember = (page: number, limit: number, total: number) => ({
  page,
  limit,
  total,
  total_pages: totalPages(total, limit),
});

/** SPEC.md's Envelope A: `data` and `pagination` (`page`, `limit`, `total`, `total_pages`). */
export const paginationEnvelope = <T>(list: Listed<T>, page: number, limit: number, present: (node: T) => unknown) => ({
  data: list.nodes.map(present),
  pagination: paginationMember(page, limit, list.totalCount),
});

/** paginationEnvelope's JSON text, around `items`: the JSON text of its `data` members, comma-separated. */
export const paginationEnvelopeText = (items: string, page: number, limit: number, total: number) =>
  `{"data":[${items}],"pagination":${JSON.stringify(paginationMember(page, limit, total))}}`;

/** SPEC.md's Envelope B: `data` and `meta` (`page`, `size`, `total`, `total_pages`). */
export const metaEnvelope = <T>(list: Listed<T>, page: number, size: number, present: (node: T) => unknown) => ({
  data: list.nodes.map(present),
  meta: { page, size, total: list.totalCount, total_pages: totalPages(list.totalCount, size) },
});

const counters = { page: z.number().int(), total: z.number().int(), total_pages: z.number().int() };

export const paginationEnvelopeSchema = (item: z.ZodType) =>
  z.object({ data: z.array(item), pagination: z.object({ ...counters, limit: z.number().int() }) });
export const metaEnvelopeSchema = (item: z.ZodType) =>
  z.object({ data: z.array(item), meta: z.object({ ...counters, size: z.number().int() }) });

/** DECISIONS.md's generic response body (POST /prospects/{prospect_id}/tags). */
export const genericBody = (message: string, data: unknown) => ({ status: true, message, data, error: null });
export const genericBodySchema = (data: z.ZodType) =>
  z.object({ status: z.literal(true), message: z.string(), data, error: z.null() });
