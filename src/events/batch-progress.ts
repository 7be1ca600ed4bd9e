// Live batch progress. Whoever changes a batch (a mutation, the run engine)
// announces it: to this instance's watchers, and through Redis pub/sub to
// every other instance. Each instance keeps one watcher per batch its clients
// follow: an announcement makes the watcher read the batch once (at most once
// per interval) and hand the fresh state to every local subscriber. Reading
// after the last announcement means the last state is always delivered,
// however many changes were coalesced.
//
// Redis is an accelerator, not a dependency: while it does not answer
// (src/redis/redis-health.ts) other instances' announcements cannot arrive,
// so every watcher reads its batch once per poll interval instead. When Redis
// returns, the watchers' channels are subscribed again and each reads once, to
// catch up; then announcements take over again.
//
// An instance may also be the only one that cannot reach Redis (its connection
// lost, or its own event loop blocked past the command timeout) while the
// others can: they do not poll, so what it could not announce would reach their
// subscribers only with some later change. It remembers each batch it could not
// announce (once per batch, whatever the number of changes) and announces them
// all when Redis answers again; one whose announcement fails is kept for the next.
//
// On a Redis Cluster (REDIS_CLUSTER_NODES) each batch's channel carries the
// batch's id as its hash tag: announcements go over sharded pub/sub to the
// one master serving that slot, and batches spread over the masters.
import type { Batch } from '../generated/prisma/client.ts';
import type { SharedRedis } from '../redis/shared-redis.ts';
import { LatestValue } from './latest-value.ts';

const PROGRESS_INTERVAL_MS = 100;
/** How often a followed batch is read while Redis is away. */
const POLL_INTERVAL_MS = 1_000;

/**
 * One channel per batch: an instance hears only of the batches its clients
 * follow. On one server, channel and message are those of the version before
 * (yoga's Redis event target), so old and new instances hear each other during
 * a rolling deploy; on a cluster the batch id is the channel's hash tag.
 */
const CHANNEL_PREFIX = 'batchChanged:';
const MESSAGE = 'true';

const channelOf = (redis: SharedRedis, batchId: string) => CHANNEL_PREFIX + redis.hashTag(batchId);

export interface HubTimings {
  /** At most one read per batch per this (default PROGRESS_INTERVAL_MS). */
  intervalMs?: number;
  /** Reads per batch while Redis is away (default POLL_INTERVAL_MS). */
  pollMs?: number;
}

interface Watcher {
  batchId: string;
  /** Its Redis channel (empty without Redis). */
  channel: string;
  listeners: Set<(batch: Batch) => void>;
  timer: NodeJS.Timeout | null;
  lastReadAt: number;
  /** An announcement came while a read was under way: read again after it. */
  dirty: boolean;
  reading: boolean;
}

export class BatchProgressHub {
  private readonly watchers = new Map<string, Watcher>();
  /** The watchers by their batch's channel (with Redis). */
  private readonly channels = new Map<string, Watcher>();
  private readonly intervalMs: number;
  private readonly stopRedis: () => void = () => {};
  /**
   * Batches changed while this instance could not tell the others through Redis
   * (src/redis/redis-health.ts refused, or the publish failed): announced when
   * Redis answers again. A set: at most one entry per batch changed meanwhile.
   */
  private readonly unannounced = new Set<string>();
  /** Told of every change announced on this instance (live queries: src/events/live-invalidations.ts). */
  private readonly changeListeners = new Set<(batchId: string) => void>();

  constructor(
    /** Reads a batch by id, whatever its organization (subscribers were checked when they subscribed). */
    private readonly readBatch: (batchId: string) => Promise<Batch | null>,
    private readonly redis?: SharedRedis,
    { intervalMs = PROGRESS_INTERVAL_MS, pollMs = POLL_INTERVAL_MS }: HubTimings = {},
  ) {
    this.intervalMs = intervalMs;
    if (!redis) return;
    // The channel of each followed batch, to find its watcher by.
    const onMessage = (channel: string) => {
      const watcher = this.channels.get(channel);
      if (watcher) this.schedule(watcher);
    };
    // Back (or connected for the first time): subscribe every watcher's channel, then catch up on what passed meanwhile.
    const onReady = () => this.subscribe([...this.watchers.values()]);
    const stopMessages = redis.onMessage(onMessage);
    const stopReady = redis.onReady(onReady);
    // Redis answers again: tell the other instances what changed while it did not.
    const stopHealth = redis.health.onChange((degraded) => {
      if (!degraded) this.announceMissed();
    });
    const poller = setInterval(() => {
      if (redis.health.degraded) for (const watcher of this.watchers.values()) this.schedule(watcher);
      // After failed commands only a command that succeeds ends the outage: with nothing else
      // sent to Redis, one of the missed announcements is the probe (tryRedis lets one through a second).
      const missed = this.unannounced.values().next();
      if (!missed.done && redis.health.tryRedis()) this.publish(redis, missed.value);
    }, pollMs);
    poller.unref();
    this.stopRedis = () => {
      clearInterval(poller);
      stopHealth();
      stopMessages();
      stopReady();
    };
  }

