// A mutation's input is parsed once, by the adapter it came through, and the
// domain takes it parsed: GraphQL's own input by its resolver (renamed to the
// wire names first: src/schema/json-schema-names.ts); a REST body by the
// router, with its route's schema, before it runs the route's operation
// (src/rest/router.ts), which hands the parsed body to the resolver in its
// context. The operation's variables are that body too, which GraphQL still
// checks against its input types; the resolver takes the parsed body instead
// of parsing them again.
import type { z } from 'zod';
import { parseOrThrow } from '../domain/validation.ts';

/** A REST body the router parsed, with the schema that parsed it. */
export interface ParsedBody {
  schema: z.core.$ZodType;
  value: unknown;
}

/**
 * What `schema` makes of the input `given` reads: the REST body the router
 * parsed with this very schema, when the request is one; else `given()`
 * parsed, or the domain's BAD_INPUT naming each offending member.
 */
export function parseOnce<S extends z.ZodType>(
  context: { parsedBody?: ParsedBody },
  schema: S,
  given: () => unknown,
): z.output<S> {
  const parsed = context.parsedBody;
  return parsed?.schema === schema ? (parsed.value as z.output<S>) : parseOrThrow(schema, given());
}
