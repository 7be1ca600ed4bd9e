// GraphQL types generated from the domain's zod schemas (through their JSON
// Schema), so a configuration object is defined once: the same definition
// validates input, shapes the GraphQL object and input types, and documents
// the REST API. Stored values keep the wire (snake_case) names; GraphQL fields
// are their camelCase, and `toStored` maps GraphQL input back (src/schema/json-schema-names.ts).
import type { z } from 'zod';
import { camelCase } from '../records/names.ts';
import { INT_MAX } from '../records/values.ts';
import { builder } from './builder.ts';
import { type JsonSchema, namedJsonSchema, refName, unwrap, type WireNames, wireNames } from './json-schema-names.ts';
import { type ParsedBody, parseOnce } from './parsed-input.ts';
import { sqlField } from './sql-fields.ts';

type OutputRef = ReturnType<typeof builder.objectRef<Record<string, unknown>>>;
type InputRef = ReturnType<typeof builder.inputRef<Record<string, unknown>>>;
type TypeName = string | OutputRef | InputRef;

interface Generated {
  output(): OutputRef;
  input(): InputRef;
}

const generated = new Map<string, Generated>();

const plural = (count: number, noun: string) => `${count} ${noun}${count === 1 ? '' : 's'}`;

/**
 * A member's description: its zod `.meta({ description })` (on the member or,
 * for a nullable one, on what it wraps), then what its schema says of its
 * values: allowed values, bounds, lengths, item counts and default. The same
 * schema feeds the OpenAPI document, so the two say the same.
 */
function describe(member: JsonSchema, wrapped: JsonSchema = member): string | undefined {
  const parts: string[] = [];
  if (wrapped.enum) parts.push(`one of ${wrapped.enum.map((value) => `\`${value}\``).join(', ')}`);
  const { minimum: min, maximum } = wrapped;
  const max = maximum !== undefined && maximum < INT_MAX ? maximum : undefined;
  if (min !== undefined && max !== undefined) parts.push(`${min} to ${max}`);
  else if (min !== undefined && min > -INT_MAX) parts.push(`>= ${min}`);
  else if (max !== undefined) parts.push(`<= ${max}`);
  const { minLength, maxLength, minItems, maxItems } = wrapped;
  if (minLength !== undefined && maxLength !== undefined) parts.push(`${minLength} to ${maxLength} characters`);
  else if (maxLength !== undefined) parts.push(`at most ${plural(maxLength, 'character')}`);
  else if (minLength) parts.push(minLength === 1 ? 'not empty' : `at least ${plural(minLength, 'character')}`);
  if (minItems && maxItems !== undefined) parts.push(`${minItems} to ${maxItems} items`);
  else if (minItems) parts.push(`at least ${plural(minItems, 'item')}`);
  else if (maxItems !== undefined) parts.push(`at most ${plural(maxItems, 'item')}`);
  const fallback = member.default ?? wrapped.default;
  if (fallback !== undefined) parts.push(`default \`${JSON.stringify(fallback)}\``);
  const text = [member.description ?? wrapped.description, parts.join('; ')].filter(Boolean).join(' ');
  return text ? text.charAt(0).toUpperCase() + text.slice(1) : undefined;
}

class Generator {
  constructor(private readonly defs: Record<string, JsonSchema>) {}

  /** A member's description; a member that is a named object without one of its own takes that object's. */
  private describeMember(member: JsonSchema): string | undefined {
    const { schema: wrapped } = unwrap(member);
    const ref = refName(wrapped);
    const own = describe(member, wrapped);
    return own ?? (ref ? this.defs[ref]?.description : undefined);
  }

