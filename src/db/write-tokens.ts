// The WAL position of each API key's last write on this instance, so that the
// key's next read (over any transport, with or without the X-Consistency header)
// sees its own write (src/db/read-replicas.ts).
import { BoundedMap } from '../bounded-map.ts';

/** API keys whose last write is remembered; the least recently written forgets first (its replicas have caught up long since). */
const REMEMBERED_KEYS = 10_000;

export class WriteTokens {
  private readonly positions = new BoundedMap<string, bigint>(REMEMBERED_KEYS);

  /** Remembers `position` as the key's last write, unless a later one is remembered already. */
  async remember(apiKeyId: string, position: bigint): Promise<void> {
    const known = this.positions.get(apiKeyId);
    this.positions.set(apiKeyId, known !== undefined && known > position ? known : position);
  }

  /** The key's last write's position, or null when none is remembered. */
  async last(apiKeyId: string): Promise<bigint | null> {
    return this.positions.get(apiKeyId) ?? null;
  }
}
