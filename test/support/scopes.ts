// What each REST route and GraphQL operation needs of a key, read from the
// one table (src/key-scopes.ts) through the operation's own fields: the tests
// derive what must be allowed and refused from it, as the schema enforces it.
import { type GraphQLSchema, getNamedType, isObjectType, parse, TypeInfo, visit, visitWithTypeInfo } from 'graphql';
import { allows, FIELD_SCOPES } from '../../src/key-scopes.ts';
import type { Route } from '../../src/rest/route.ts';

/** The scope sets an operation's text needs, one per field of the table it selects (each must be met). */
export function operationNeeds(schema: GraphQLSchema, text: string): (readonly string[])[] {
  const typeInfo = new TypeInfo(schema);
  const needs: (readonly string[])[] = [];
  visit(
    parse(text),
    visitWithTypeInfo(typeInfo, {
      Field(node) {
        const parent = typeInfo.getParentType();
        const named = parent && getNamedType(parent);
        if (!named || !isObjectType(named)) return;
        const found = FIELD_SCOPES[`${named.name}.${node.name.value}`];
        if (found) needs.push(found);
      },
    }),
  );
  return needs;
}

/** The scope sets a route needs: its operation's, or the field it does the work of. */
export function routeNeeds(schema: GraphQLSchema, route: Route): (readonly string[])[] {
  if ('field' in route && route.field) return [FIELD_SCOPES[route.field]!];
  return operationNeeds(schema, (route as { operation: string }).operation);
}

/** Whether a key holding `held` meets every set of `needs`. */
export const allowedWith = (held: readonly string[], needs: (readonly string[])[]) =>
  needs.every((set) => allows(held, set));
