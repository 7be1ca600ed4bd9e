// Where the GraphQL response cache (src/graphql/use-response-cache.ts) keeps
// its answers: in Redis when there is one, shared by every instance, else in
// this instance's memory (an LRU of RESPONSE_CACHE_MAX_ENTRIES answers).
// An answer is kept as the text its miss was answered with, and a hit is
// that text again: the cache plugin gets, for an answer found, one whose
// serialiser returns it (nothing is parsed, walked or serialised per hit).
// The plugin hands the store a miss's objects and entities as it executes
// (`set`); they are kept once the answer's final text is known (`keep`, as
// the answer is written), so the text is the body byte for byte.
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
import type { ExecutionResult } from 'graphql';
import { RESPONSE_CACHE_MAX_ENTRIES, RESPONSE_CACHE_TTL_MS } from '../config.ts';
import type { SharedRedis } from '../redis/shared-redis.ts';

/** How yoga marks an answer its plugin found in the cache. */
export const SERVED_FROM_CACHE = Symbol.for('servedFromResponseCache');

/** An answer as yoga's result processors take it: with the serialiser it is written with, and any HTTP headers. */
export type CacheAnswer = ExecutionResult<
  unknown,
  { http?: { headers?: Record<string, string> }; [member: string]: unknown }
> & {
  stringify?: (result: ExecutionResult) => string;
  [SERVED_FROM_CACHE]?: true;
};

type CacheEntityRecord = Parameters<Cache['invalidate']>[0] extends Iterable<infer Entity> ? Entity : never;

/** Where answers are kept as text: found, kept with their tags, dropped by tag for an organization (null: not known). */
interface TextCache {
  find(key: string): Promise<string | undefined> | string | undefined;
  keep(key: string, text: string, tags: string[], ttl: number): Promise<void> | void;
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
function memoryCache(maxEntries: number): TextCache {
  const cache = createInMemoryCache({ max: maxEntries });
  return {
    find: (key) => (cache.get(key) as unknown as string | null) ?? undefined,
    keep: (key, text, tags, ttl) => cache.set(key, text as never, tags.map(entityOf), ttl),
    drop: (_organizationId, tags) => cache.invalidate(tags.map(entityOf)),
  };
}

/**
 * The answers in Redis: each under its key with its TTL, and one set per tag
 * naming the answers that hold it, which expires with the last of them (every
 * answer has the same TTL).
 */
function redisCache({ client: redis, health, sharded, hashTag }: SharedRedis): TextCache {
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
  return {
    find: (key) => guarded(async () => (await redis.get(answerKey(key))) ?? undefined, undefined),
    keep: (key, text, tags, ttl) =>
      guarded(async () => {
        const organizationId = organizationOf(key);
        const pipeline = redis.multi().set(answerKey(key), text, 'PX', ttl);
        for (const tag of tags)
          pipeline.sadd(tagKey(organizationId, tag), key).pexpire(tagKey(organizationId, tag), ttl);
        await pipeline.exec();
      }, undefined),
    drop: (organizationId, tags) =>
      guarded(async () => {
        // On a cluster the tag's set is found by its organization; unknown, there is nothing to drop.
        if (sharded && organizationId === null) return;
        for (const tag of tags) {
          const tagged = tagKey(organizationId ?? '', tag);
          const keys = await redis.smembers(tagged);
          await redis.del(tagged, ...keys.map(answerKey));
        }
      }, undefined),
  };
}

/** The text yoga writes an answer as: its HTTP extension (headers, status) is not part of it. */
function answerText({ stringify, ...answer }: CacheAnswer): string {
  const { http: _http, ...extensions } = answer.extensions ?? {};
  const written = { ...answer, extensions: Object.keys(extensions).length > 0 ? extensions : undefined };
  return (stringify ?? JSON.stringify)(written);
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
  private readonly texts: TextCache;
  /** The misses the plugin decided to keep, by key, until their text is known (keep). */
  private readonly pending = new Map<string, { tags: string[]; ttl: number }>();
  /** What the cache plugin is given: answers found as their text, misses to keep, mutations' entities to drop. */
  readonly cache: Cache;

  constructor(
    readonly settings: ResponseCacheSettings,
    redis?: SharedRedis,
  ) {
    const texts = redis ? redisCache(redis) : memoryCache(settings.maxEntries);
    this.texts = texts;
    const found = (text: string | undefined) => (text === undefined ? undefined : { stringify: () => text });
    this.cache = {
      get: (key) => {
        const text = texts.find(key);
        return (text instanceof Promise ? text.then(found) : found(text)) as ReturnType<Cache['get']>;
      },
      set: (key, _result, entities, ttl) => {
        this.pending.set(key, { tags: tagsOf(key, entities), ttl });
      },
      // What the plugin drops (what a mutation returned) names no organization but its own tag's: on a
      // cluster the batches' tags are left, as every mutation drops its organization's answers anyway.
      invalidate: async (entities) => {
        const tags = entityTags(entities);
        if (!redis?.sharded) return texts.drop(null, tags);
        for (const tag of tags) if (tag.startsWith('Organization:')) await texts.drop(entityOf(tag).id, [tag]);
      },
    };
  }

  /**
   * Keeps the answer under its key, if the plugin chose to keep it, as the
   * text it is written with; that text, or undefined when it is not kept.
   */
  keep(key: string, answer: CacheAnswer): string | undefined {
    const pending = this.pending.get(key);
    if (!pending) return undefined;
    this.pending.delete(key);
    const text = answerText(answer);
    void this.texts.keep(key, text, pending.tags, pending.ttl);
    return text;
  }

  /**
   * Drops the answers that hold the batch (its progress changed); the batch's
   * organization, null when not known (needed on a cluster only).
   */
  batchChanged(batchId: string, organizationId: string | null): void {
    void this.texts.drop(organizationId, [`Batch:${batchId}`]);
  }

  /** Drops every answer of the organization (it wrote something). */
  organizationChanged(organizationId: string): void {
    void this.texts.drop(organizationId, [`Organization:${organizationId}`]);
  }
}
