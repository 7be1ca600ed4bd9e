// Verified API keys are remembered for a few seconds (src/auth/api-key-cache.ts):
// a request with a key used lately sends no statement about it, and a revoked
// key is still refused at once: on the instance that revoked it by the
// revoking code itself, on every other by the database's notification.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiKeyCache } from '../src/auth/api-key-cache.ts';
import { hashApiKey } from '../src/auth/api-keys.ts';
import { authenticate } from '../src/auth/authenticate.ts';
import { API_KEY_CACHE_TTL_MS, ConfigError, loadConfig } from '../src/config.ts';
import { type ChannelListener, type Database, openDatabase } from '../src/db/database.ts';
import { issueApiKey, revokeApiKey } from '../src/domain/organizations.ts';
import { eventually } from './support/flows.ts';
import { ManualClock } from './support/manual-clock.ts';
import { runCli } from './support/processes.ts';
import { startTestServer, type TestServer } from './support/server.ts';
import { recordStatements } from './support/statements.ts';
import { onPostgres, withAdminClient } from './support/storage.ts';

const ORGANIZATION = '{ organization { id } }';

/** The statements that read or write an API key. */
const keyStatements = (statements: string[]) => statements.filter((statement) => statement.includes('"ApiKey"'));

/** A key of the right shape that no organization has. */
const madeUpKey = () => `gwk_${randomBytes(32).toString('base64url')}`;

/** A revocation made outside the gateway's code (psql, another tool): only the database's notification tells of it. */
const revokeInSql = (db: Database, apiKey: string) =>
  db.sql.query('UPDATE "ApiKey" SET "revokedAt" = now() WHERE hash = $1', [hashApiKey(apiKey)]);

/** Asks `server` with the key until it is refused: a notification travels on its own connection. */
const refusedBy = (server: TestServer, apiKey: string) =>
  eventually(
    async () => ((await server.graphql(apiKey, ORGANIZATION)).status === 401 ? true : undefined),
    20_000,
    'the revoked key to be refused',
  );

async function issueThrough(server: TestServer, apiKey: string) {
  const { body } = await server.graphql(apiKey, 'mutation { createApiKey(name: "cached") { apiKeyId apiKey } }');
  return body.data.createApiKey as { apiKeyId: string; apiKey: string };
}

/** Uses the key on `server` twice; the second time it must come from the cache (no statement about the key). */
async function cachedOn(server: TestServer, apiKey: string) {
  expect((await server.graphql(apiKey, ORGANIZATION)).status).toBe(200);
  const { result, statements } = await recordStatements(server.db, () => server.graphql(apiKey, ORGANIZATION));
  expect(result.status).toBe(200);
  expect(keyStatements(statements)).toEqual([]);
}

