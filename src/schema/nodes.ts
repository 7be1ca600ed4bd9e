// `node(id:)` and `nodes(ids:)`: objects of any types by their global ids, read
// in one statement per type (Relay's default reads one row per id), through the
// client confined to the caller's organization, so an id of another
// organization's object, or of none, reads as null. So does an object whose
// type needs a scope the key lacks (an API key without `keys:admin`:
// NODE_TYPE_SCOPES in src/key-scopes.ts).
import { brandWithType } from '@pothos/core';
import { queryFromInfo } from '@pothos/plugin-prisma';
import type { GraphQLResolveInfo } from 'graphql';
import { allows, NODE_TYPE_SCOPES } from '../key-scopes.ts';
import type { GraphQLContext } from './context.ts';
import { primaryKeyOf } from './global-ids.ts';

interface NodeId {
  typename: string;
  id: string;
}

/** A model of the tenant client, as this file reads it. */
interface NodeModel {
  findMany(query: object): Promise<{ id: string | number }[]>;
}

/** The Prisma model behind a node type (Pothos's plugin-prisma notes it on the type). */
export type ModelOfType = (typename: string) => string;

const delegateOf = (context: GraphQLContext, model: string) =>
  (context.db as unknown as Record<string, NodeModel>)[model.charAt(0).toLowerCase() + model.slice(1)]!;

/** The objects `ids` name, in their order; null for each the caller cannot see. */
export async function loadNodes(
  modelOf: ModelOfType,
  context: GraphQLContext,
  info: GraphQLResolveInfo,
  ids: readonly NodeId[],
): Promise<(object | null)[]> {
  const keysByType = new Map<string, Set<string | number>>();
  for (const { typename, id } of ids) {
    const needs = NODE_TYPE_SCOPES[typename];
    if (needs && !allows(context.apiKey.scopes, needs)) continue;
    const keys = keysByType.get(typename) ?? new Set();
    keys.add(primaryKeyOf(typename, id));
    keysByType.set(typename, keys);
  }
  const found = new Map<string, object>();
  await Promise.all(
    [...keysByType].map(async ([typename, keys]) => {
      // What the query selects of this type (relations it reads through Pothos are loaded with it).
      const query = await queryFromInfo({ context, info, typeName: typename, awaitSelections: true });
      const rows = await delegateOf(context, modelOf(typename)).findMany({
        ...query,
        where: { id: { in: [...keys] } },
      });
      for (const row of rows) {
        // Node's resolveType reads the brand.
        brandWithType(row, typename as never);
        found.set(`${typename}:${row.id}`, row);
      }
    }),
  );
  return ids.map(({ typename, id }) => found.get(`${typename}:${primaryKeyOf(typename, id)}`) ?? null);
}