  /** Announces that a batch's status or stats may have changed. */
  batchChanged(batchId: string): void {
    for (const listener of this.changeListeners) listener(batchId);
    // Through Redis this instance hears its own announcement too; without it, it tells its watcher directly.
    if (!this.redis || this.redis.health.degraded) {
      const watcher = this.watchers.get(batchId);
      if (watcher) this.schedule(watcher);
    }
    if (!this.redis) return;
    // Refused now, announced when Redis answers again: instances that reach it do not poll, and would miss it.
    if (this.redis.health.tryRedis()) this.publish(this.redis, batchId);
    else this.unannounced.add(batchId);
  }

  /** Calls `listener` with each batch announced changed on this instance; returns how to stop. */
  onBatchChanged(listener: (batchId: string) => void): () => void {
    this.changeListeners.add(listener);
    return () => this.changeListeners.delete(listener);
  }

  /** The batch's states from now on (the caller sends the current one first). */
  watch(batchId: string): AsyncIterableIterator<Batch> {
    const watcher = this.watchers.get(batchId) ?? this.startWatcher(batchId);
    const queue = new LatestValue<Batch>(() => {
      watcher.listeners.delete(listener);
      if (watcher.listeners.size === 0) this.stopWatcher(watcher);
    });
    const listener = (batch: Batch) => queue.push(batch);
    watcher.listeners.add(listener);
    return queue;
  }

  /** How many local subscribers follow some batch (a metric). */
  get subscriberCount(): number {
    let count = 0;
    for (const watcher of this.watchers.values()) count += watcher.listeners.size;
    return count;
  }

  close(): void {
    this.stopRedis();
    this.unannounced.clear();
    for (const watcher of [...this.watchers.values()]) this.stopWatcher(watcher);
  }

  private startWatcher(batchId: string): Watcher {
    const watcher: Watcher = {
      batchId,
      channel: this.redis ? channelOf(this.redis, batchId) : '',
      listeners: new Set(),
      timer: null,
      lastReadAt: 0,
      dirty: false,
      reading: false,
    };
    this.watchers.set(batchId, watcher);
    if (this.redis) this.channels.set(watcher.channel, watcher);
    this.subscribe([watcher]);
    return watcher;
  }

  /** Announces through Redis; a failed announcement is kept for when Redis answers again. */
  private publish(redis: SharedRedis, batchId: string) {
    this.unannounced.delete(batchId);
    redis.publish(channelOf(redis, batchId), MESSAGE).then(
      () => redis.health.commandSucceeded(),
      () => {
        this.unannounced.add(batchId);
        redis.health.commandFailed();
      },
    );
  }

  /** Redis answers again: one announcement per batch changed while it did not. */
  private announceMissed() {
    if (!this.redis) return;
    for (const batchId of [...this.unannounced]) this.publish(this.redis, batchId);
  }

  private stopWatcher(watcher: Watcher) {
    if (watcher.timer) clearTimeout(watcher.timer);
    this.watchers.delete(watcher.batchId);
    this.channels.delete(watcher.channel);
    // Failing while Redis is away is harmless: its subscriptions went with the connection.
    this.redis?.unsubscribe([watcher.channel]).catch(() => {});
  }

  /**
   * Subscribes the watchers' channels, then has each read its batch once: a
   * change announced before the subscription took effect is not missed. When
   * Redis is away the subscription fails and polling stands in until it returns.
   */
  private subscribe(watchers: Watcher[]) {
    if (!this.redis || watchers.length === 0) return;
    void this.redis
      .subscribe(watchers.map((watcher) => watcher.channel))
      .catch(() => {})
      .then(() => {
        for (const watcher of watchers) this.schedule(watcher);
      });
  }

  private schedule(watcher: Watcher) {
    // Stopped meanwhile (its last subscriber left).
    if (this.watchers.get(watcher.batchId) !== watcher) return;
    if (watcher.reading) {
      watcher.dirty = true;
      return;
    }
    if (watcher.timer) return;
    const delay = Math.max(0, watcher.lastReadAt + this.intervalMs - Date.now());
    watcher.timer = setTimeout(() => void this.read(watcher), delay);
  }

  private async read(watcher: Watcher) {
    watcher.timer = null;
    watcher.reading = true;
    watcher.lastReadAt = Date.now();
    try {
      const batch = await this.readBatch(watcher.batchId);
      // The same row object for every listener: their subscriptions share its execution by it
      // (src/graphql/use-shared-subscription-events.ts), so it is handed out as is, never copied.
      if (batch) for (const listener of watcher.listeners) listener(batch);
    } catch {
      // A failed read is retried on the next announcement or poll; subscribers keep their last state.
    } finally {
      watcher.reading = false;
      if (watcher.dirty) {
        watcher.dirty = false;
        this.schedule(watcher);
      }
    }
  }
}
