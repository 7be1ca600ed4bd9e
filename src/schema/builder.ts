import SchemaBuilder from '@pothos/core';
import DirectivePlugin from '@pothos/plugin-directives';
import FederationPlugin from '@pothos/plugin-federation';
import PrismaPlugin, { type PrismaModelTypes, type PrismaNodeRef } from '@pothos/plugin-prisma';
import RelayPlugin from '@pothos/plugin-relay';
import { GraphQLError, Kind, type ValueNode } from 'graphql';
import type PrismaTypes from '../generated/pothos-prisma-types.ts';
import { getDatamodel } from '../generated/pothos-prisma-types.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import type { GraphQLContext } from './context.ts';
import { decodeGlobalID, encodeGlobalID } from './global-ids.ts';
import { loadNodes, type ModelOfType } from './nodes.ts';
import { type Counted, connectionArgs, MAX_LIST_ITEMS } from './pagination.ts';

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
  // Federation last: it reads what the others declared (docs/federation.md).
  plugins: [PrismaPlugin, RelayPlugin, DirectivePlugin, FederationPlugin],
  prisma: {
    // Each request has its own client, confined to the caller's organization (src/db/tenant.ts).
    client: (context) => context.db as unknown as PrismaClient,
    dmmf: getDatamodel(),
    filterConnectionTotalCount: true,
    onUnusedQuery: null,
  },
  relay: {
    clientMutationId: 'omit',
    cursorType: 'String',
    encodeGlobalID,
    decodeGlobalID,
    // Every connection, edge, page and id of the schema is described here once (pagination.ts says how paging works).
    nodeTypeOptions: { description: 'An object that can be read again by its id with `node(id:)`.' },
    idFieldOptions: { description: "The object's global id: its REST id (`agt_…`, `run_…`), unique across types." },
    nodeQueryOptions: {
      description: 'The object with this id, or null when the caller cannot see it.',
      args: { id: { description: 'A global id of any type (`agt_…`, `wf_…`, `run_…`).' } },
      resolve: async (_root, args, context, info) => (await loadNodes(modelOf, context, info, [args.id]))[0],
    },
    nodesQueryOptions: {
      description: 'The objects with these ids, in their order; null for each the caller cannot see.',
      args: { ids: { description: `Global ids of any types, at most ${MAX_LIST_ITEMS}.` } },
      resolve: (_root, args, context, info) => loadNodes(modelOf, context, info, args.ids),
    },
    defaultConnectionTypeOptions: {
      description:
        'One page of a list (a Relay connection): its items as `edges` or `nodes`, `pageInfo`, and `totalCount`.',
    },
    defaultEdgeTypeOptions: { description: 'An item of a page with its cursor.' },
    edgesFieldOptions: { description: 'The items of this page with their cursors, in the order of the list.' },
    nodesOnConnection: { description: 'The items of this page, in the order of the list (the `node` of each edge).' },
    nodeFieldOptions: { description: 'The item.' },
    cursorFieldOptions: {
      description: 'Where this item is in the list: pass it as `after` or `before` to page from here.',
    },
    pageInfoFieldOptions: { description: 'Where this page is in the list.' },
    pageInfoTypeOptions: { description: 'Where a page is in its list, and the cursors to page on from it.' },
    hasNextPageFieldOptions: { description: 'Whether items follow this page.' },
    hasPreviousPageFieldOptions: { description: 'Whether items precede this page.' },
    startCursorFieldOptions: { description: "The first item's cursor (with `before`, pages backwards)." },
    endCursorFieldOptions: { description: "The last item's cursor (with `after`, pages forwards)." },
    firstArgOptions: connectionArgs.first,
    afterArgOptions: connectionArgs.after,
    lastArgOptions: connectionArgs.last,
    beforeArgOptions: connectionArgs.before,
  },
});

/** The Prisma model of a node type, as plugin-prisma noted it on the type. */
export const modelOf: ModelOfType = (typename) =>
  builder.configStore.getTypeConfig(typename, 'Object').extensions?.pothosPrismaModel as string;

builder.queryType({ description: 'Reads. Everything is scoped to the organization of the API key.' });

builder.globalConnectionField('totalCount', (t) =>
  t.int({
    description: 'How many items the list has in all, across every page.',
    resolve: (connection) => (connection as unknown as Counted).totalCount(),
  }),
);
builder.mutationType({ description: 'Writes, each mirroring a REST endpoint where SPEC.md has one (E1…E21).' });
builder.subscriptionType({ description: 'Live updates, over graphql-ws or server-sent events at /graphql.' });

/** PostgreSQL's JSON text of a timestamptz(3) in UTC: "2026-11-21T04:09:00.12+00:00" (trailing zeros of the fraction dropped). */
const POSTGRES_UTC_TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,3})?\+00:00$/;

/**
 * A timestamp as `toISOString` writes it. The pages' timestamps arrive as
 * PostgreSQL's JSON text (loaders.ts) and are rewritten as text, without
 * making a Date for each (a dashboard has 1,000); any other text is parsed.
 */
function isoTimestampOf(text: string) {
  if (!POSTGRES_UTC_TIMESTAMP.test(text)) return new Date(text).toISOString();
  const secondsEnd = 19;
  const fraction = text.slice(secondsEnd + 1, text.length - '+00:00'.length);
  return `${text.slice(0, secondsEnd)}.${fraction.padEnd(3, '0')}Z`;
}

builder.scalarType('DateTime', {
  description: 'An instant, as an RFC 3339 UTC timestamp with milliseconds: 2026-11-21T04:09:00.000Z',
  serialize: (value) => (typeof value === 'string' ? isoTimestampOf(value) : value.toISOString()),
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