describe('verified API keys, remembered', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
    await server.services.apiKeys.listening();
  });
  afterAll(() => server.close());

  it('reads a key once: a second request with it sends no statement about the key', async () => {
    const { apiKey, organizationId } = await server.createOrganization();
    const first = await recordStatements(server.db, () => server.graphql(apiKey, ORGANIZATION));
    expect(first.result.body.data.organization.id).toBe(organizationId);
    // The key's read, and its first use recorded.
    expect(keyStatements(first.statements)).toMatchInlineSnapshot(`
      [
        "SELECT id, "organizationId", "revokedAt", "lastUsedAt", name, scopes, "expiresAt" FROM "ApiKey" WHERE hash = $n",
        "UPDATE "public"."ApiKey" SET "lastUsedAt" = $n WHERE ("public"."ApiKey"."id" = $n AND ("public"."ApiKey"."lastUsedAt" IS NULL OR "public"."ApiKey"."lastUsedAt" < $n))",
      ]
    `);

    const second = await recordStatements(server.db, () => server.graphql(apiKey, ORGANIZATION));
    expect(second.result.body.data.organization.id).toBe(organizationId);
    // Nothing about the key: it is remembered.
    expect(keyStatements(second.statements)).toEqual([]);

    // The REST layer authenticates through the same cache.
    const rest = await recordStatements(server.db, () =>
      fetch(`${server.url}/org/${organizationId}/agents`, { headers: { 'x-api-key': apiKey } }),
    );
    expect(rest.result.status).toBe(200);
    expect(keyStatements(rest.statements)).toEqual([]);
  });

  it('refuses a key revoked or rotated through GraphQL on its very next request', async () => {
    const { apiKey, organizationId } = await server.createOrganization();
    const revoked = await issueThrough(server, apiKey);
    await cachedOn(server, revoked.apiKey);
    const revocation = await server.graphql(apiKey, `mutation { revokeApiKey(id: "${revoked.apiKeyId}") { id } }`);
    expect(revocation.body.errors).toBeUndefined();
    expect((await server.graphql(revoked.apiKey, ORGANIZATION)).status).toBe(401);
    const rest = await fetch(`${server.url}/org/${organizationId}/agents`, {
      headers: { 'x-api-key': revoked.apiKey },
    });
    expect(rest.status).toBe(401);

    const old = await issueThrough(server, apiKey);
    await cachedOn(server, old.apiKey);
    const { body } = await server.graphql(
      apiKey,
      `mutation { rotateApiKey(id: "${old.apiKeyId}") { apiKeyId apiKey } }`,
    );
    expect((await server.graphql(old.apiKey, ORGANIZATION)).status).toBe(401);
    expect((await server.graphql(body.data.rotateApiKey.apiKey, ORGANIZATION)).status).toBe(200);
  });

  it('refuses a key revoked by the domain (as the CLI revokes) on the next request', async () => {
    const { apiKey } = await server.createOrganization();
    await cachedOn(server, apiKey);
    expect(await revokeApiKey(server.db.prisma, apiKey)).toBe(1);
    expect((await server.graphql(apiKey, ORGANIZATION)).status).toBe(401);
  });

  it('forgets a key revoked outside the gateway once the database notifies it', async () => {
    const { apiKey } = await server.createOrganization();
    await cachedOn(server, apiKey);
    await revokeInSql(server.db, apiKey);
    await refusedBy(server, apiKey);

    // A deleted key (its organization deleted, say) too.
    const other = await server.createOrganization();
    await cachedOn(server, other.apiKey);
    await server.db.sql.query('DELETE FROM "ApiKey" WHERE hash = $1', [hashApiKey(other.apiKey)]);
    await refusedBy(server, other.apiKey);
  });

  it("forgets a key revoked in this process without waiting for the database's word", async () => {
    // A cache that never hears the database: only the revoking code tells it.
    const deaf: Database = {
      ...server.db,
      listen: (_channel, listener) => {
        listener.listening();
        return async () => listener.lost();
      },
    };
    const clock = new ManualClock('2031-01-01T00:00:00Z');
    const cache = new ApiKeyCache(deaf, { ttlMs: 30_000, clock });
    try {
      const { apiKey, organizationId } = await server.createOrganization();
      expect(await authenticate(server.db, apiKey, cache)).toMatchObject({ organizationId });
      expect(cache.size).toBe(1);
      await revokeApiKey(server.db.prisma, apiKey);
      expect(cache.size).toBe(0);
      expect(await authenticate(server.db, apiKey, cache)).toBeNull();

      // What it is not told (a notification lost) it accepts for the TTL at most.
      const unheard = await server.createOrganization();
      expect(await authenticate(server.db, unheard.apiKey, cache)).not.toBeNull();
      await revokeInSql(server.db, unheard.apiKey);
      clock.advance(29_999);
      expect(await authenticate(server.db, unheard.apiKey, cache)).not.toBeNull();
      clock.advance(1);
      expect(await authenticate(server.db, unheard.apiKey, cache)).toBeNull();
    } finally {
      await cache.close();
    }
  });

  it('does not keep what a read found when the key was forgotten, or revocations went unheard, meanwhile', async () => {
    let heard: ChannelListener | undefined;
    const db: Database = {
      ...server.db,
      listen: (_channel, listener) => {
        heard = listener;
        listener.listening();
        return async () => listener.lost();
      },
    };
    const cache = new ApiKeyCache(db, { ttlMs: 30_000 });
    try {
      const { apiKey } = await server.createOrganization();
      // Revoked while its read is on its way: the read may have seen it valid.
      const read = authenticate(server.db, apiKey, cache);
      cache.forget(hashApiKey(apiKey));
      expect(await read).not.toBeNull();
      expect(cache.size).toBe(0);
      // The connection lost and made again while the read is on its way: what was said meanwhile is lost.
      const again = authenticate(server.db, apiKey, cache);
      heard!.lost();
      heard!.listening();
      expect(await again).not.toBeNull();
      expect(cache.size).toBe(0);
      expect(await authenticate(server.db, apiKey, cache)).not.toBeNull();
      expect(cache.size).toBe(1);
    } finally {
      await cache.close();
    }
  });

  it('reads a key again after the TTL, and still records its last use once a minute', async () => {
    const clock = new ManualClock('2031-01-01T00:00:00Z');
    const shortLived = new ApiKeyCache(server.db, { ttlMs: 30_000, clock });
    // Longer than the last-use resolution, so a remembered key's last use comes due.
    const longLived = new ApiKeyCache(server.db, { ttlMs: 300_000, clock });
    try {
      await Promise.all([shortLived.listening(), longLived.listening()]);
      const expiring = await server.createOrganization();
      const statementsOf = async (cache: ApiKeyCache, apiKey: string) => {
        const { result, statements } = await recordStatements(server.db, () => authenticate(server.db, apiKey, cache));
        expect(result).not.toBeNull();
        return keyStatements(statements).map((statement) => statement.split(' ')[0]);
      };
      expect(await statementsOf(shortLived, expiring.apiKey)).toEqual(['SELECT', 'UPDATE']);
      clock.advance(29_999);
      expect(await statementsOf(shortLived, expiring.apiKey)).toEqual([]);
      clock.advance(1);
      expect(await statementsOf(shortLived, expiring.apiKey)).toEqual(['SELECT']);

      const { apiKey, organizationId } = await server.createOrganization();
      const lastUse = async () =>
        (await server.db.prisma.apiKey.findFirstOrThrow({ where: { organizationId } })).lastUsedAt?.toISOString();
      const start = clock.now().getTime();
      expect(await statementsOf(longLived, apiKey)).toEqual(['SELECT', 'UPDATE']);
      expect(await lastUse()).toBe(new Date(start).toISOString());
      clock.advance(60_000);
      expect(await statementsOf(longLived, apiKey)).toEqual([]);
      clock.advance(1);
      // Remembered, and its last use written.
      expect(await statementsOf(longLived, apiKey)).toEqual(['UPDATE']);
      expect(await lastUse()).toBe(new Date(start + 60_001).toISOString());
      clock.advance(1000);
      expect(await statementsOf(longLived, apiKey)).toEqual([]);
    } finally {
      await Promise.all([shortLived.close(), longLived.close()]);
    }
  });

  it('holds a bounded number of keys, and none that are unknown', async () => {
    const cache = new ApiKeyCache(server.db, { ttlMs: 30_000, maxEntries: 3 });
    try {
      await cache.listening();
      const { organizationId } = await server.createOrganization();
      const keys = await Promise.all(
        Array.from({ length: 4 }, async () => (await issueApiKey(server.db.prisma, organizationId)).apiKey),
      );
      const [first, second, third, fourth] = keys as [string, string, string, string];
      for (const key of [first, second, third]) await authenticate(server.db, key, cache);
      expect(cache.size).toBe(3);
      // The first used again, the fourth pushes out the least recently used: the second.
      await authenticate(server.db, first, cache);
      await authenticate(server.db, fourth, cache);
      expect(cache.size).toBe(3);
      const reads = async (key: string) =>
        keyStatements((await recordStatements(server.db, () => authenticate(server.db, key, cache))).statements).length;
      expect(await reads(first)).toBe(0);
      expect(await reads(second)).toBe(1);

      // Made-up keys are read, refused and never kept: by this cache or by the server's.
      const serverSize = server.services.apiKeys.size;
      for (let index = 0; index < 200; index++) {
        expect(await authenticate(server.db, madeUpKey(), cache)).toBeNull();
      }
      for (let index = 0; index < 50; index++) {
        expect((await server.graphql(madeUpKey(), ORGANIZATION)).status).toBe(401);
      }
      expect(cache.size).toBe(3);
      expect(server.services.apiKeys.size).toBe(serverSize);
    } finally {
      await cache.close();
    }
  });

  it('keeps nothing with a TTL of 0', async () => {
    const cache = new ApiKeyCache(server.db, { ttlMs: 0 });
    const { apiKey } = await server.createOrganization();
    for (let index = 0; index < 2; index++) {
      const { statements } = await recordStatements(server.db, () => authenticate(server.db, apiKey, cache));
      expect(keyStatements(statements)[0]).toMatch(/^SELECT/);
    }
    expect(cache.size).toBe(0);
    await cache.close();
  });
});

