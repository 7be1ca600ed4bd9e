// The WAL position of each API key's last write, so that the key's next read
// (over any transport, on any instance, with or without the X-Consistency
// header) sees its own write (src/db/read-replicas.ts). In this instance's
// memory, and in Redis when there is one: another instance's read asks Redis.
// While Redis does not answer (src/redis/redis-health.ts), only the instance
// that wrote knows; a client that reads elsewhere sends its token.

import { BoundedMap } from '../bounded-map.ts';
import type { RedisHealth } from '../redis/redis-health.ts';
import type { RedisClient } from '../redis/shared-redis.ts';

/** API keys whose last write is remembered; the least recently written forgets first (its replicas have caught up long since). */
const REMEMBERED_KEYS = 10_000;
const PREFIX = 'replicaReads:lastWrite:';

export interface SharedWriteTokens {
  redis: RedisClient;
  health: RedisHealth;
  /** How long Redis keeps a key's last write: past it, every replica still in rotation has replayed it. */
  ttlMs: number;
}

export class WriteTokens {
  private readonly positions = new BoundedMap<string, bigint>(REMEMBERED_KEYS);

  constructor(private readonly shared?: SharedWriteTokens) {}

  /** Remembers `position` as the key's last write, unless a later one is remembered already. */
  async remember(apiKeyId: string, position: bigint): Promise<void> {
    const known = this.positions.get(apiKeyId);
    this.positions.set(apiKeyId, known !== undefined && known > position ? known : position);
    const shared = this.shared;
    // Two instances writing for one key at once: the later SET may hold the earlier position; each writer's
    // own instance still knows its own, and its client has its token.
    await shared?.health.guarded(
      () => shared.redis.set(PREFIX + apiKeyId, position.toString(), 'PX', shared.ttlMs),
      null,
    );
  }

  /** The key's last write's position, or null when none is remembered. */
  async last(apiKeyId: string): Promise<bigint | null> {
    const local = this.positions.get(apiKeyId) ?? null;
    const shared = this.shared;
    const text = shared ? await shared.health.guarded(() => shared.redis.get(PREFIX + apiKeyId), null) : null;
    const remote = text !== null && /^\d{1,20}$/.test(text) ? BigInt(text) : null;
    return local === null || (remote !== null && remote > local) ? remote : local;
  }
}
