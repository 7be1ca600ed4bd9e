// Renaming between the wire (snake_case) names a zod schema's stored values
// keep and GraphQL's camelCase, walked over the schema's JSON Schema. The REST
// layer renames its bodies with it (src/rest/routes/) without loading the
// GraphQL types built from the same schemas (src/schema/json-schema-types.ts).
import { z } from 'zod';
import { camelCase } from '../records/names.ts';

export interface JsonSchema {
  type?: string | string[];
  $ref?: string;
  anyOf?: JsonSchema[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  enum?: unknown[];
  additionalProperties?: boolean | JsonSchema;
  description?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  default?: unknown;
  $defs?: Record<string, JsonSchema>;
}

export const unwrap = (schema: JsonSchema): { schema: JsonSchema; nullable: boolean } => {
  // z.number().nullable() without a description of its own: `type: ['number', 'null']`.
  if (Array.isArray(schema.type)) {
    const types = schema.type.filter((type) => type !== 'null');
    if (types.length === 1)
      return { schema: { ...schema, type: types[0] }, nullable: types.length < schema.type.length };
  }
  if (schema.anyOf) {
    const nonNull = schema.anyOf.filter((member) => member.type !== 'null');
    if (nonNull.length === 1) return { schema: nonNull[0]!, nullable: nonNull.length < schema.anyOf.length };
  }
  return { schema, nullable: false };
};

export const refName = (schema: JsonSchema): string | undefined => schema.$ref?.replace('#/$defs/', '');

/** A zod object schema with a `.meta({ id })` as JSON Schema: its definitions, and the root's name among them. */
export function namedJsonSchema(schema: z.ZodType): {
  json: JsonSchema;
  rootName: string;
  defs: Record<string, JsonSchema>;
} {
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
  const rootName = json.$ref ? refName(json) : undefined;
  if (!rootName || !json.$defs) throw new Error('a schema with .meta({ id }) is needed');
  return { json, rootName, defs: json.$defs };
}

type Direction = 'toStored' | 'toInput';

/**
 * Renames the members of a value the schema describes, recursively, leaving
 * free-form (JSON) members untouched: GraphQL input (camelCase) to the
 * stored wire names, or back.
 */
function rename(defs: Record<string, JsonSchema>, schema: JsonSchema, value: unknown, direction: Direction): unknown {
  if (value === null || value === undefined) return value;
  const { schema: member } = unwrap(schema);
  const ref = refName(member);
  const target = ref ? defs[ref]! : member;
  if (target.type === 'array' && Array.isArray(value)) {
    return value.map((item) => rename(defs, target.items ?? {}, item, direction));
  }
  if (target.type !== 'object' || !target.properties || typeof value !== 'object' || Array.isArray(value)) return value;
  const renamed: Record<string, unknown> = {};
  for (const [wireName, property] of Object.entries(target.properties)) {
    const [from, to] = direction === 'toStored' ? [camelCase(wireName), wireName] : [wireName, camelCase(wireName)];
    const given = (value as Record<string, unknown>)[from];
    if (given === undefined) continue;
    // An explicit null is kept only where the schema gives null a meaning (clearing a config object).
    if (given === null && !unwrap(property).nullable) continue;
    renamed[to] = rename(defs, property, given, direction);
  }
  return renamed;
}

export interface WireNames<T> {
  /** GraphQL input (camelCase) to the stored shape (wire names), not yet validated. */
  toStored(value: unknown): unknown;
  /** A stored-shape value (wire names, as REST bodies have) to GraphQL input (camelCase). */
  toInput(value: T | unknown): Record<string, unknown>;
}

/** The renaming both ways for a zod object schema that has a `.meta({ id })`. */
export function wireNames<T>(schema: z.ZodType<T>): WireNames<T> {
  const { json, defs } = namedJsonSchema(schema);
  return {
    toStored: (value) => rename(defs, json, value, 'toStored'),
    toInput: (value) => rename(defs, json, value, 'toInput') as Record<string, unknown>,
  };
}
