// GET /openapi.json: an OpenAPI 3.1 document of the REST layer, generated from
// the route table and the same zod schemas that validate its requests.
import { z } from 'zod';
import { REST_PREFIXES, type Route } from './route.ts';

type JsonSchema = Record<string, unknown> & { $defs?: Record<string, unknown> };

const errorBodySchema = {
  type: 'object',
  description:
    'Every failure: 400 bad input (error lists each field path and rule), 401, 404, 409, 413, 415, 429, 503, 500.',
  properties: {
    status: { const: false },
    message: { type: 'string' },
    error: { description: 'Machine-readable detail, or null' },
    data: { type: 'null' },
  },
  required: ['status', 'message', 'error', 'data'],
};

const errorCodes: Record<string, string> = {
  '400': 'Bad input: malformed JSON, or a member out of bounds (each named in `error`)',
  '401': 'No or bad API key',
  '404': "Not found, or not the caller organization's",
  '409': 'State conflict: an illegal status move or a duplicate',
  '413': 'Body too large',
  '415': 'Body is not JSON (nor, on an upload route, its media type)',
  '429': 'Rate limit exceeded; see Retry-After',
  '503': 'The database stayed unavailable through the retries; see Retry-After',
};

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
  const pathParameters = [...`/org/:org_id${route.path}`.matchAll(/:(\w+)/g)].map(([, name]) => ({
    name,
    in: 'path',
    required: true,
    schema: { type: 'string' },
  }));
  const query = route.query ? convert(route.query, 'input') : undefined;
  const queryParameters = Object.entries((query?.properties ?? {}) as Record<string, JsonSchema>).map(
    ([name, schema]) => ({
      name,
      in: 'query',
      required: false,
      schema,
    }),
  );
  return {
    operationId: `${route.method.toLowerCase()}${route.path.replace(/[/:-](\w)/g, (_, letter: string) => letter.toUpperCase())}`,
    summary: route.endpoint ? `${route.endpoint}. ${route.summary}` : route.summary,
    tags: [route.endpoint ? 'SPEC.md' : 'Extensions (DECISIONS.md)'],
    parameters: [...pathParameters, ...queryParameters],
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
        Object.entries(errorCodes).map(([code, description]) => [
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