  /** The GraphQL type of a member: a scalar, JSON, a generated object, or a list of one of those. */
  typeOf(schema: JsonSchema, kind: 'output' | 'input'): { type: TypeName; list: boolean } {
    const { schema: member } = unwrap(schema);
    const ref = refName(member);
    if (ref) return { type: this.named(ref)[kind](), list: false };
    switch (member.type) {
      case 'string':
        return { type: 'String', list: false };
      case 'integer':
        return { type: 'Int', list: false };
      case 'number':
        return { type: 'Float', list: false };
      case 'boolean':
        return { type: 'Boolean', list: false };
      case 'array':
        return { type: this.typeOf(member.items ?? {}, kind).type, list: true };
      default:
        return { type: 'JSON', list: false };
    }
  }

  named(name: string): Generated {
    const existing = generated.get(name);
    if (existing) return existing;
    const definition = this.defs[name];
    if (!definition?.properties) throw new Error(`no object schema named ${name}`);
    const properties = Object.entries(definition.properties);
    const required = new Set(definition.required ?? []);
    let output: OutputRef | undefined;
    let input: InputRef | undefined;
    // Each side is built on first use, so a schema used only as input adds no
    // object type; refs are cached before their fields are built, so recursive
    // members (fallbacks) find them.
    const entry: Generated = {
      output: () => {
        if (output) return output;
        output = builder.objectRef<Record<string, unknown>>(name);
        output.implement({
          description: definition.description,
          fields: (t) => ({
            // GraphQL selections have a fixed depth; recursive members (fallbacks)
            // can nest deeper, so the whole value is also readable at once.
            json: t.field({
              type: 'JSON',
              description: 'This object as one JSON value with the REST wire names, fallbacks at any depth.',
              resolve: (parent) => parent,
            }),
            ...Object.fromEntries(
              properties.map(([wireName, member]) => {
                const { type, list } = this.typeOf(member, 'output');
                return [
                  camelCase(wireName),
                  t.field({
                    type: (list ? [type] : type) as never,
                    nullable: !required.has(wireName) || unwrap(member).nullable,
                    description: this.describeMember(member),
                    extensions: sqlField({ member: wireName }),
                    resolve: (parent) => parent[wireName] as never,
                  }),
                ];
              }),
            ),
          }),
        });
        return output;
      },
      input: () => {
        if (input) return input;
        input = builder.inputRef<Record<string, unknown>>(`${name}Input`);
        input.implement({
          description: definition.description,
          fields: (t) =>
            Object.fromEntries(
              properties.map(([wireName, member]) => {
                const { type, list } = this.typeOf(member, 'input');
                const { maxItems } = unwrap(member).schema;
                return [
                  camelCase(wireName),
                  t.field({
                    type: (list ? [type] : type) as never,
                    required: required.has(wireName),
                    description: this.describeMember(member),
                    // A list's own bound, which parsing the input enforces (src/graphql/operation-cost.ts leaves it to it).
                    ...(list && maxItems !== undefined ? { extensions: { maxItems } } : {}),
                  }),
                ];
              }),
            ),
        });
        return input;
      },
    };
    generated.set(name, entry);
    return entry;
  }
}

export interface SchemaTypes<T> extends WireNames<T> {
  /** The schema's own description (its `.meta({ description })`). */
  description: string | undefined;
  /** A mutation's input (GraphQL's, camelCase) as the domain takes it: parsed once (src/schema/parsed-input.ts). */
  parse(context: { parsedBody?: ParsedBody }, input: unknown): T;
  /** The GraphQL object type (named as the schema's id), built on first call. */
  output(): OutputRef;
  /** The GraphQL input type (the id + `Input`), built on first call. */
  input(): InputRef;
}

/** The GraphQL object and input types for a zod object schema that has a `.meta({ id })`. */
export function typesFromSchema<T>(schema: z.ZodType<T>): SchemaTypes<T> {
  const { rootName, defs } = namedJsonSchema(schema);
  const { output, input } = new Generator(defs).named(rootName);
  const names = wireNames(schema);
  return {
    description: defs[rootName]?.description,
    output,
    input,
    parse: (context, given) => parseOnce(context, schema, () => names.toStored(given)),
    ...names,
  };
}
