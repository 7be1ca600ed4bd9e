// Live batch progress. Whoever changes a batch (a mutation, the run engine)
// announces it on the `batchChanged` topic: in process, or through Redis
// pub/sub so that every instance hears every other. Each instance keeps one
// watcher per batch its clients follow: an announcement makes the watcher
// read the batch once (at most once per interval) and hand the fresh state
// to every local subscriber. Reading after the last announcement means the
// last state is always delivered, however many changes were coalesced.
import { createRedisEventTarget } from '@graphql-yoga/redis-event-target';
import { createPubSub } from 'graphql-yoga';
import type { Redis } from 'ioredis';
import type { Batch } from '../generated/prisma/client.ts';

type Topics = { batchChanged: [batchId: string, changed: true] };

/**
 * The Redis event target fires its publish, subscribe and unsubscribe commands
 * without awaiting them; while Redis is away they would reject unhandled and
 * end the process. Here they are caught: an announcement lost then costs a
 * subscriber one update, and the next change brings it up to date.
 */
function redisEventTarget(publish: Redis, subscribe: Redis) {
  const settle = (command: Promise<unknown>) => command.catch(() => undefined);
  const publishClient = { publish: (channel: string, message: string) => settle(publish.publish(channel, message)) };
  const subscribeClient = {
    on: (event: string, listener: (...args: any[]) => void) => subscribe.on(event, listener),
    subscribe: (channel: string) => settle(subscribe.subscribe(channel)),
    unsubscribe: (channel: string) => settle(subscribe.unsubscribe(channel)),
  };
  return createRedisEventTarget({ publishClient: publishClient as unknown as Redis, subscribeClient: subscribeClient as unknown as Redis });
}

export const PROGRESS_INTERVAL_MS = 100;

interface Watcher {
  listeners: Set<(batch: Batch) => void>;
  timer: NodeJS.Timeout | null;
  lastReadAt: number;
  /** An announcement came while a read was under way: read again after it. */
  dirty: boolean;
  reading: boolean;
  stop(): void;
}

/** The subscriber's own queue: only the newest state waits, older ones are dropped. */
class LatestValue<T> implements AsyncIterableIterator<T> {
  private pending: T | undefined;
  private waiting: ((result: IteratorResult<T>) => void) | null = null;
  private done = false;

  constructor(private readonly onClose: () => void) {}

  push(value: T) {
    if (this.done) return;
    if (this.waiting) {
      const resolve = this.waiting;
      this.waiting = null;
      resolve({ value, done: false });
    } else {
      this.pending = value;
    }
  }

  next(): Promise<IteratorResult<T>> {
    if (this.done) return Promise.resolve({ value: undefined, done: true });
    if (this.pending !== undefined) {
      const value = this.pending;
      this.pending = undefined;
      return Promise.resolve({ value, done: false });
    }
    return new Promise((resolve) => (this.waiting = resolve));
  }

  return(): Promise<IteratorResult<T>> {
    if (!this.done) {
      this.done = true;
      this.onClose();
      this.waiting?.({ value: undefined, done: true });
      this.waiting = null;
    }
    return Promise.resolve({ value: undefined, done: true });
  }

  [Symbol.asyncIterator]() {
    return this;
  }
}

export class BatchProgressHub {
  private readonly pubSub;
  private readonly watchers = new Map<string, Watcher>();

  constructor(
    /** Reads a batch by id, whatever its organization (subscribers were checked when they subscribed). */
    private readonly readBatch: (batchId: string) => Promise<Batch | null>,
    redis?: { publish: Redis; subscribe: Redis },
    private readonly intervalMs = PROGRESS_INTERVAL_MS,
  ) {
    this.pubSub = createPubSub<Topics>(redis ? { eventTarget: redisEventTarget(redis.publish, redis.subscribe) } : {});
  }

  /** Announces that a batch's status or stats may have changed. */
  batchChanged(batchId: string): void {
    this.pubSub.publish('batchChanged', batchId, true);
  }

  /** The batch's states from now on (the caller sends the current one first). */
  watch(batchId: string): AsyncIterableIterator<Batch> {
    const watcher = this.watchers.get(batchId) ?? this.startWatcher(batchId);
    const queue = new LatestValue<Batch>(() => {
      watcher.listeners.delete(listener);
      if (watcher.listeners.size === 0) {
        watcher.stop();
        this.watchers.delete(batchId);
      }
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
    for (const watcher of this.watchers.values()) watcher.stop();
    this.watchers.clear();
  }

  private startWatcher(batchId: string): Watcher {
    const announcements = this.pubSub.subscribe('batchChanged', batchId);
    const watcher: Watcher = {
      listeners: new Set(),
      timer: null,
      lastReadAt: 0,
      dirty: false,
      reading: false,
      stop: () => {
        if (watcher.timer) clearTimeout(watcher.timer);
        void announcements.return?.();
      },
    };
    this.watchers.set(batchId, watcher);
    void (async () => {
      for await (const _ of announcements) this.schedule(batchId, watcher);
    })();
    return watcher;
  }

  private schedule(batchId: string, watcher: Watcher) {
    if (watcher.reading) {
      watcher.dirty = true;
      return;
    }
    if (watcher.timer) return;
    const delay = Math.max(0, watcher.lastReadAt + this.intervalMs - Date.now());
    watcher.timer = setTimeout(() => void this.read(batchId, watcher), delay);
  }

  private async read(batchId: string, watcher: Watcher) {
    watcher.timer = null;
    watcher.reading = true;
    watcher.lastReadAt = Date.now();
    try {
      const batch = await this.readBatch(batchId);
      if (batch) for (const listener of watcher.listeners) listener(batch);
    } catch {
      // A failed read is retried on the next announcement; subscribers keep their last state.
    } finally {
      watcher.reading = false;
      if (watcher.dirty) {
        watcher.dirty = false;
        this.schedule(batchId, watcher);
      }
    }
  }
}
