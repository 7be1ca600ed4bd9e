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
// With Redis, each instance also keeps the answers it lately found or kept
// (RecentAnswers, RESPONSE_CACHE_MEMORY_BYTES at most): an answer in Redis is
// stored behind a nonce of its own, and a hit on a copy asks Redis only for
// that nonce (GETRANGE of its first bytes), never for the whole text. A copy
// whose answer was dropped (by any instance) or replaced is not served: its
// nonce is no longer there. So nothing is served past an invalidation, and a
// hit costs a 16-byte read instead of the answer's.
//
// Identical misses of one instance run once: while one executes, the others
// wait for its answer (at most LEADER_WAIT_MS), as 200 clients polling a
// dashboard that just changed would otherwise all execute it.
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
import { randomBytes } from 'node:crypto';
import { type Cache, createInMemoryCache } from '@graphql-yoga/plugin-response-cache';
import type { ExecutionResult } from 'graphql';
import { RESPONSE_CACHE_MAX_ENTRIES, RESPONSE_CACHE_MEMORY_BYTES, RESPONSE_CACHE_TTL_MS } from '../config.ts';
import { OneCommandPerTurn } from '../redis/one-command-per-turn.ts';
import type { SharedRedis } from '../redis/shared-redis.ts';

/** How yoga marks an answer its plugin found in the cache. */
export const SERVED_FROM_CACHE = Symbol.for('servedFromResponseCache');
/** An answer found in the cache: its text as bytes, written as they are (src/http/app.ts). */
export const CACHED_BYTES = Symbol('cachedBytes');

/** An answer as yoga's result processors take it: with the serialiser it is written with, and any HTTP headers. */
export type CacheAnswer = ExecutionResult<
  unknown,
  { http?: { headers?: Record<string, string> }; [member: string]: unknown }
> & {
  stringify?: (result: ExecutionResult) => string;
  [SERVED_FROM_CACHE]?: true;
  [CACHED_BYTES]?: Buffer;
};

/** An answer kept: its text, and the same as the bytes it is written as (encoded once, as it is kept or fetched). */
interface Kept {
  text: string;
  bytes: Buffer;
}

const keptOf = (text: string): Kept => ({ text, bytes: Buffer.from(text) });
/** What a kept answer holds in memory, roughly: its text (up to 2 bytes a character) and its bytes. */
const sizeOf = (answer: Kept) => answer.text.length * 2 + answer.bytes.length;

type CacheEntityRecord = Parameters<Cache['invalidate']>[0] extends Iterable<infer Entity> ? Entity : never;

/** Where answers are kept: found, kept with their tags, dropped by tag for an organization (null: not known). */
interface TextCache {
  find(key: string): Promise<Kept | undefined> | Kept | undefined;
  keep(key: string, answer: Kept, tags: string[], ttl: number): Promise<void> | void;
  drop(organizationId: string | null, tags: string[]): Promise<void> | void;
}

/**
 * An answer's key in Redis, its value the answer's nonce then its text. The
 * version before kept the bare text under `responseCache:r:`: those keys are
 * dropped with the new ones (its instances still read them during a rolling
 * deploy), never read.
 */
const RESPONSE_PREFIX = 'responseCache:a:';
const FORMER_RESPONSE_PREFIX = 'responseCache:r:';
/** Hex characters of an answer's nonce, before its text in Redis. */
const NONCE_LENGTH = 16;
/** The longest a miss waits for an identical one under way on this instance before executing itself. */
const LEADER_WAIT_MS = 5_000;
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
    find: (key) => (cache.get(key) as unknown as Kept | null) ?? undefined,
    keep: (key, answer, tags, ttl) => cache.set(key, answer as never, tags.map(entityOf), ttl),
    drop: (_organizationId, tags) => cache.invalidate(tags.map(entityOf)),
  };
}

/**
 * The answers this instance found in Redis or kept there lately, each with its
 * nonce, the least recently used dropped first past `maxBytes` (text and bytes).
 */
class RecentAnswers {
  private readonly entries = new Map<string, { nonce: string; answer: Kept }>();
  private size = 0;

  constructor(private readonly maxBytes: number) {}

  get(key: string) {
    const entry = this.entries.get(key);
    if (entry) {
      // Most recently used: last in the map's order.
      this.entries.delete(key);
      this.entries.set(key, entry);
    }
    return entry;
  }

