// Organizations and their API keys: the tenancy root.
import { hashApiKey, looksLikeApiKey, newApiKey } from '../auth/api-keys.ts';
import type { Database } from '../db/database.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import { badInput, notFound } from './errors.ts';

export interface Viewer {
  organizationId: string;
  apiKeyId: string;
}

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
  const result = await prisma.apiKey.updateMany({
    where: { hash: hashApiKey(key), revokedAt: null },
    data: { revokedAt: new Date() },
  });
  return result.count;
}

// last_used_at is advisory: writing it on every request would turn each read
// into a write, so it is refreshed at most once a minute per key.
const LAST_USED_RESOLUTION_MS = 60_000;

/**
 * The viewer an API key authenticates, or null when the key is unknown or
 * revoked. Every request asks this, so
 * the key is read with one plain statement rather than through Prisma's query
 * pipeline; the rare write (last use) goes through Prisma.
 */
export async function authenticate(db: Database, key: string | undefined | null): Promise<Viewer | null> {
  if (!key || !looksLikeApiKey(key)) return null;
  const {
    rows: [row],
  } = await db.sql.query<{ id: string; organizationId: string; revokedAt: Date | null; lastUsedAt: Date | null }>(
    'SELECT id, "organizationId", "revokedAt", "lastUsedAt" FROM "ApiKey" WHERE hash = $1',
    [hashApiKey(key)],
  );
  if (!row || row.revokedAt) return null;
  const now = Date.now();
  if (!row.lastUsedAt || now - row.lastUsedAt.getTime() > LAST_USED_RESOLUTION_MS) {
    await db.prisma.apiKey.update({ where: { id: row.id }, data: { lastUsedAt: new Date(now) } });
  }
  return { organizationId: row.organizationId, apiKeyId: row.id };
}

/** Revokes one of the organization's own keys by id; another organization's key reads as not found. */
export async function revokeApiKeyById(prisma: PrismaClient, organizationId: string, apiKeyId: string) {
  const result = await prisma.apiKey.updateMany({
    where: { id: apiKeyId, organizationId, revokedAt: null },
    data: { revokedAt: new Date() },
  });
  if (result.count === 0) throw notFound('API key');
  return prisma.apiKey.findUniqueOrThrow({ where: { id: apiKeyId } });
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
  const where = 'key' in select ? { hash: hashApiKey(select.key) } : { id: select.apiKeyId, organizationId: select.organizationId };
  return prisma.$transaction(async (tx) => {
    const old = await tx.apiKey.findFirst({ where: { ...where, revokedAt: null } });
    if (!old) return null;
    const revoked = await tx.apiKey.updateMany({ where: { id: old.id, revokedAt: null }, data: { revokedAt: new Date() } });
    if (revoked.count === 0) return null;
    const key = newApiKey();
    const row = await tx.apiKey.create({
      data: { organizationId: old.organizationId, hash: key.hash, displayPrefix: key.displayPrefix, name: old.name },
    });
    return { apiKeyId: row.id, apiKey: key.key };
  });
}
