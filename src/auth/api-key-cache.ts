// Verified API keys, remembered for a few seconds (API_KEY_CACHE_TTL_MS) so
// that a request usually authenticates without a database round trip
// (src/auth/authenticate.ts). One cache per server instance (src/services.ts).
//
// A revoked key must be refused at once, on every instance, so a cache keeps
// keys only while it hears of revocations:
// - from the database: a trigger on "ApiKey" notifies the key's hash on the
//   "api_key_revoked" channel when it is revoked, rotated or deleted, or its
//   scopes or expiry change, by any process
//   (prisma/migrations/20261122201800_api_key_revoked_notify, and
//   20261125213000_api_key_scopes for scopes and expiry), and
//   each cache LISTENs on its own connection (Database.listen). While that
//   connection is lost the cache is empty and keeps nothing, and it is emptied
//   again when the connection is back (what was said meanwhile is lost);
// - in this process, at once: the domain's revocations (src/domain/organizations.ts)
//   call `forgetRevokedKey` after they commit, so the revoking instance never
//   waits for its own notification.
// A read that started before a key was forgotten may have seen it valid: what
// it found is not kept (the generation below). Unknown and revoked keys are
// never kept, so keys made up by a client cost a read each and no memory; the
// cache holds at most API_KEY_CACHE_MAX_ENTRIES keys, the least recently used
// forgotten first. Whatever goes wrong with notifications, the TTL bounds how
// long a revoked key can still be accepted. An expiring key is refused at its
// expiry whether cached or not (the entry holds it).
import { BoundedMap } from '../bounded-map.ts';
import { type Clock, systemClock } from '../clock.ts';
import type { Database } from '../db/database.ts';
import type { Viewer } from './authenticate.ts';

/** The channel the "ApiKey" trigger notifies, with the hash of the key revoked. */
const REVOKED_KEYS_CHANNEL = 'api_key_revoked';

/** How often a long-lived connection's key is verified again when keys are not cached (API_KEY_CACHE_TTL_MS=0). */
const RECHECK_UNCACHED_MS = 1_000;

/** Keys one cache holds at most (a few MiB): past it, the least recently used is forgotten. */
const API_KEY_CACHE_MAX_ENTRIES = 10_000;

/**
 * A key found valid in the database (its viewer carries its scopes), when it
 * was last used (ms; null: never), as read or last written, and when it
 * expires (ms; null: never).
 */
export interface VerifiedKey {
  viewer: Viewer;
  lastUsedAt: number | null;
  keyExpiresAt: number | null;
}

interface Entry extends VerifiedKey {
  expiresAt: number;
}

export interface ApiKeyCacheOptions {
  /** How long a verified key is remembered; 0 turns the cache off (every request reads the key). */
  ttlMs: number;
  maxEntries?: number;
  clock?: Clock;
}

/** The caches of this process that are open: the domain's revocations reach them directly. */
const openCaches = new Set<ApiKeyCache>();

/**
 * Forgets a revoked key in every cache of this process, without waiting for the database's
 * notification. Called after the revocation committed.
 */
export function forgetRevokedKey(hash: string): void {
  for (const cache of openCaches) cache.forget(hash);
}

export class ApiKeyCache {
  readonly #entries: BoundedMap<string, Entry>;
  readonly #ttlMs: number;
  readonly #clock: Clock;
  readonly #stop: () => Promise<void>;
  /** Whether revocations are heard: keys are kept only then. */
  #listening = false;
  /** Moves on whenever a key is forgotten or listening starts or stops: a read begun before may not be kept. */
  #generation = 0;
  readonly #heard: Promise<void>;
  #hear: () => void = () => {};

  constructor(
    db: Database,
    { ttlMs, maxEntries = API_KEY_CACHE_MAX_ENTRIES, clock = systemClock }: ApiKeyCacheOptions,
  ) {
    this.#ttlMs = ttlMs;
    this.#entries = new BoundedMap(maxEntries);
    this.#clock = clock;
    this.#heard = new Promise((resolve) => {
      this.#hear = resolve;
    });
    if (ttlMs <= 0) {
      this.#stop = async () => {};
      return;
    }
    openCaches.add(this);
    this.#stop = db.listen(REVOKED_KEYS_CHANNEL, {
      notify: (hash) => this.forget(hash),
      listening: () => this.#reset(true),
      lost: () => this.#reset(false),
    });
  }

  /** The time keys expire and last uses are counted by. */
  now(): number {
    return this.#clock.now().getTime();
  }

  /** The key with this hash, if it was verified less than the TTL ago, not revoked since, and not expired. */
  get(hash: string, now: number): VerifiedKey | undefined {
    const entry = this.#entries.get(hash);
    if (!entry) return undefined;
    if (entry.expiresAt <= now || (entry.keyExpiresAt !== null && entry.keyExpiresAt <= now)) {
      this.#entries.delete(hash);
      return undefined;
    }
    // Back at the end: the Map's order is the order of last use.
    this.#entries.set(hash, entry);
    return entry;
  }

  /**
   * Resolves when a key verified now is to be verified again, on this cache's
   * clock: after the TTL (what a revoked or expired key may still be accepted
   * for), so a long-lived connection (graphql-ws) stops within it too.
   * Rejects when `signal` aborts.
   */
  untilRecheck(signal: AbortSignal): Promise<void> {
    return this.#clock.sleepUntil(new Date(this.now() + (this.#ttlMs || RECHECK_UNCACHED_MS)), signal);
  }

  /** Taken before reading a key from the database, and given back to `keep` with what was read. */
  generation(): number {
    return this.#generation;
  }

  /** Remembers a key read valid, unless a key was forgotten, or revocations went unheard, since `generation`. */
  keep(hash: string, key: VerifiedKey, generation: number): void {
    if (!this.#listening || generation !== this.#generation) return;
    this.#entries.set(hash, Object.assign(key, { expiresAt: this.now() + this.#ttlMs }));
  }

  forget(hash: string): void {
    this.#entries.delete(hash);
    this.#generation++;
  }

  #reset(listening: boolean): void {
    this.#entries.clear();
    this.#generation++;
    this.#listening = listening;
    if (listening) this.#hear();
  }

  /** How many keys are remembered. */
  get size(): number {
    return this.#entries.size;
  }

  /** Resolves once revocations are heard (keys are kept from then on). */
  listening(): Promise<void> {
    return this.#heard;
  }

  async close(): Promise<void> {
    openCaches.delete(this);
    await this.#stop();
    this.#reset(false);
  }
}
