// Organizations and their API keys: the tenancy root. Keys are made and
// checked by src/auth/ (a key's format, authentication); issuing, revoking
// and rotating them is done here. A revocation, once committed, is told to
// this process's key caches directly; other processes hear it from the
// database (the "ApiKey" trigger's notification, src/auth/api-key-cache.ts).
import { z } from 'zod';
import { forgetRevokedKey } from '../auth/api-key-cache.ts';
import { hashApiKey, newApiKey } from '../auth/api-keys.ts';
import { API_KEYS_PER_ORGANIZATION } from '../config.ts';
import { advisoryLock } from '../db/sql/advisory-lock.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import { ALL_SCOPES, holdsAll } from '../key-scopes.ts';
import { keyScopes } from '../records/api-keys.ts';
import { int } from '../records/values.ts';
import { badInput, conflict, forbidden, notFound } from './errors.ts';
import { parseOrThrow } from './validation.ts';

/** A key's longest grace after its rotation: a day. */
export const MAX_ROTATION_GRACE_SECONDS = 86_400;

/** REST `POST /api-keys`'s body, GraphQL `createApiKey`'s arguments. */
export const apiKeyCreate = z
  .strictObject({
    name: z.string().trim().min(1).max(200).optional().meta({ description: 'A label to tell the key by' }),
    scopes: keyScopes.optional().meta({
      description: 'What the key may do, none the issuing key lacks; absent: what the issuing key may do',
    }),
    expires_at: z.iso
      .datetime({ offset: true })
      .optional()
      .meta({ description: 'When it stops working on its own (RFC 3339, in the future); absent: never' }),
  })
  .meta({ id: 'ApiKeyCreate', description: 'A key to issue.' });

/** `apiKeyCreate` for the CLI's options: a BAD_INPUT naming each offending member. */
export const parseKeyCreate = (given: unknown) => parseOrThrow(apiKeyCreate, given);

/** REST `POST /api-keys/{id}/rotate`'s body, GraphQL `rotateApiKey`'s `graceSeconds`. */
export const apiKeyRotate = z
  .strictObject({
    grace_seconds: int(0, MAX_ROTATION_GRACE_SECONDS)
      .optional()
      .meta({ description: `How long the old key keeps working (0, the default, to ${MAX_ROTATION_GRACE_SECONDS})` }),
  })
  .meta({ id: 'ApiKeyRotate', description: 'How to rotate a key.' });

/** `apiKeyRotate` for the CLI's options. */
export const parseKeyRotate = (given: unknown) => parseOrThrow(apiKeyRotate, given);

export interface IssuedKey {
  apiKeyId: string;
  apiKey: string;
  scopes: string[];
  expiresAt: Date | null;
}

/** The keys that still work at `now`: neither revoked nor expired. */
const workingAt = (now: Date) => ({ revokedAt: null, OR: [{ expiresAt: null }, { expiresAt: { gt: now } }] });

/** Refuses a grant of scopes the granting key does not hold itself (a key cannot mint a stronger one). */
function refuseEscalation(grantedBy: readonly string[] | undefined, scopes: readonly string[]) {
  if (!grantedBy || holdsAll(grantedBy, scopes)) return;
  const missing = scopes.find((scope) => !holdsAll(grantedBy, [scope])) ?? ALL_SCOPES;
  throw forbidden([missing]);
}

export async function createOrganization(prisma: PrismaClient, name: string) {
  const trimmed = name.trim();
  if (!trimmed) throw badInput([{ path: 'name', rule: 'required', message: 'must not be empty' }]);
  const key = newApiKey();
  const organization = await prisma.organization.create({
    data: { name: trimmed, apiKeys: { create: { hash: key.hash, displayPrefix: key.displayPrefix, name: 'initial' } } },
  });
  return { organization, apiKey: key.key };
}

export interface IssueOptions {
  /** A label to tell the key by. */
  name?: string;
  /** What the key may do (src/key-scopes.ts); unless given, the asking key's (`grantedBy`), or everything (`*`). */
  scopes?: readonly string[];
  /** When it stops working (null or absent: never); must be after `now`. */
  expiresAt?: Date | null;
  /** The scopes of the key that asks (absent: an operator, the CLI): it may grant no more than these. */
  grantedBy?: readonly string[];
  now?: Date;
  /** The unrevoked keys the organization may hold (API_KEYS_PER_ORGANIZATION): past them, a 409. */
  maxActiveKeys?: number;
}

/**
 * Issues another key, unless the organization already holds `maxActiveKeys`
 * unrevoked ones. Keys share their organization's rate limit, so more keys buy
 * no more requests; the cap bounds the secrets an organization has out. Two
 * issues at once for one organization take turns (an advisory lock), so
 * neither can pass the cap on the other's count.
 */
