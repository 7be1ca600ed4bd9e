// The one place an API key's scopes are enforced (src/key-scopes.ts holds
// what each field needs). Every field the table names checks the caller's
// scopes before its resolver (or a subscription's source) runs, so a refusal
// reads nothing and writes nothing. The REST routes run these same fields
// (src/graphql/run-operation.ts) and so answer the same refusal as a 403.
// The check costs one lookup per root field of an operation: nested fields
// outside the table are not wrapped at all.
import { defaultFieldResolver, type GraphQLFieldResolver, type GraphQLSchema, isObjectType } from 'graphql';
import { forbidden } from '../domain/errors.ts';
import { allows, FIELD_SCOPES } from '../key-scopes.ts';
import type { GraphQLContext } from './context.ts';

/** Refuses a key that holds none of `needs` (FORBIDDEN naming the scope). */
function requireScope(context: GraphQLContext, needs: readonly string[]): void {
  if (!allows(context.apiKey.scopes, needs)) throw forbidden(needs);
}

function guarded(
  resolve: GraphQLFieldResolver<unknown, GraphQLContext>,
  needs: readonly string[],
): GraphQLFieldResolver<unknown, GraphQLContext> {
  return (source, args, context, info) => {
    requireScope(context, needs);
    return resolve(source, args, context, info);
  };
}

/**
 * Wraps every field the table names with its check; throws when a root field
 * (query, mutation, subscription) is missing from the table, or the table
 * names a field the schema does not have.
 */
export function enforceKeyScopes(
  schema: GraphQLSchema,
  table: Record<string, readonly string[]> = FIELD_SCOPES,
): GraphQLSchema {
  const roots = new Set(
    [schema.getQueryType(), schema.getMutationType(), schema.getSubscriptionType()].map((type) => type?.name),
  );
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('__')) continue;
    for (const field of Object.values(type.getFields())) {
      const coordinate = `${type.name}.${field.name}`;
      const needs = table[coordinate];
      if (!needs) {
        if (roots.has(type.name))
          throw new Error(`${coordinate} has no entry in FIELD_SCOPES (src/key-scopes.ts): say which scope it needs`);
        continue;
      }
      if (field.subscribe) field.subscribe = guarded(field.subscribe, needs);
      else field.resolve = guarded(field.resolve ?? defaultFieldResolver, needs);
    }
  }
  for (const coordinate of Object.keys(table)) {
    const [typeName, fieldName] = coordinate.split('.') as [string, string];
    const type = schema.getType(typeName);
    if (!isObjectType(type) || !type.getFields()[fieldName])
      throw new Error(`FIELD_SCOPES names ${coordinate}, which the schema does not have`);
  }
  return schema;
}
