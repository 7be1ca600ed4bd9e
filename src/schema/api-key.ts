// The organization's API keys (src/domain/organizations.ts) and what each may
// do (src/key-scopes.ts): issued, listed, rotated and revoked with the
// `keys:admin` scope, and never for more than the asking key holds itself.
// The key itself is shown once, as it is issued or rotated.

import { notFound } from '../domain/errors.ts';
import { apiKeyCreate, apiKeyRotate, issueApiKey, revokeApiKeyById, rotateApiKey } from '../domain/organizations.ts';
import { builder } from './builder.ts';
import { unscopedClient } from './context.ts';
import { parseOnce } from './parsed-input.ts';

/** The keys `apiKeys` lists at most. */
const API_KEYS_LISTED = 1000;

builder.prismaNode('ApiKey', {
  id: { field: 'id' },
  nullable: true,
  description: 'An API key of the organization. The key itself is shown only once, when it is issued.',
  fields: (t) => ({
    name: t.exposeString('name', { nullable: true, description: 'The label given when it was issued, if any.' }),
    displayPrefix: t.exposeString('displayPrefix', { description: 'The first characters of the key.' }),
    scopes: t.exposeStringList('scopes', {
      description: 'What it may do (`read`, `agents:write`, … `keys:admin`; `*`: everything).',
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it was issued.' }),
    lastUsedAt: t.expose('lastUsedAt', {
      type: 'DateTime',
      nullable: true,
      description: 'When a request last used it (to the minute); null if never.',
    }),
    expiresAt: t.expose('expiresAt', {
      type: 'DateTime',
      nullable: true,
      description: 'When it stops working on its own (a rotated key at the end of its grace); null: never.',
    }),
    revokedAt: t.expose('revokedAt', {
      type: 'DateTime',
      nullable: true,
      description: 'When it was revoked (it is refused from then on); null while it is valid.',
    }),
  }),
});

const IssuedApiKey = builder
  .objectRef<{ apiKeyId: string; apiKey: string; scopes: string[]; expiresAt: Date | null }>('IssuedApiKey')
  .implement({
    description: 'A key just issued, the only time the key itself is shown.',
    fields: (t) => ({
      apiKeyId: t.exposeID('apiKeyId', {
        description: 'The id of its `ApiKey` (`key_…`), to rotate or revoke it by.',
      }),
      apiKey: t.exposeString('apiKey', { description: 'The key itself; it cannot be read again.' }),
      scopes: t.exposeStringList('scopes', { description: 'What it may do.' }),
      expiresAt: t.expose('expiresAt', {
        type: 'DateTime',
        nullable: true,
        description: 'When it stops working on its own; null: never.',
      }),
    }),
  });

builder.queryFields((t) => ({
  apiKeys: t.prismaField({
    type: ['ApiKey'],
    description:
      "The organization's keys, newest first, revoked and expired ones too, the newest 1,000 (at most `API_KEYS_PER_ORGANIZATION` work at once); needs `keys:admin`.",
    resolve: (query, _root, _args, context) =>
      unscopedClient(context).apiKey.findMany({
        ...query,
        where: { organizationId: context.viewer.organizationId },
        orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
        // Revoked and expired keys stay listed: the newest are the ones that matter.
        take: API_KEYS_LISTED,
      }),
  }),
  currentApiKey: t.prismaField({
    type: 'ApiKey',
    description:
      'The key the request came with, whatever its scopes: what it may do, so a client can tell before trying.',
    resolve: (query, _root, _args, context) =>
      unscopedClient(context).apiKey.findUniqueOrThrow({ ...query, where: { id: context.viewer.apiKeyId } }),
  }),
}));

builder.mutationFields((t) => ({
  createApiKey: t.field({
    type: IssuedApiKey,
    description:
      'Issues another API key for the organization (shown once; `gateway keys create` on the command line), with the scopes given, none the asking key lacks. CONFLICT once the organization has `API_KEYS_PER_ORGANIZATION` working keys (100 by default). Its keys share one rate limit.',
    args: {
      name: t.arg.string({ required: false, description: 'A label to tell the key by.' }),
      scopes: t.arg.stringList({
        required: false,
        description:
          "What it may do: `read`, `agents:write`, … `keys:admin`, or `*` (everything); none the asking key lacks. Absent: the asking key's scopes.",
      }),
      expiresAt: t.arg({
        type: 'DateTime',
        required: false,
        description: 'When it stops working on its own (in the future); absent: never.',
      }),
    },
    resolve: (_root, args, context) => {
      const data = parseOnce(context, apiKeyCreate, () => ({
        name: args.name ?? undefined,
        scopes: args.scopes ?? undefined,
        expires_at: args.expiresAt?.toISOString(),
      }));
      return issueApiKey(unscopedClient(context), context.viewer.organizationId, {
        name: data.name,
        scopes: data.scopes,
        expiresAt: data.expires_at ? new Date(data.expires_at) : null,
        grantedBy: context.apiKey.scopes,
        maxActiveKeys: context.apiKeysPerOrganization,
      });
    },
  }),
  rotateApiKey: t.field({
    type: IssuedApiKey,
    description:
      "Issues a successor to one of the organization's keys (shown once), with its scopes and expiry; the old key is revoked, or keeps working for `graceSeconds`. NOT_FOUND for a key revoked, expired or not the organization's.",
    args: {
      id: t.arg.id({ required: true, description: 'The id of the key to replace (`key_…`).' }),
      graceSeconds: t.arg.int({
        required: false,
        description: 'How long the old key keeps working, in seconds (0, the default, to 86400).',
      }),
    },
    resolve: async (_root, args, context) => {
      const data = parseOnce(context, apiKeyRotate, () => ({ grace_seconds: args.graceSeconds ?? undefined }));
      const issued = await rotateApiKey(
        unscopedClient(context),
        { organizationId: context.viewer.organizationId, apiKeyId: String(args.id) },
        { graceSeconds: data.grace_seconds, grantedBy: context.apiKey.scopes },
      );
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
