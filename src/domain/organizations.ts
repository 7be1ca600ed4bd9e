// Organizations and their API keys: the tenancy root. Keys are made and
// checked by src/auth/ (a key's format, authentication); issuing, revoking
// and rotating them is done here. A revocation, once committed, is told to
// this process's key caches directly; other processes hear it from the
// database (the "ApiKey" trigger's notification, src/auth/api-key-cache.ts).
import { forgetRevokedKey } from '../auth/api-key-cache.ts';
import { hashApiKey, newApiKey } from '../auth/api-keys.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import { badInput, notFound } from './errors.ts';

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

export async function issueApiKey(prisma: PrismaClient, organizationId: string, name?: string): Promise<IssuedKey> {
  const organization = await prisma.organization.findUnique({ where: { id: organizationId }, select: { id: true } });
  if (!organization) throw notFound('organization');
  const key = newApiKey();
  const row = await prisma.apiKey.create({
    data: { organizationId, hash: key.hash, displayPrefix: key.displayPrefix, name: name ?? null },
  });
  return { apiKeyId: row.id, apiKey: key.key };
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