export async function issueApiKey(
  prisma: PrismaClient,
  organizationId: string,
  {
    name,
    grantedBy,
    scopes = grantedBy ?? [ALL_SCOPES],
    expiresAt = null,
    now = new Date(),
    maxActiveKeys = API_KEYS_PER_ORGANIZATION,
  }: IssueOptions = {},
): Promise<IssuedKey> {
  refuseEscalation(grantedBy, scopes);
  if (expiresAt && expiresAt <= now) {
    throw badInput([{ path: 'expires_at', rule: 'future', message: 'must be in the future' }]);
  }
  return prisma.$transaction(async (tx) => {
    await advisoryLock(tx, `api-keys:${organizationId}`);
    const organization = await tx.organization.findUnique({ where: { id: organizationId }, select: { id: true } });
    if (!organization) throw notFound('organization');
    const active = await tx.apiKey.count({ where: { organizationId, ...workingAt(now) } });
    if (active >= maxActiveKeys) {
      throw conflict(
        `the organization has ${active} active API keys, the most it may have (API_KEYS_PER_ORGANIZATION): revoke one before issuing another`,
        { rule: 'API_KEYS_PER_ORGANIZATION', limit: maxActiveKeys, active },
      );
    }
    const key = newApiKey();
    const row = await tx.apiKey.create({
      data: {
        organizationId,
        hash: key.hash,
        displayPrefix: key.displayPrefix,
        name: name ?? null,
        scopes: [...scopes],
        expiresAt,
      },
    });
    return { apiKeyId: row.id, apiKey: key.key, scopes: row.scopes, expiresAt: row.expiresAt };
  });
}

/** Revokes a key given in full; returns how many keys it revoked (0 or 1). */
export async function revokeApiKey(prisma: PrismaClient, key: string): Promise<number> {
  const hash = hashApiKey(key);
  const result = await prisma.apiKey.updateMany({ where: { hash, revokedAt: null }, data: { revokedAt: new Date() } });
  forgetRevokedKey(hash);
  return result.count;
}

/** Revokes one of the organization's own keys by id; another organization's key reads as not found. */
export async function revokeApiKeyById(prisma: PrismaClient, organizationId: string, apiKeyId: string) {
  const result = await prisma.apiKey.updateMany({
    where: { id: apiKeyId, organizationId, revokedAt: null },
    data: { revokedAt: new Date() },
  });
  if (result.count === 0) throw notFound('API key');
  const revoked = await prisma.apiKey.findUniqueOrThrow({ where: { id: apiKeyId } });
  forgetRevokedKey(revoked.hash);
  return revoked;
}

export interface RotateOptions {
  /** How long the old key keeps working (seconds); 0: it is revoked at once. */
  graceSeconds?: number;
  /** The scopes of the key that asks (absent: an operator, the CLI): it may rotate only a key no stronger than itself. */
  grantedBy?: readonly string[];
  now?: Date;
}

/**
 * Replaces a key: a successor with the same name, scopes and expiry is issued,
 * and the old key is revoked, or, given a grace period, expires at its end
 * (sooner if it expired sooner anyway), in one transaction. Returns null when
 * the key is unknown, revoked or expired. The key caches forget the old key
 * either way (the "ApiKey" trigger notifies a change of `revokedAt` or `expiresAt`).
 */
export async function rotateApiKey(
  prisma: PrismaClient,
  select: { key: string } | { organizationId: string; apiKeyId: string },
  { graceSeconds = 0, grantedBy, now = new Date() }: RotateOptions = {},
): Promise<IssuedKey | null> {
  const where =
    'key' in select ? { hash: hashApiKey(select.key) } : { id: select.apiKeyId, organizationId: select.organizationId };
  const rotated = await prisma.$transaction(async (tx) => {
    const old = await tx.apiKey.findFirst({ where: { ...where, ...workingAt(now) } });
    if (!old) return null;
    refuseEscalation(grantedBy, old.scopes);
    const graceEnd = new Date(now.getTime() + graceSeconds * 1000);
    const ended = await tx.apiKey.updateMany({
      where: { id: old.id, ...workingAt(now) },
      data:
        graceSeconds === 0
          ? { revokedAt: now }
          : { expiresAt: old.expiresAt && old.expiresAt < graceEnd ? old.expiresAt : graceEnd },
    });
    if (ended.count === 0) return null;
    const key = newApiKey();
    const row = await tx.apiKey.create({
      data: {
        organizationId: old.organizationId,
        hash: key.hash,
        displayPrefix: key.displayPrefix,
        name: old.name,
        scopes: old.scopes,
        expiresAt: old.expiresAt,
      },
    });
    return {
      issued: { apiKeyId: row.id, apiKey: key.key, scopes: row.scopes, expiresAt: row.expiresAt },
      revokedHash: old.hash,
    };
  });
  // After the commit: forgotten before, the old key could be read valid again and kept until the notification.
  if (!rotated) return null;
  forgetRevokedKey(rotated.revokedHash);
  return rotated.issued;
}