  set(key: string, entry: { nonce: string; answer: Kept }) {
    this.delete(key);
    if (sizeOf(entry.answer) > this.maxBytes) return;
    this.entries.set(key, entry);
    this.size += sizeOf(entry.answer);
    for (const oldest of this.entries.keys()) {
      if (this.size <= this.maxBytes) break;
      this.delete(oldest);
    }
  }

  delete(key: string) {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.size -= sizeOf(entry.answer);
  }
}

/**
 * The answers in Redis: each under its key with its TTL, and one set per tag
 * naming the answers that hold it, which expires with the last of them (every
 * answer has the same TTL). Copies of the recent ones in memory, each checked
 * against its nonce in Redis as it is served.
 */
function redisCache({ client: redis, health, sharded, hashTag }: SharedRedis, maxBytes: number): TextCache {
  /** A command's outcome told to the health check; a failure is a miss, or a change not kept. */
  const guarded = <T>(command: () => Promise<T>, fallback: T) => health.guarded(command, fallback);
  const recent = new RecentAnswers(maxBytes);
  /** An answer's key: behind its organization's hash tag on a cluster (the plugin's key starts with the organization). */
  const answerKey = (key: string, prefix = RESPONSE_PREFIX) => {
    const organizationId = organizationOf(key);
    return prefix + hashTag(organizationId) + key.slice(organizationId.length);
  };
  /** A tag's set of the answers holding it: on a cluster, one per organization, in its slot. */
  const tagKey = (organizationId: string, tag: string) =>
    TAG_PREFIX + (sharded ? `${hashTag(organizationId)}:` : '') + tag;
  /** The whole answer from Redis, copied here. */
  const fetched = async (key: string) => {
    const stored = await guarded(() => redis.getBuffer(answerKey(key)), null);
    if (!stored) return undefined;
    const bytes = stored.subarray(NONCE_LENGTH);
    const answer = { text: bytes.toString(), bytes };
    recent.set(key, { nonce: stored.toString('latin1', 0, NONCE_LENGTH), answer });
    return answer;
  };
  /** An answer's nonce in Redis, read once for the requests of a turn (src/redis/one-command-per-turn.ts); empty when dropped. */
  const nonces = new OneCommandPerTurn((key) =>
    guarded(() => redis.getrange(answerKey(key), 0, NONCE_LENGTH - 1), null),
  );
  return {
    async find(key) {
      const copy = recent.get(key);
      if (!copy) return fetched(key);
      // The copy is the answer while its nonce is in Redis: not dropped, not replaced by another instance's.
      const { result: nonce } = await nonces.join(key);
      if (nonce === copy.nonce) return copy.answer;
      recent.delete(key);
      // Dropped (an empty range), or Redis away: a miss. Replaced: the new answer.
      return nonce ? fetched(key) : undefined;
    },
    keep: (key, answer, tags, ttl) =>
      guarded(async () => {
        const organizationId = organizationOf(key);
        const nonce = randomBytes(NONCE_LENGTH / 2).toString('hex');
        const pipeline = redis
          .multi()
          .set(answerKey(key), Buffer.concat([Buffer.from(nonce, 'latin1'), answer.bytes]), 'PX', ttl);
        for (const tag of tags)
          pipeline.sadd(tagKey(organizationId, tag), key).pexpire(tagKey(organizationId, tag), ttl);
        await pipeline.exec();
        recent.set(key, { nonce, answer });
      }, undefined),
    drop: (organizationId, tags) =>
      guarded(async () => {
        // On a cluster the tag's set is found by its organization; unknown, there is nothing to drop.
        if (sharded && organizationId === null) return;
        for (const tag of tags) {
          const tagged = tagKey(organizationId ?? '', tag);
          const keys = await redis.smembers(tagged);
          const answers = keys.flatMap((key) => [answerKey(key), answerKey(key, FORMER_RESPONSE_PREFIX)]);
          await redis.del(tagged, ...answers);
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
  /** With Redis, the characters of answers an instance keeps copies of (RESPONSE_CACHE_MEMORY_BYTES). */
  memoryBytes?: number;
}

export const defaultResponseCacheSettings: ResponseCacheSettings = {
  ttlMs: RESPONSE_CACHE_TTL_MS,
  maxEntries: RESPONSE_CACHE_MAX_ENTRIES,
  memoryBytes: RESPONSE_CACHE_MEMORY_BYTES,
};

export class ResponseCacheStore {
  private readonly texts: TextCache;
  /** The misses the plugin decided to keep, by key, until their text is known (keep). */
  private readonly pending = new Map<string, { entities: CacheEntityRecord[]; ttl: number }>();
  /**
   * The requests looking an answer up on this instance, by key, each with the
   * identical ones waiting for it to be answered (and its answer kept).
   */
  private readonly leaders = new Map<string, { owner: object; answered: Promise<void>; settle: () => void }>();
  /** What the cache plugin is given: answers found as their text, misses to keep, mutations' entities to drop. */
  readonly cache: Cache;

  constructor(
    readonly settings: ResponseCacheSettings,
    redis?: SharedRedis,
  ) {
    const texts = redis
      ? redisCache(redis, settings.memoryBytes ?? RESPONSE_CACHE_MEMORY_BYTES)
      : memoryCache(settings.maxEntries);
    this.texts = texts;
    const found = (answer: Kept | undefined) =>
      answer && { stringify: () => answer.text, [CACHED_BYTES]: answer.bytes };
    this.cache = {
      get: (key) => {
        const answer = texts.find(key);
        return (answer instanceof Promise ? answer.then(found) : found(answer)) as ReturnType<Cache['get']>;
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

  /** The answer kept under `key` (in Redis, a copy whose nonce is still there), as the plugin's look-up finds it. */
  find(key: string): Promise<Kept | undefined> | Kept | undefined {
    return this.texts.find(key);
  }

  /**
   * Before `owner` (a request) looks `key` up: when an identical request is
   * under way here, resolves once it is answered (and its answer kept, so this
   * one finds it), at most LEADER_WAIT_MS later; else `owner` leads, and
   * identical requests wait for it until `answered(key, owner)`.
   */
  lead(key: string, owner: object): Promise<void> | undefined {
    const leader = this.leaders.get(key);
    if (leader) return leader.answered;
    let settle = () => {};
    const answered = new Promise<void>((resolve) => {
      settle = resolve;
    });
    const timer = setTimeout(() => this.answered(key, owner), LEADER_WAIT_MS);
    timer.unref();
    this.leaders.set(key, {
      owner,
      answered,
      settle: () => {
        clearTimeout(timer);
        settle();
      },
    });
    return undefined;
  }

  /** `owner`'s request for `key` is answered: those waiting look it up (or execute). */
  answered(key: string, owner: object): void {
    const leader = this.leaders.get(key);
    if (leader?.owner !== owner) return;
    this.leaders.delete(key);
    leader.settle();
  }

  /**
   * A drop of the organization's answers (null: any organization's): those
   * waiting for a request under way stop (its answer may predate the change).
   */
  private dropping(organizationId: string | null) {
    for (const [key, leader] of this.leaders) {
      if (organizationId !== null && organizationOf(key) !== organizationId) continue;
      this.leaders.delete(key);
      leader.settle();
    }
  }

  /**
   * Keeps the answer under its key, if the plugin chose to keep it, as the
   * text it is written with, tagged with the types its document may read:
   * that text, and when it is kept; undefined when it is not kept.
   */
  keep(key: string, answer: CacheAnswer, types: string[]): { text: string; kept: Promise<void> | void } | undefined {
    const pending = this.pending.get(key);
    if (!pending) return undefined;
    this.pending.delete(key);
    const text = answerText(answer);
    return { text, kept: this.texts.keep(key, keptOf(text), tagsOf(key, pending.entities, types), pending.ttl) };
  }

  /**
   * Drops the answers that hold the batch (its progress changed); the batch's
   * organization, null when not known (needed on a cluster only).
   */
  batchChanged(batchId: string, organizationId: string | null): void {
    this.dropping(organizationId);
    void this.texts.drop(organizationId, [entityTag('Batch', batchId)]);
  }

  /** Drops the organization's answers that hold any of the tags (entityTag, typeTag). */
  dropTagged(organizationId: string, tags: string[]): Promise<void> | void {
    this.dropping(organizationId);
    return this.texts.drop(organizationId, tags);
  }

  /** Drops every answer of the organization (it wrote something not known in detail). */
  organizationChanged(organizationId: string): Promise<void> | void {
    this.dropping(organizationId);
    return this.texts.drop(organizationId, [organizationTag(organizationId)]);
  }
}
