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
// An answer is dropped when something it read changes, by its tags, taken
// once as it is kept from the entities the cache plugin collected:
// - `<Type>:<id>`, for each object with an id it read (a Batch, an Agent, a
//   Run…): the change events that drive batchProgress drop `Batch:<id>`, a
//   mutation drops those of the objects it returned (use-write-invalidations.ts);
// - `Type:<organization>:<Type>`, for each object type its document may read,
//   lists (connections) included, whatever the answer held: a mutation that may add an item to a list, or move one in or out
//   of it, drops the answers that read that type;
// - `Organization:<id>`, on every answer: a mutation whose writes are not
//   known in detail drops all of its organization's answers.
// Ids are unique across organizations and type tags carry theirs: one
// organization's changes never drop another's answers.
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

const RESPONSE_PREFIX = 'responseCache:r:';
/** Misses awaiting their text to be kept; past it, the oldest is forgotten (answered, not kept). */
const PENDING_LIMIT = 10_000;
const TAG_PREFIX = 'responseCache:t:';

/** The key of an answer: its organization, then the plugin's hash of session, document and variables. */
export const cacheKeyOf = (organizationId: string, hash: string) => `${organizationId}/${hash}`;
const organizationOf = (key: string) => key.slice(0, key.indexOf('/'));

/** The tag of the answers that read an object. */
export const entityTag = (typename: string, id: string) => `${typename}:${id}`;
/** The tag of the organization's answers that read a type (an object of it, or a list of them). */
export const typeTag = (organizationId: string, typename: string) => `Type:${organizationId}:${typename}`;
/** The tag of every answer of the organization. */
const organizationTag = (organizationId: string) => `Organization:${organizationId}`;

/** An answer's tags: each object it read, each type it may read, and its organization. */
function tagsOf(key: string, entities: Iterable<CacheEntityRecord>, types: string[]): string[] {
  const organizationId = organizationOf(key);
  const tags = new Set([organizationTag(organizationId)]);
  for (const typename of types) tags.add(typeTag(organizationId, typename));
  for (const { typename, id } of entities) if (id != null) tags.add(entityTag(typename, String(id)));
  return [...tags];
}

/** A tag as the plugin's in-memory cache names entities: the type before the first colon, the id after. */
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
  private readonly pending = new Map<string, { entities: CacheEntityRecord[]; ttl: number }>();
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
        // A miss whose answer is never written (its request aborted) is not waited for past a bound.
        if (this.pending.size >= PENDING_LIMIT) this.pending.delete(this.pending.keys().next().value as string);
        this.pending.set(key, { entities: [...entities], ttl });
      },
      // Mutations are not the plugin's to drop answers for (use-write-invalidations.ts does, by organization).
      invalidate: () => undefined,
    };
  }

  /**
   * Keeps the answer under its key, if the plugin chose to keep it, as the
   * text it is written with, tagged with the types its document may read;
   * that text, or undefined when it is not kept.
   */
  keep(key: string, answer: CacheAnswer, types: string[]): string | undefined {
    const pending = this.pending.get(key);
    if (!pending) return undefined;
    this.pending.delete(key);
    const text = answerText(answer);
    void this.texts.keep(key, text, tagsOf(key, pending.entities, types), pending.ttl);
    return text;
  }

  /**
   * Drops the answers that hold the batch (its progress changed); the batch's
   * organization, null when not known (needed on a cluster only).
   */
  batchChanged(batchId: string, organizationId: string | null): void {
    void this.texts.drop(organizationId, [entityTag('Batch', batchId)]);
  }

  /** Drops the organization's answers that hold any of the tags (entityTag, typeTag). */
  dropTagged(organizationId: string, tags: string[]): Promise<void> | void {
    return this.texts.drop(organizationId, tags);
  }

  /** Drops every answer of the organization (it wrote something not known in detail). */
  organizationChanged(organizationId: string): Promise<void> | void {
    return this.texts.drop(organizationId, [organizationTag(organizationId)]);
  }
}
