// Where the GraphQL response cache (src/graphql/use-response-cache.ts) keeps
// its answers: in Redis when there is one, shared by every instance, else in
// this instance's memory (an LRU of RESPONSE_CACHE_MAX_ENTRIES answers).
//
// An answer is dropped when something it holds changes, by two tags only:
// - `Batch:<id>`, for each batch the answer holds: the change events that drive
//   batchProgress (mutations on the batch, the run engine's attempts and
//   settlements, which move its counters) invalidate it;
// - `Organization:<id>`, on every answer (its key starts with the organization,
//   see cacheKeyOf): every mutation of the organization invalidates it, so a
//   list gains the item just created, whatever the write.
// Other tags the cache plugin collects (each Run, Prospect… of an answer) are
// not kept: nothing invalidates by them that the two above do not cover, and a
// dashboard answer holds a thousand. Tags hold ids, unique across
// organizations: one organization's changes never drop another's answers.
//
// Redis is an accelerator here too: while it does not answer
// (src/redis/redis-health.ts) every request misses and nothing is kept.
// Invalidations made meanwhile are lost; the answers they should have dropped
// expire within RESPONSE_CACHE_TTL_MS.
//
// On a Redis Cluster (REDIS_CLUSTER_NODES) an organization's answers and tag
// sets carry its id as their hash tag (`responseCache:r:{org_…}/…`,
// `responseCache:t:{org_…}:Batch:bat_…`): they share a slot, so keeping an
// answer with its tags (MULTI) and dropping a tag with its answers (DEL of
// several keys) stay single-slot commands, as a cluster requires.
import { type Cache, createInMemoryCache } from '@graphql-yoga/plugin-response-cache';
import { RESPONSE_CACHE_MAX_ENTRIES, RESPONSE_CACHE_TTL_MS } from '../config.ts';
import type { SharedRedis } from '../redis/shared-redis.ts';

type CacheEntityRecord = Parameters<Cache['invalidate']>[0] extends Iterable<infer Entity> ? Entity : never;

/** The cache, and how the store drops answers by tag for an organization (null: not known). */
interface TaggedCache extends Cache {
  drop(organizationId: string | null, tags: string[]): Promise<void> | void;
}

const TAGGED_TYPES = new Set(['Batch', 'Organization']);
const RESPONSE_PREFIX = 'responseCache:r:';
const TAG_PREFIX = 'responseCache:t:';

/** The key of an answer: its organization, then the plugin's hash of session, document and variables. */
export const cacheKeyOf = (organizationId: string, hash: string) => `${organizationId}/${hash}`;
const organizationOf = (key: string) => key.slice(0, key.indexOf('/'));

/** The tags kept of those collected: the batches, and the answer's organization. */
function tagsOf(key: string, entities: Iterable<CacheEntityRecord>): string[] {
  const tags = new Set([`Organization:${organizationOf(key)}`]);
  for (const { typename, id } of entities) if (id != null && TAGGED_TYPES.has(typename)) tags.add(`${typename}:${id}`);
  return [...tags];
}

const entityTags = (entities: Iterable<CacheEntityRecord>) =>
  [...entities].flatMap(({ typename, id }) => (id != null && TAGGED_TYPES.has(typename) ? [`${typename}:${id}`] : []));

const entityOf = (tag: string) => ({ typename: tag.slice(0, tag.indexOf(':')), id: tag.slice(tag.indexOf(':') + 1) });

/** The answers in this instance's memory. */
function memoryCache(maxEntries: number): TaggedCache {
  const cache = createInMemoryCache({ max: maxEntries });
  return {
    get: (key) => cache.get(key),
    set: (key, result, entities, ttl) => cache.set(key, result, tagsOf(key, entities).map(entityOf), ttl),
    invalidate: (entities) => cache.invalidate(entities),
    drop: (_organizationId, tags) => cache.invalidate(tags.map(entityOf)),
  };
}

/**
 * The answers in Redis: each under its key with its TTL, and one set per tag
 * naming the answers that hold it, which expires with the last of them (every
 * answer has the same TTL).
 */
function redisCache({ client: redis, health, sharded, hashTag }: SharedRedis): TaggedCache {
  /** A command's outcome told to the health check; a failure is a miss, or a change not kept. */
  const guarded = <T>(command: () => Promise<T>, fallback: T) => health.guarded(command, fallback);
  /** An answer's key: behind its organization's hash tag on a cluster (the plugin's key starts with the organization). */
  const answerKey = (key: string) => {
    const organizationId = organizationOf(key);
    return RESPONSE_PREFIX + hashTag(organizationId) + key.slice(organizationId.length);
  };
  /** A tag's set of the answers holding it: on a cluster, one per organization, in its slot. */
  const tagKey = (organizationId: string, tag: string) =>
    TAG_PREFIX + (sharded ? `${hashTag(organizationId)}:` : '') + tag;
  const drop = (organizationId: string | null, tags: string[]) =>
    guarded(async () => {
      // On a cluster the tag's set is found by its organization; unknown, there is nothing to drop.
      if (sharded && organizationId === null) return;
      for (const tag of tags) {
        const tagged = tagKey(organizationId ?? '', tag);
        const keys = await redis.smembers(tagged);
        await redis.del(tagged, ...keys.map(answerKey));
      }
    }, undefined);
  return {
    get: (key) =>
      guarded(async () => {
        const text = await redis.get(answerKey(key));
        return text ? JSON.parse(text) : undefined;
      }, undefined),
    set: (key, result, entities, ttl) =>
      guarded(async () => {
        const organizationId = organizationOf(key);
        const pipeline = redis.multi().set(answerKey(key), JSON.stringify(result), 'PX', ttl);
        for (const tag of tagsOf(key, entities)) {
          pipeline.sadd(tagKey(organizationId, tag), key).pexpire(tagKey(organizationId, tag), ttl);
        }
        await pipeline.exec();
      }, undefined),
    // What the plugin drops (what a mutation returned) names no organization but its own tag's: on a
    // cluster the batches' tags are left, as every mutation drops its organization's answers anyway.
    invalidate: async (entities) => {
      const tags = entityTags(entities);
      if (!sharded) return drop(null, tags);
      for (const tag of tags) if (tag.startsWith('Organization:')) await drop(entityOf(tag).id, [tag]);
    },
    drop,
  };
}

export interface ResponseCacheSettings {
  /** How long an answer is kept at most (RESPONSE_CACHE_TTL_MS); 0: the cache is off. */
  ttlMs: number;
  /** Answers kept in memory without Redis (RESPONSE_CACHE_MAX_ENTRIES). */
  maxEntries: number;
}

export const defaultResponseCacheSettings: ResponseCacheSettings = {
  ttlMs: RESPONSE_CACHE_TTL_MS,
  maxEntries: RESPONSE_CACHE_MAX_ENTRIES,
};

export class ResponseCacheStore {
  readonly cache: TaggedCache;

  constructor(
    readonly settings: ResponseCacheSettings,
    redis?: SharedRedis,
  ) {
    this.cache = redis ? redisCache(redis) : memoryCache(settings.maxEntries);
  }

  /**
   * Drops the answers that hold the batch (its progress changed); the batch's
   * organization, null when not known (needed on a cluster only).
   */
  batchChanged(batchId: string, organizationId: string | null): void {
    void this.cache.drop(organizationId, [`Batch:${batchId}`]);
  }

  /** Drops every answer of the organization (it wrote something). */
  organizationChanged(organizationId: string): void {
    void this.cache.drop(organizationId, [`Organization:${organizationId}`]);
  }
}
