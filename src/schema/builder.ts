import SchemaBuilder from '@pothos/core';
import DataloaderPlugin from '@pothos/plugin-dataloader';
import PrismaPlugin from '@pothos/plugin-prisma';
import RelayPlugin from '@pothos/plugin-relay';
import { GraphQLError, Kind, type ValueNode } from 'graphql';
import PrismaTypes, { getDatamodel } from '../generated/pothos-prisma-types.ts';
import type { GraphQLContext } from './context.ts';

export const builder = new SchemaBuilder<{
  Context: GraphQLContext;
  PrismaTypes: PrismaTypes;
  DefaultFieldNullability: false;
  Scalars: {
    DateTime: { Input: Date; Output: Date };
    JSON: { Input: unknown; Output: unknown };
  };
}>({
  defaultFieldNullability: false,
  plugins: [PrismaPlugin, RelayPlugin, DataloaderPlugin],
  prisma: {
    // Each request brings its own connection (context.db), so the client is looked up per request.
    client: (context) => context.db.prisma,
    dmmf: getDatamodel(),
    filterConnectionTotalCount: true,
    onUnusedQuery: null,
  },
  relay: {
    clientMutationId: 'omit',
    cursorType: 'String',
  },
});

builder.queryType({});
builder.mutationType({});

builder.scalarType('DateTime', {
  description: 'An instant, as an RFC 3339 UTC timestamp with milliseconds: 2026-11-21T04:09:00.000Z',
  serialize: (value) => value.toISOString(),
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
    case Kind.FLOAT:
      return Number(node.value);
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