describe('API_KEY_CACHE_TTL_MS', () => {
  it('defaults to 30 s, accepts 0 (off) to 5 minutes, and refuses anything else by name', () => {
    expect(loadConfig({}).apiKeyCacheTtlMs).toBe(API_KEY_CACHE_TTL_MS);
    expect(API_KEY_CACHE_TTL_MS).toBe(30_000);
    expect(loadConfig({ API_KEY_CACHE_TTL_MS: '0' }).apiKeyCacheTtlMs).toBe(0);
    expect(loadConfig({ API_KEY_CACHE_TTL_MS: '300000' }).apiKeyCacheTtlMs).toBe(300_000);
    for (const bad of ['soon', '-1', '1.5', '300001']) {
      expect(() => loadConfig({ API_KEY_CACHE_TTL_MS: bad })).toThrow(ConfigError);
      expect(() => loadConfig({ API_KEY_CACHE_TTL_MS: bad })).toThrow(/API_KEY_CACHE_TTL_MS: .*given "/);
    }
  });
});

// Two instances in this process: a revocation made by this process's code (through A, or the domain function)
// is also told to B directly, as it would not be in production. A revocation by another process (the CLI
// below) or in SQL reaches B only through the database's notification, on B's listening connection.
describe.runIf(onPostgres)('two instances on one PostgreSQL database', () => {
  let a: TestServer;
  let b: TestServer;
  beforeAll(async () => {
    a = await startTestServer();
    b = await startTestServer({ sharing: a });
    await Promise.all([a.services.apiKeys.listening(), b.services.apiKeys.listening()]);
  });
  afterAll(async () => {
    await b.close();
    await a.close();
  });

  it('refuses on B a key revoked through A', async () => {
    const { apiKey } = await a.createOrganization();
    const issued = await issueThrough(a, apiKey);
    await cachedOn(b, issued.apiKey);
    await a.graphql(apiKey, `mutation { revokeApiKey(id: "${issued.apiKeyId}") { id } }`);
    expect((await a.graphql(issued.apiKey, ORGANIZATION)).status).toBe(401);
    await refusedBy(b, issued.apiKey);
  });

  it('refuses on B a key revoked with the domain function on a database connection of its own', async () => {
    const { apiKey } = await a.createOrganization();
    await cachedOn(b, apiKey);
    const cli = await openDatabase(a.db.storage);
    try {
      expect(await revokeApiKey(cli.prisma, apiKey)).toBe(1);
    } finally {
      await cli.close();
    }
    await refusedBy(b, apiKey);
  });

  it('refuses on both a key revoked by `gateway keys revoke`, another process', async () => {
    const { apiKey } = await a.createOrganization();
    await cachedOn(a, apiKey);
    await cachedOn(b, apiKey);
    const revoked = await runCli(['keys', 'revoke', '--key', apiKey], a.storage!.env);
    expect(JSON.parse(revoked.stdout)).toEqual({ revoked: 1 });
    // Nothing in this process was told: only the database's notification reaches the two caches.
    await refusedBy(a, apiKey);
    await refusedBy(b, apiKey);
  });

  it('forgets every key when its listening connection is lost, and listens again', async () => {
    const { apiKey } = await a.createOrganization();
    await cachedOn(b, apiKey);
    expect(b.services.apiKeys.size).toBeGreaterThan(0);
    const database = new URL(a.db.storage.kind === 'postgres' ? a.db.storage.url : '').pathname.slice(1);
    const terminated = await withAdminClient(async (client) => {
      const { rows } = await client.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND query LIKE 'LISTEN %'`,
        [database],
      );
      return rows.length;
    });
    expect(terminated).toBeGreaterThanOrEqual(2);
    await eventually(async () => (b.services.apiKeys.size === 0 ? true : undefined), 20_000, 'the cache emptied');
    // Revoked while B may not be listening yet: B reads it again, or hears it once listening again.
    await revokeInSql(a.db, apiKey);
    expect((await b.graphql(apiKey, ORGANIZATION)).status).toBe(401);

    // Listening again, B keeps keys again.
    const other = await a.createOrganization();
    await eventually(
      async () => {
        await b.graphql(other.apiKey, ORGANIZATION);
        const { statements } = await recordStatements(b.db, () => b.graphql(other.apiKey, ORGANIZATION));
        return keyStatements(statements).length === 0 ? true : undefined;
      },
      20_000,
      'B to keep keys again',
    );
    await revokeInSql(a.db, other.apiKey);
    await refusedBy(b, other.apiKey);
  });
});
