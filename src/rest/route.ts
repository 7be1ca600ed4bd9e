// What a REST route is: a row of the table in src/rest/routes/. The router
// (src/rest/router.ts) does the rest the same way for every row.
import { z } from 'zod';
import { cursorBefore, MAX_PAGE_SIZE } from '../schema/pagination.ts';

/** Every route answers under both (DECISIONS.md). */
export const REST_PREFIXES = ['/org/:org_id', '/api/org/:org_id'];

export interface RouteInput<Query = any, Body = any> {
  params: Record<string, string>;
  query: Query;
  body: Body;
}

export interface Route<Query = any, Body = any> {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** Below `/org/{org_id}` (and `/api/org/{org_id}`), with `:name` parameters. */
  path: string;
  /** SPEC.md's endpoint (E1…E21), or null for DECISIONS.md's extensions. */
  endpoint: string | null;
  summary: string;
  /** The GraphQL operation the route runs, with its fragments. */
  operation: string;
  query?: z.ZodType<Query>;
  body?: z.ZodType<Body>;
  /** Members sent as JSON or UTF-8 JSON bytes: objects, and lists (see json-bytes.ts). */
  jsonMembers?: { objects: string[]; lists?: string[] };
  bodyLimit?: number;
  /** Success status: 201 for creates, 200 otherwise. */
  status?: 200 | 201;
  /** The rate-limit quota the route counts against (`default` unless named). */
  quota?: 'default' | 'agentUpdate';
  variables(input: RouteInput<Query, Body>): Record<string, unknown>;
  /** The response body, from the operation's data; throws the domain's errors (e.g. notFound). */
  respond(data: any, input: RouteInput<Query, Body>): unknown;
  /** The response body's JSON Schema, for the OpenAPI document. */
  response: z.ZodType;
}

export const defineRoutes = <T extends Route[]>(...routes: T) => routes;

const MAX_PAGE = 1_000_000;

const pageNumber = () => z.coerce.number().int().min(1).max(MAX_PAGE).default(1);
const pageSize = () => z.coerce.number().int().min(1).max(MAX_PAGE_SIZE).default(20);

/** `page` and `limit` (envelope A: runs, batches). */
export const pageLimitQuery = z.object({ page: pageNumber(), limit: pageSize() });
/** `page` and `size` (envelope B: versions, evaluations, agents). */
export const pageSizeQuery = z.object({ page: pageNumber(), size: pageSize() });

/** The connection arguments that select page `page` of `size` items. */
export const pageArgs = (page: number, size: number) => ({ first: size, after: cursorBefore((page - 1) * size) });

export interface Listed<T> {
  totalCount: number;
  nodes: T[];
}

const totalPages = (total: number, size: number) => Math.ceil(total / size);

export const envelopeA = <T>(list: Listed<T>, page: number, limit: number, present: (node: T) => unknown) => ({
  data: list.nodes.map(present),
  pagination: { page, limit, total: list.totalCount, total_pages: totalPages(list.totalCount, limit) },
});

export const envelopeB = <T>(list: Listed<T>, page: number, size: number, present: (node: T) => unknown) => ({
  data: list.nodes.map(present),
  meta: { page, size, total: list.totalCount, total_pages: totalPages(list.totalCount, size) },
});

const counters = { page: z.number().int(), total: z.number().int(), total_pages: z.number().int() };

export const envelopeASchema = (item: z.ZodType) =>
  z.object({ data: z.array(item), pagination: z.object({ ...counters, limit: z.number().int() }) });
export const envelopeBSchema = (item: z.ZodType) =>
  z.object({ data: z.array(item), meta: z.object({ ...counters, size: z.number().int() }) });

/** DECISIONS.md's generic response body (E21). */
export const genericBody = (message: string, data: unknown) => ({ status: true, message, data, error: null });
export const genericBodySchema = (data: z.ZodType) =>
  z.object({ status: z.literal(true), message: z.string(), data, error: z.null() });
