import { notFound } from '../domain/errors.ts';
import {
  organizationSettings,
  organizationSettingsUpdate,
  type OrganizationSettings as Settings,
  updateOrganizationSettings,
} from '../domain/organization-settings.ts';
import { issueApiKey, revokeApiKeyById, rotateApiKey } from '../domain/organizations.ts';
import { builder } from './builder.ts';
import { scopeOf, unscopedClient } from './context.ts';
import { typesFromSchema } from './json-schema-types.ts';

const OrganizationSettings = builder.objectRef<Settings>('OrganizationSettings').implement({
  description: 'What the organization decides for all its batches and calls (REST `GET /settings`).',
  fields: (t) => ({
    maxConcurrentCalls: t.exposeInt('maxConcurrentCalls', {
      nullable: true,
      description:
        "The organization's calls in progress at once over every instance, at most (its share of the engines' lines); null: no bound of its own.",
    }),
    redactPii: t.exposeBoolean('redactPii', {
      description:
        "Whether phone numbers, e-mail addresses and card numbers in call records' transcripts and summaries are masked as they are reported.",
    }),
    transcriptLanguage: t.exposeString('transcriptLanguage', {
      description: 'The PostgreSQL text search configuration call records are searched in (`english`, `simple`, …).',
    }),
  }),
});

const OrganizationSettingsUpdate = typesFromSchema(organizationSettingsUpdate);

// Nodes like every other prefixed id: node(id:) reads the caller's own, and null for anyone else's.
builder.prismaNode('Organization', {
  id: { field: 'id' },
  nullable: true,
  description: 'A customer of the platform: everything an API key reads or writes belongs to its organization.',
  fields: (t) => ({
    name: t.exposeString('name', { description: 'Its name, as given when it was created.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it was created.' }),
    settings: t.field({
      type: OrganizationSettings,
      description: 'Its settings.',
      resolve: (_organization, _args, context) => organizationSettings(scopeOf(context)),
    }),
    apiKeys: t.relation('apiKeys', {
      description: "The organization's keys, newest first (their hashes and the keys themselves are never readable).",
      query: { orderBy: [{ createdAt: 'desc' }, { id: 'desc' }] },
    }),
  }),
});

builder.queryField('organization', (t) =>
  t.prismaField({
    type: 'Organization',
    description: "The caller's organization, the one its API key belongs to.",
    resolve: (query, _root, _args, context) =>
      unscopedClient(context).organization.findUniqueOrThrow({
        ...query,
        where: { id: context.viewer.organizationId },
      }),
  }),
);

builder.prismaNode('ApiKey', {
  id: { field: 'id' },
  nullable: true,
  description: 'An API key of the organization. The key itself is shown only once, when it is issued.',
  fields: (t) => ({
    name: t.exposeString('name', { nullable: true, description: 'The label given when it was issued, if any.' }),
    displayPrefix: t.exposeString('displayPrefix', { description: 'The first characters of the key.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it was issued.' }),
    lastUsedAt: t.expose('lastUsedAt', {
      type: 'DateTime',
      nullable: true,
      description: 'When a request last used it; null if never.',
    }),
    revokedAt: t.expose('revokedAt', {
      type: 'DateTime',
      nullable: true,
      description: 'When it was revoked (it is refused from then on); null while it is valid.',
    }),
  }),
});

const IssuedApiKey = builder.objectRef<{ apiKeyId: string; apiKey: string }>('IssuedApiKey').implement({
  description: 'A key just issued, the only time the key itself is shown.',
  fields: (t) => ({
    apiKeyId: t.exposeID('apiKeyId', { description: 'The id of its `ApiKey` (`key_…`), to rotate or revoke it by.' }),
    apiKey: t.exposeString('apiKey', { description: 'The key itself; it cannot be read again.' }),
  }),
});

builder.mutationFields((t) => ({
  updateOrganizationSettings: t.field({
    type: OrganizationSettings,
    description: 'Changes the settings given (REST `PATCH /settings`); those absent stay, null clears one.',
    args: {
      input: t.arg({
        type: OrganizationSettingsUpdate.input(),
        required: true,
        description: 'The settings to change.',
      }),
    },
    resolve: (_root, args, context) =>
      updateOrganizationSettings(scopeOf(context), OrganizationSettingsUpdate.parse(context, args.input)),
  }),
  createApiKey: t.field({
    type: IssuedApiKey,
    description:
      'Issues another API key for the organization (shown once; `gateway keys create` on the command line). CONFLICT once the organization has `API_KEYS_PER_ORGANIZATION` unrevoked keys (100 by default). Its keys share one rate limit.',
    args: { name: t.arg.string({ required: false, description: 'A label to tell the key by.' }) },
    resolve: (_root, args, context) =>
      issueApiKey(unscopedClient(context), context.viewer.organizationId, {
        name: args.name ?? undefined,
        maxActiveKeys: context.apiKeysPerOrganization,
      }),
  }),
  rotateApiKey: t.field({
    type: IssuedApiKey,
    description: "Revokes one of the organization's keys and issues its replacement (shown once).",
    args: { id: t.arg.id({ required: true, description: 'The id of the key to replace (`key_…`).' }) },
    resolve: async (_root, args, context) => {
      const issued = await rotateApiKey(unscopedClient(context), {
        organizationId: context.viewer.organizationId,
        apiKeyId: String(args.id),
      });
      if (!issued) throw notFound('API key');
      return issued;
    },
  }),
  revokeApiKey: t.prismaField({
    type: 'ApiKey',
    description:
      "Revokes one of the organization's keys: it is refused from then on. NOT_FOUND for a key already revoked or not the organization's.",
    args: { id: t.arg.id({ required: true, description: 'The id of the key to revoke (`key_…`).' }) },
    resolve: (_query, _root, args, context) =>
      revokeApiKeyById(unscopedClient(context), context.viewer.organizationId, String(args.id)),
  }),
}));
