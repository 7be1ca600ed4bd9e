// Organizations and their API keys: the tenancy root. Keys are made and
// checked by src/auth/ (a key's format, authentication); issuing, revoking
// and rotating them is done here. A revocation, once committed, is told to
// this process's key caches directly; other processes hear it from the
// database (the "ApiKey" trigger's notification, src/auth/api-key-cache.ts).
import { forgetRevokedKey } from '../auth/api-key-cache.ts';
import { hashApiKey, newApiKey } from '../auth/api-keys.ts';
import { API_KEYS_PER_ORGANIZATION } from '../config.ts';
import { advisoryLock } from '../db/sql/advisory-lock.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import { badInput, conflict, notFound } from './errors.ts';

export interface IssuedKey {
  apiKeyId: string;
  apiKey: string;
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
  { name, maxActiveKeys = API_KEYS_PER_ORGANIZATION }: IssueOptions = {},
): Promise<IssuedKey> {
  return prisma.$transaction(async (tx) => {
    await advisoryLock(tx, `api-keys:${organizationId}`);
    const organization = await tx.organization.findUnique({ where: { id: organizationId }, select: { id: true } });
    if (!organization) throw notFound('organization');
    const active = await tx.apiKey.count({ where: { organizationId, revokedAt: null } });
    if (active >= maxActiveKeys) {
      throw conflict(
        `the organization has ${active} active API keys, the most it may have (API_KEYS_PER_ORGANIZATION): revoke one before issuing another`,
        { rule: 'API_KEYS_PER_ORGANIZATION', limit: maxActiveKeys, active },
      );
    }
    const key = newApiKey();
    const row = await tx.apiKey.create({
      data: { organizationId, hash: key.hash, displayPrefix: key.displayPrefix, name: name ?? null },
    });
    return { apiKeyId: row.id, apiKey: key.key };
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

/**
 * Replaces a key: the old one is revoked and a new one issued for the same
 * organization, in one transaction. Returns null when the key is unknown or
 * already revoked.
 */
export async function rotateApiKey(
  prisma: PrismaClient,
  select: { key: string } | { organizationId: string; apiKeyId: string },
): Promise<IssuedKey | null> {
  const where =
    'key' in select ? { hash: hashApiKey(select.key) } : { id: select.apiKeyId, organizationId: select.organizationId };
  const rotated = await prisma.$transaction(async (tx) => {
    const old = await tx.apiKey.findFirst({ where: { ...where, revokedAt: null } });
    if (!old) return null;
    const revoked = await tx.apiKey.updateMany({
      where: { id: old.id, revokedAt: null },
      data: { revokedAt: new Date() },
    });
    if (revoked.count === 0) return null;
    const key = newApiKey();
    const row = await tx.apiKey.create({
      data: { organizationId: old.organizationId, hash: key.hash, displayPrefix: key.displayPrefix, name: old.name },
    });
    return { issued: { apiKeyId: row.id, apiKey: key.key }, revokedHash: old.hash };
  });
  // After the commit: forgotten before, the old key could be read valid again and kept until the notification.
  if (!rotated) return null;
  forgetRevokedKey(rotated.revokedHash);
  return rotated.issued;
}
