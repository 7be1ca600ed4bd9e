// An organization's API keys as the REST API shows them (POST/GET
// /org/{org_id}/api-keys): never the key itself, but when it is issued or
// rotated (`issuedApiKey`, shown that once). What a key may do is its scopes
// (src/key-scopes.ts).
import { z } from 'zod';
import { HELD_SCOPES, SCOPE_DESCRIPTIONS } from '../key-scopes.ts';
import { record, timestamp, value } from './record.ts';

/** A scope a key may be given. */
const keyScope = z.enum(HELD_SCOPES).meta({
  id: 'KeyScope',
  description: `What a key may do: ${Object.entries(SCOPE_DESCRIPTIONS)
    .map(([scope, what]) => `\`${scope}\` ${what}`)
    .join('; ')}.`,
});

/** A key's scopes: at least one, each once. */
export const keyScopes = z
  .array(keyScope)
  .min(1)
  .max(HELD_SCOPES.length)
  .refine((scopes) => new Set(scopes).size === scopes.length, 'must not repeat a scope');

export const apiKey = record(
  { id: 'ApiKey' },
  {
    id: z.string(),
    name: z.string().nullable(),
    display_prefix: z.string().meta({ description: 'The first characters of the key, to tell keys apart' }),
    scopes: z.array(z.string()),
    created_at: timestamp(),
    last_used_at: timestamp().nullable(),
    expires_at: timestamp().nullable(),
    revoked_at: timestamp().nullable(),
  },
);

/** A key just issued or rotated: the only time the key itself is shown. */
export const issuedApiKey = record(
  { id: 'IssuedApiKey' },
  {
    id: value(z.string(), { field: 'apiKeyId' }),
    api_key: value(z.string().meta({ description: 'The key itself; it cannot be read again' }), {
      field: 'apiKey',
    }),
    scopes: z.array(z.string()),
    expires_at: timestamp().nullable(),
  },
);
