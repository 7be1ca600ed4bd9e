// The Redis the instances share: one server (REDIS_URL) or a Redis Cluster
// (REDIS_CLUSTER_NODES). Callers see one face for both:
// - pub/sub: on one server, PUBLISH/SUBSCRIBE as ever (the channel names of
//   the version before, so old and new instances hear each other during a
//   rolling deploy); on a cluster, sharded pub/sub (SPUBLISH/SSUBSCRIBE,
//   Redis 7): a channel lives on the master serving its slot, so a message
//   crosses no cluster bus and is delivered by that master alone, where
//   classic PUBLISH is broadcast to every node of the cluster;
// - `hashTag(id)`: the part of a key or channel name that chooses its slot.
//   On a cluster it is `{id}`, so a batch's channel has a slot of its own and
//   an organization's keys (its cached answers and their tags, its rate-limit
//   counters) share one, which MULTI and multi-key commands need; on one
//   server names stay as they were.
import type { Cluster, Redis } from 'ioredis';
import type { RedisTarget } from '../config.ts';
import { RedisHealth, redisClientOptions } from './redis-health.ts';

/** A client for commands: one server's, or the cluster's (which routes each command to its slot's master). */
export type RedisClient = Redis | Cluster;

/**
 * A client for the target, made with `redisClientOptions` (requests must not
 * wait for Redis). ioredis is loaded only here: without Redis it would hold
 * memory for nothing (BENCHMARKS.md (f)).
 */
export async function connectRedis(target: RedisTarget): Promise<RedisClient> {
  const { Cluster, Redis } = await import('ioredis');
  // The commands sent while one turn of the event loop runs go in one write: under load
  // (a response cache hit's rate-limit count and nonce read, those of many requests at once)
  // that is one system call for many commands instead of one each (BENCHMARKS.md (n)).
  return target.kind === 'server'
    ? new Redis(target.url, { ...redisClientOptions, enableAutoPipelining: true })
    : new Cluster(target.nodes, { redisOptions: redisClientOptions, enableAutoPipelining: true });
}

/** The shared Redis as the events, the response cache and the rate limits use it. */
export interface SharedRedis {
  /** Commands: cached answers, rate-limit counters. */
  client: RedisClient;
  health: RedisHealth;
  /** Whether channels are sharded (a cluster): each channel name then carries its hash tag. */
  sharded: boolean;
  /** The part of a name that chooses its slot on a cluster (`{id}`); the id itself on one server. */
  hashTag(id: string): string;
  publish(channel: string, message: string): Promise<unknown>;
  subscribe(channels: string[]): Promise<unknown>;
  unsubscribe(channels: string[]): Promise<unknown>;
  /** Calls `listener` with each message of a subscribed channel; returns how to stop. */
  onMessage(listener: (channel: string, message: string) => void): () => void;
  /** Calls `listener` each time the subscriptions' connection is (again) ready; returns how to stop. */
  onReady(listener: () => void): () => void;
  /** Stops following the connections and closes the subscriber's (the caller closes `client`). */
  close(): Promise<void>;
}

/**
 * The shared Redis over `client`, with a subscriber connection of its own
 * (Redis delivers a subscriber's messages only there; on a cluster, one per
 * master, made by ioredis's sharded subscribers).
 */
export function sharedRedis(client: RedisClient): SharedRedis {
  const sharded = client.isCluster;
  // Subscriptions are not pipelined (ioredis leaves SUBSCRIBE out, not SSUBSCRIBE), and their connection carries nothing else.
  const subscriber = client.isCluster
    ? client.duplicate([], { shardedSubscribers: true, enableAutoPipelining: false })
    : (client as Redis).duplicate({ enableAutoPipelining: false });
  const health = new RedisHealth([client, subscriber]);
  const messageEvent = sharded ? 'smessage' : 'message';
  return {
    client,
    health,
    sharded,
    hashTag: sharded ? (id) => `{${id}}` : (id) => id,
    publish: (channel, message) => (sharded ? client.spublish(channel, message) : client.publish(channel, message)),
    // SSUBSCRIBE takes channels of one slot only: one command per channel.
    subscribe: (channels) =>
      sharded
        ? Promise.all(channels.map((channel) => subscriber.ssubscribe(channel)))
        : subscriber.subscribe(...channels),
    unsubscribe: (channels) =>
      sharded
        ? Promise.all(channels.map((channel) => subscriber.sunsubscribe(channel)))
        : subscriber.unsubscribe(...channels),
    onMessage(listener) {
      subscriber.on(messageEvent, listener);
      return () => subscriber.off(messageEvent, listener);
    },
    onReady(listener) {
      subscriber.on('ready', listener);
      return () => subscriber.off('ready', listener);
    },
    async close() {
      health.stop();
      // quit, not disconnect: unsubscribe commands sent before are answered first.
      // With Redis away there is nothing to wait for.
      await subscriber.quit().catch(() => subscriber.disconnect());
    },
  };
}
