// Whether Redis answers. Redis carries rate-limit counters and progress events
// between instances, but no request depends on it: while it does not answer,
// rate limits count on each instance and progress events are polled
// (src/requests/rate-limits.ts, src/events/batch-progress.ts), and they learn when
// that is from here, as do /ready, /metrics and the log (one line per change).
import type { Cluster, Redis, RedisOptions } from 'ioredis';

/**
 * Options for every Redis client: no command waits long for Redis. Commands
 * sent before the first connection wait for it (the offline queue), so the
 * first requests already count in Redis; after a connection is lost, callers
 * stop sending (RedisHealth.tryRedis) and what was under way fails at once.
 */
export const redisClientOptions: RedisOptions = {
  // A command in flight or queued when the connection drops fails then, not after reconnection attempts.
  maxRetriesPerRequest: 0,
  // A command fails within this whatever happens: a Redis that keeps its connections but does not
  // answer (hung, swapping), or one that cannot be reached at start.
  commandTimeout: 1_000,
};

/** After a failed command, Redis is tried again at most this often while its connections stay up. */
const PROBE_INTERVAL_MS = 1_000;

export class RedisHealth {
  /** Clients whose connection is lost. */
  private readonly down = new Set<Redis | Cluster>();
  /** When a command last failed (or a probe was let through), while none has succeeded since. */
  private failedAt: number | null = null;
  private readonly listeners = new Set<(degraded: boolean) => void>();
  private reported = false;
  private readonly detach: (() => void)[] = [];

  constructor(
    /** One server's clients, or a cluster's (which is ready while it reaches the masters of every slot). */
    clients: (Redis | Cluster)[],
    private readonly now: () => number = Date.now,
  ) {
    for (const client of clients) {
      if (['reconnecting', 'close', 'end'].includes(client.status)) this.down.add(client);
      // A fresh connection is a fresh start: commands that failed before it no longer count.
      const up = () =>
        this.mark(() => {
          this.down.delete(client);
          this.failedAt = null;
        });
      // 'close' comes with each lost connection and each failed reconnection; 'end' when ioredis gives up.
      const lost = () => this.mark(() => this.down.add(client));
      // Failures are reported through the state; a listener keeps ioredis from printing each one.
      const ignore = () => {};
      client.on('ready', up).on('close', lost).on('end', lost).on('error', ignore);
      this.detach.push(() => client.off('ready', up).off('close', lost).off('end', lost).off('error', ignore));
    }
  }

  /** Whether Redis is (believed) unreachable. */
  get degraded(): boolean {
    return this.down.size > 0 || this.failedAt !== null;
  }

  /**
   * Whether to send a command now: no connection is lost, and no command
   * failed lately. After a failure one caller a second is let through, so a
   * Redis that answers again is noticed without every request waiting on it.
   */
  tryRedis(): boolean {
    if (this.down.size > 0) return false;
    if (this.failedAt === null) return true;
    if (this.now() - this.failedAt < PROBE_INTERVAL_MS) return false;
    this.failedAt = this.now();
    return true;
  }

  /** `command`'s answer, its outcome told here; `fallback` when Redis is not to be tried now (tryRedis) or the command fails. */
  guarded<T>(command: () => Promise<T>, fallback: T): Promise<T> {
    if (!this.tryRedis()) return Promise.resolve(fallback);
    return command().then(
      (value) => {
        this.commandSucceeded();
        return value;
      },
      () => {
        this.commandFailed();
        return fallback;
      },
    );
  }

  commandFailed(): void {
    this.mark(() => (this.failedAt = this.now()));
  }

  commandSucceeded(): void {
    if (this.failedAt !== null) this.mark(() => (this.failedAt = null));
  }

  /** Calls `listener` with each change of `degraded`; returns the function that stops it. */
  onChange(listener: (degraded: boolean) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Stops following the clients (before they are closed on purpose). */
  stop(): void {
    for (const detach of this.detach.splice(0)) detach();
    this.listeners.clear();
  }

  private mark(change: () => unknown) {
    change();
    if (this.degraded === this.reported) return;
    this.reported = this.degraded;
    for (const listener of this.listeners) listener(this.reported);
  }
}
