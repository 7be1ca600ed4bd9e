import SchemaBuilder from '@pothos/core';
import DataloaderPlugin from '@pothos/plugin-dataloader';
import PrismaPlugin, { type PrismaModelTypes, type PrismaNodeRef } from '@pothos/plugin-prisma';
import RelayPlugin from '@pothos/plugin-relay';
import { GraphQLError, Kind, type ValueNode } from 'graphql';
import PrismaTypes, { getDatamodel } from '../generated/pothos-prisma-types.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import type { GraphQLContext } from './context.ts';
import { decodeGlobalID, encodeGlobalID } from './global-ids.ts';
import type { Counted } from './pagination.ts';

export const builder = new SchemaBuilder<{
  Context: GraphQLContext;
  PrismaTypes: PrismaTypes;
  DefaultFieldNullability: false;
  Scalars: {
    // Rows read as JSON (pages, loaders.ts) carry PostgreSQL's ISO 8601 text.
    DateTime: { Input: Date; Output: Date | string };
    JSON: { Input: unknown; Output: unknown };
  };
}>({
  defaultFieldNullability: false,
  plugins: [PrismaPlugin, RelayPlugin, DataloaderPlugin],
  prisma: {
    // Each request has its own client, confined to the caller's organization (src/db/tenant.ts).
    client: (context) => context.prisma as unknown as PrismaClient,
    dmmf: getDatamodel(),
    filterConnectionTotalCount: true,
    onUnusedQuery: null,
  },
  relay: {
    clientMutationId: 'omit',
    cursorType: 'String',
    encodeGlobalID,
    decodeGlobalID,
    nodeQueryOptions: { description: 'The object with this id, or null when the caller cannot see it.' },
    nodesOnConnection: {},
  },
});

builder.queryType({});

builder.globalConnectionField('totalCount', (t) =>
  t.int({
    description: 'How many items the list has in all, across every page.',
    resolve: (connection) => (connection as unknown as Counted).totalCount(),
  }),
);
builder.mutationType({});
builder.subscriptionType({});

builder.scalarType('DateTime', {
  description: 'An instant, as an RFC 3339 UTC timestamp with milliseconds: 2026-11-21T04:09:00.000Z',
  serialize: (value) => (typeof value === 'string' ? new Date(value) : value).toISOString(),
  parseValue: (value) => {
    const date = typeof value === 'string' ? new Date(value) : new Date(Number.NaN);
    if (Number.isNaN(date.getTime())) throw new GraphQLError('DateTime must be an RFC 3339 timestamp');
    return date;
  },
});

function literalValue(node: ValueNode): unknown {
  switch (node.kind) {
    case Kind.NULL:
      return null;
    case Kind.INT:
    case Kind.FLOAT: {
      const number = Number(node.value);
      // JSON has no Infinity: 1e999 is refused rather than stored as null.
      if (!Number.isFinite(number)) throw new GraphQLError(`JSON numbers must be finite: ${node.value}`);
      return number;
    }
    case Kind.STRING:
    case Kind.BOOLEAN:
    case Kind.ENUM:
      return node.value;
    case Kind.LIST:
      return node.values.map(literalValue);
    case Kind.OBJECT:
      return Object.fromEntries(node.fields.map((field) => [field.name.value, literalValue(field.value)]));
    case Kind.VARIABLE:
      throw new GraphQLError('JSON literals cannot contain variables');
  }
}

builder.scalarType('JSON', {
  description: 'A free-form JSON value.',
  serialize: (value) => value,
  parseValue: (value) => value,
  parseLiteral: literalValue,
});

type BuilderTypes = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer Types> ? Types : never;

/**
 * The ref of a Prisma-backed Relay node. Types that reference each other
 * (workflow <-> batch <-> run) declare their refs with it, which breaks
 * TypeScript's circular inference.
 */
export type NodeRef<Name extends keyof PrismaTypes> = PrismaNodeRef<
  BuilderTypes,
  PrismaModelTypes & PrismaTypes[Name],
  PrismaTypes[Name]['Shape']
>;
