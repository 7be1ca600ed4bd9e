// GET /openapi.json: an OpenAPI 3.1 document of the REST layer, generated from
// the route table and the same zod schemas that validate its requests.
import { z } from 'zod';
import { idempotencyKey } from './idempotency.ts';
import { REST_PREFIXES, type Route, pathParameters as sharedPathParameters } from './route.ts';

type JsonSchema = Record<string, unknown> & { $defs?: Record<string, unknown> };

const errorBodySchema = {
  type: 'object',
  description:
    'Every failure: 400 bad input (error lists each field path and rule), 401, 403 (error names the missing `scope`), 404, 409, 413, 415, 429, 502, 503, 500. Each operation lists the ones it answers.',
  properties: {
    status: { const: false },
    message: { type: 'string' },
    error: { description: 'Machine-readable detail, or null' },
    data: { type: 'null' },
  },
  required: ['status', 'message', 'error', 'data'],
};

/** What every route answers, besides its success. */
const everyRoute: Record<string, string> = {
  '400': 'Bad input: malformed JSON, or a member, query or path parameter out of bounds (each named in `error`)',
  '401': 'No or bad API key, or one revoked or expired',
  '403':
    'The API key lacks the scope the route needs: `error.scope` names it, `error.any_of` every scope that would do',
  '404': "Not found, or not the caller organization's",
  '429': 'Rate limit exceeded; see Retry-After',
  '503': 'The database stayed unavailable through the retries; see Retry-After',
};

/** What a route whose method takes a body answers too, whether it reads one or not. */
const withBody: Record<string, string> = {
  '413': 'Body too large',
  '415': 'Body is not JSON (nor, on an upload route, its media type)',
};

const IDEMPOTENCY_CONFLICT = 'the Idempotency-Key was used with another request, or its request has not completed';

/** The error statuses `route` can answer, each with when. */
function errorStatuses(route: Route): Record<string, string> {
  const create = route.status === 201;
  const conflicts = [route.answers?.[409], create ? IDEMPOTENCY_CONFLICT : undefined].filter(Boolean);
  const statuses: Record<string, string> = {
    ...everyRoute,
    ...(route.method === 'GET' ? {} : withBody),
    ...(conflicts.length > 0 ? { '409': `State conflict: ${conflicts.join('; or ')}` } : {}),
    ...(route.answers?.[502] ? { '502': route.answers[502] } : {}),
  };
  return Object.fromEntries(Object.entries(statuses).sort(([a], [b]) => Number(a) - Number(b)));
}

/** Converts a zod schema, moving its named definitions into components.schemas. */
function converter(components: Record<string, unknown>) {
  return (schema: z.ZodType, io: 'input' | 'output'): JsonSchema => {
    const converted = JSON.stringify(z.toJSONSchema(schema, { io, unrepresentable: 'any' }));
    const {
      $defs,
      $schema: _draft,
      ...rest
    } = JSON.parse(converted.replaceAll('"#/$defs/', '"#/components/schemas/')) as JsonSchema;
    for (const [name, definition] of Object.entries($defs ?? {})) components[name] ??= definition;
    return rest;
  };
}

function operationFor(route: Route, convert: ReturnType<typeof converter>) {
  const pathParameters = [...`/org/:org_id${route.path}`.matchAll(/:(\w+)/g)].map(([, name]) => {
    const schema = route.params?.[name!] ?? sharedPathParameters[name!];
    if (!schema) throw new Error(`${route.method} ${route.path}: no schema for :${name} (route.ts, pathParameters)`);
    const { description, ...converted } = convert(schema, 'input');
    return { name, in: 'path', required: true, description, schema: converted };
  });
  const query = route.query ? convert(route.query, 'input') : undefined;
  const queryParameters = Object.entries((query?.properties ?? {}) as Record<string, JsonSchema>).map(
    ([name, schema]) => ({
      name,
      in: 'query',
      required: false,
      schema,
    }),
  );
  const { description: keyDescription, ...keySchema } = convert(idempotencyKey, 'input');
  const headerParameters =
    route.status === 201
      ? [{ name: 'Idempotency-Key', in: 'header', required: false, description: keyDescription, schema: keySchema }]
      : [];
  return {
    operationId: `${route.method.toLowerCase()}${route.path.replace(/[/:-](\w)/g, (_, letter: string) => letter.toUpperCase())}`,
    summary: route.endpoint ? `${route.endpoint}. ${route.summary}` : route.summary,
    tags: [route.endpoint ? 'SPEC.md' : 'Extensions (DECISIONS.md)'],
    parameters: [...pathParameters, ...queryParameters, ...headerParameters],
    ...(route.body
      ? { requestBody: { required: true, content: { 'application/json': { schema: convert(route.body, 'input') } } } }
      : {}),
    ...(route.upload
      ? {
          requestBody: {
            required: true,
            description: `${route.upload.description} At most ${route.upload.maxBytes} bytes.`,
            content: { [route.upload.contentType]: { schema: { type: 'string' } } },
          },
        }
      : {}),
    responses: {
      [String(route.status ?? 200)]: {
        description: 'Success',
        content: { 'application/json': { schema: convert(route.response, 'output') } },
      },
      ...Object.fromEntries(
        Object.entries(errorStatuses(route)).map(([code, description]) => [
          code,
          { description, content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorBody' } } } },
        ]),
      ),
    },
  };
}

export function openApiDocument(routes: Route[]) {
  const components: Record<string, unknown> = { ErrorBody: errorBodySchema };
  const convert = converter(components);
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const operation = operationFor(route, convert);
    for (const [index, prefix] of REST_PREFIXES.entries()) {
      const path = `${prefix}${route.path}`.replace(/:(\w+)/g, '{$1}');
      paths[path] ??= {};
      // Both prefixes serve the same operation; operation ids must be unique.
      paths[path][route.method.toLowerCase()] =
        index === 0 ? operation : { ...operation, operationId: `${operation.operationId}Api` };
    }
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Agent gateway REST API',
      version: 'devel',
      description: "SPEC.md's interface, served by the gateway on its GraphQL resolvers. Every route needs X-API-Key.",
    },
    servers: [{ url: '/' }],
    security: [{ apiKey: [] }],
    components: {
      securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' } },
      schemas: components,
    },
    paths,
  };
}
