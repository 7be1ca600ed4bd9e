import { notFound } from '../domain/errors.ts';
import { issueApiKey, revokeApiKeyById, rotateApiKey } from '../domain/organizations.ts';
import { builder } from './builder.ts';

// Nodes like every other prefixed id: node(id:) reads the caller's own, and null for anyone else's.
builder.prismaNode('Organization', {
  id: { field: 'id' },
  nullable: true,
  fields: (t) => ({
    name: t.exposeString('name'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
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
      context.db.prisma.organization.findUniqueOrThrow({ ...query, where: { id: context.viewer.organizationId } }),
  }),
);

builder.prismaNode('ApiKey', {
  id: { field: 'id' },
  nullable: true,
  description: 'An API key of the organization. The key itself is shown only once, when it is issued.',
  fields: (t) => ({
    name: t.exposeString('name', { nullable: true }),
    displayPrefix: t.exposeString('displayPrefix', { description: 'The first characters of the key.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    lastUsedAt: t.expose('lastUsedAt', { type: 'DateTime', nullable: true }),
    revokedAt: t.expose('revokedAt', { type: 'DateTime', nullable: true }),
  }),
});

const IssuedApiKey = builder.objectRef<{ apiKeyId: string; apiKey: string }>('IssuedApiKey').implement({
  fields: (t) => ({
    apiKeyId: t.exposeID('apiKeyId'),
    apiKey: t.exposeString('apiKey', { description: 'The key itself; it cannot be read again.' }),
  }),
});

builder.mutationFields((t) => ({
  createApiKey: t.field({
    type: IssuedApiKey,
    args: { name: t.arg.string({ required: false }) },
    resolve: (_root, args, context) =>
      issueApiKey(context.db.prisma, context.viewer.organizationId, args.name ?? undefined),
  }),
  rotateApiKey: t.field({
    type: IssuedApiKey,
    description: 'Revokes one of the organization\'s keys and issues its replacement (shown once).',
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_root, args, context) => {
      const issued = await rotateApiKey(context.db.prisma, { organizationId: context.viewer.organizationId, apiKeyId: String(args.id) });
      if (!issued) throw notFound('API key');
      return issued;
    },
  }),
  revokeApiKey: t.prismaField({
    type: 'ApiKey',
    args: { id: t.arg.id({ required: true }) },
    resolve: (_query, _root, args, context) =>
      revokeApiKeyById(context.db.prisma, context.viewer.organizationId, String(args.id)),
  }),
}));
