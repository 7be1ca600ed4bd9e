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
import { type Cache, createInMemoryCache } from '@graphql-yoga/plugin-response-cache';
import { RESPONSE_CACHE_MAX_ENTRIES, RESPONSE_CACHE_TTL_MS } from '../config.ts';
import type { RedisChannels } from './batch-progress.ts';

type Redis = RedisChannels['publish'];
type CacheEntityRecord = Parameters<Cache['invalidate']>[0] extends Iterable<infer Entity> ? Entity : never;
type Health = RedisChannels['health'];

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

/** The answers in this instance's memory. */
function memoryCache(maxEntries: number): Cache {
  const cache = createInMemoryCache({ max: maxEntries });
  return {
    get: (key) => cache.get(key),
    set: (key, result, entities, ttl) =>
      cache.set(
        key,
        result,
        tagsOf(key, entities).map((tag) => ({
          typename: tag.slice(0, tag.indexOf(':')),
          id: tag.slice(tag.indexOf(':') + 1),
        })),
        ttl,
      ),
    invalidate: (entities) => cache.invalidate(entities),
  };
}

/**
 * The answers in Redis: each under its key with its TTL, and one set per tag
 * naming the answers that hold it, which expires with the last of them (every
 * answer has the same TTL).
 */
function redisCache(redis: Redis, health: Health): Cache {
  /** A command's outcome told to the health check; a failure is a miss, or a change not kept. */
  const guarded = <T>(command: () => Promise<T>, fallback: T) => health.guarded(command, fallback);
  return {
    get: (key) =>
      guarded(async () => {
        const text = await redis.get(RESPONSE_PREFIX + key);
        return text ? JSON.parse(text) : undefined;
      }, undefined),
    set: (key, result, entities, ttl) =>
      guarded(async () => {
        const pipeline = redis.multi().set(RESPONSE_PREFIX + key, JSON.stringify(result), 'PX', ttl);
        for (const tag of tagsOf(key, entities)) pipeline.sadd(TAG_PREFIX + tag, key).pexpire(TAG_PREFIX + tag, ttl);
        await pipeline.exec();
      }, undefined),
    invalidate: (entities) =>
      guarded(async () => {
        for (const tag of entityTags(entities)) {
          const keys = await redis.smembers(TAG_PREFIX + tag);
          await redis.del(TAG_PREFIX + tag, ...keys.map((key) => RESPONSE_PREFIX + key));
        }
      }, undefined),
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
  readonly cache: Cache;

  constructor(
    readonly settings: ResponseCacheSettings,
    redis?: { publish: Redis; health: Health },
  ) {
    this.cache = redis ? redisCache(redis.publish, redis.health) : memoryCache(settings.maxEntries);
  }

  /** Drops the answers that hold the batch (its progress changed). */
  batchChanged(batchId: string): void {
    void this.cache.invalidate([{ typename: 'Batch', id: batchId }]);
  }

  /** Drops every answer of the organization (it wrote something). */
  organizationChanged(organizationId: string): void {
    void this.cache.invalidate([{ typename: 'Organization', id: organizationId }]);
  }
}
