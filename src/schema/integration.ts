// Integrations: the shared catalog (Integration, `int_…`) with the caller's
// connection status, and the caller's connections (ConnectedIntegration,
// `oint_…`). No field reads credentials: only the ones listed here exist.
import { connectIntegration, disconnectIntegration, integrationConnect } from '../domain/integrations.ts';
import type { Integration as IntegrationRow, OrganizationIntegration } from '../generated/prisma/client.ts';
import { builder, type NodeRef } from './builder.ts';
import { type GraphQLContext, scopeOf } from './context.ts';
import { typesFromSchema } from './json-schema-types.ts';
import { modelConnection } from './pagination.ts';
import { tenantNodeId } from './tenant-nodes.ts';

/** The caller's connection to a catalog entry, or null. */
const connectionOf = (integration: IntegrationRow, context: GraphQLContext) =>
  context.loaders.connectionOfIntegration.load(integration.id);

const catalogEntryOf = async (connection: OrganizationIntegration, context: GraphQLContext) =>
  (await context.loaders.integration.load(connection.integrationId))!;

const Integration: NodeRef<'Integration'> = builder.prismaNode('Integration', {
  id: { field: 'id' },
  nullable: true,
  description: "A third-party service in the catalog, with the caller's connection status.",
  fields: (t) => ({
    name: t.exposeString('name', { description: 'Its display name.' }),
    slug: t.exposeString('slug', {
      description: 'Its unique short name, which `connectIntegration` and `integrationBySlug` take.',
    }),
    category: t.exposeString('category', { description: '`crm`, `calendar`, `messaging` or `telephony`.' }),
    description: t.exposeString('description', { description: 'What it does; may be empty.' }),
    schemaConfig: t.expose('schemaConfig', {
      type: 'JSON',
      description: '{ category, credentials, settings }: the members a connect takes, to render a connect form.',
    }),
    isConnected: t.boolean({
      description: 'Whether the caller has connected it.',
      resolve: async (integration, _args, context) => (await connectionOf(integration, context)) !== null,
    }),
    connectedAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When the caller connected it; null when not connected.',
      resolve: async (integration, _args, context) => (await connectionOf(integration, context))?.createdAt ?? null,
    }),
    organizationIntegrationId: t.id({
      nullable: true,
      description: "The id of the caller's connection (`oint_…`); null when not connected.",
      resolve: async (integration, _args, context) => (await connectionOf(integration, context))?.id ?? null,
    }),
    isActive: t.boolean({
      description: "The connection's active flag; false when not connected.",
      resolve: async (integration, _args, context) => (await connectionOf(integration, context))?.isActive ?? false,
    }),
    connection: t.field({
      type: ConnectedIntegration,
      nullable: true,
      description: "The caller's connection, or null when not connected.",
      resolve: (integration, _args, context) => connectionOf(integration, context),
    }),
  }),
});

const ConnectedIntegration: NodeRef<'OrganizationIntegration'> = builder.prismaNode('OrganizationIntegration', {
  variant: 'ConnectedIntegration',
  ...tenantNodeId,
  nullable: true,
  description: "The caller's connection to a catalog integration. Its credentials are never readable.",
  fields: (t) => ({
    name: t.string({
      description: "The catalog entry's name.",
      resolve: async (connection, _args, context) => (await catalogEntryOf(connection, context)).name,
    }),
    slug: t.string({
      description: "The catalog entry's slug.",
      resolve: async (connection, _args, context) => (await catalogEntryOf(connection, context)).slug,
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it was first connected.' }),
    lastSyncAt: t.expose('lastSyncAt', {
      type: 'DateTime',
      nullable: true,
      description: 'When it last synchronized; null if never.',
    }),
    lastSyncStatus: t.exposeString('lastSyncStatus', {
      nullable: true,
      description: 'How the last synchronization ended; null if never.',
    }),
    lastSyncError: t.exposeString('lastSyncError', {
      nullable: true,
      description: 'The error of the last synchronization; null if none.',
    }),
    isActive: t.exposeBoolean('isActive', { description: 'Its active flag (true when connected).' }),
    schemaConfig: t.field({
      type: 'JSON',
      description: "The catalog entry's schemaConfig.",
      resolve: async (connection, _args, context) => (await catalogEntryOf(connection, context)).schemaConfig,
    }),
    settings: t.expose('settings', {
      type: 'JSON',
      description: 'The settings given at the last connect, a JSON object.',
    }),
    integration: t.field({
      type: Integration,
      description: 'The catalog entry it connects.',
      resolve: (connection, _args, context) => catalogEntryOf(connection, context),
    }),
  }),
});

const ConnectIntegration = typesFromSchema(integrationConnect);

builder.queryFields((t) => ({
  integrations: t.connection({
    type: Integration,
    description: "Every integration of the catalog with the caller's connection status, by name (E11).",
    resolve: (_root, args, context) =>
      modelConnection(args, context.db.integration, { orderBy: [{ name: 'asc' }, { id: 'asc' }] }),
  }),
  connectedIntegrations: t.connection({
    type: ConnectedIntegration,
    description: "The caller's connections, by integration name (E12).",
    resolve: (_root, args, context) =>
      modelConnection(args, context.db.organizationIntegration, {
        orderBy: [{ integration: { name: 'asc' } }, { id: 'asc' }],
      }),
  }),
  integrationBySlug: t.field({
    type: ConnectedIntegration,
    nullable: true,
    description: "The caller's connection to the integration with this slug; null when not connected (E13).",
    args: { slug: t.arg.string({ required: true, description: "The catalog entry's slug." }) },
    resolve: (_root, args, context) =>
      context.db.organizationIntegration.findFirst({ where: { integration: { slug: args.slug } } }),
  }),
  connectedIntegration: t.field({
    type: ConnectedIntegration,
    nullable: true,
    description: "One of the caller's connections; null for an unknown id or another organization's (E14).",
    args: { id: t.arg.id({ required: true, description: 'The connection (`oint_…`).' }) },
    resolve: (_root, args, context) => context.db.organizationIntegration.findFirst({ where: { id: String(args.id) } }),
  }),
}));

builder.mutationFields((t) => ({
  connectIntegration: t.field({
    type: ConnectedIntegration,
    description:
      'Connects an integration (E10); on a connected slug, replaces credentials and settings and keeps the id.',
    args: {
      input: t.arg({
        type: ConnectIntegration.input(),
        required: true,
        description: 'The integration and its credentials.',
      }),
    },
    resolve: async (_root, args, context) => {
      const connection = await connectIntegration(
        scopeOf(context),
        context.secrets,
        ConnectIntegration.parse(context, args.input),
      );
      context.loaders.connectionOfIntegration.clearAll();
      return connection;
    },
  }),
  disconnectIntegration: t.id({
    description: 'Removes a connection and its credentials; returns its id.',
    args: { id: t.arg.id({ required: true, description: 'The connection (`oint_…`).' }) },
    resolve: async (_root, args, context) => {
      const id = await disconnectIntegration(scopeOf(context), String(args.id));
      context.loaders.connectionOfIntegration.clearAll();
      return id;
    },
  }),
}));
