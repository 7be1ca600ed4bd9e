// What live queries (`query @live`, src/graphql/use-live-queries.ts) hear of
// changes. Each result of a live query remembers the resource identifiers it
// read (`Batch:bat_…`, `Organization:org_…`); an invalidation names some, and
// the store re-executes the live queries holding one (throttled). Identifiers
// hold ids, which are unique across organizations, and a live query collects
// only what its organization can read, so an invalidation for one organization
// never re-executes another's.
//
// Instances tell each other through Redis, and hear their own invalidations
// there too. On one server, through one channel every instance subscribes to.
// On a Redis Cluster (REDIS_CLUSTER_NODES), through one sharded channel per
// organization (its id the hash tag), which an instance subscribes to while
// it runs a live query of the organization (`follow`): invalidations reach only
// the instances that hold one, and organizations spread over the masters.
// Without Redis, or while it does not answer (src/redis/redis-health.ts),
// invalidations stay on this instance.
import { InMemoryLiveQueryStore } from '@n1ru4l/in-memory-live-query-store';
import { type Clock, systemClock } from '../clock.ts';
import type { SharedRedis } from '../redis/shared-redis.ts';
import { LiveFanout } from './live-fanout.ts';

const CHANNEL = 'liveQueryInvalidated';

/** Where an organization's invalidations go: the one channel on one server, the organization's own on a cluster. */
const channelOf = (redis: SharedRedis, organizationId: string) =>
  redis.sharded ? `${CHANNEL}:${redis.hashTag(organizationId)}` : CHANNEL;

/** The identifiers a batch's change invalidates: the batch, and the root fields that read it by id. */
export const batchIdentifiers = (batchId: string) => [
  `Batch:${batchId}`,
  `Query.batch(id:"${batchId}")`,
  `Query.node(id:"${batchId}")`,
];

/**
 * What any change in an organization invalidates: every live query of the
 * organization carries it (its lists may have gained or lost an item).
 */
export const organizationIdentifier = (organizationId: string) => `Organization:${organizationId}`;

export class LiveInvalidations {
  readonly store: InMemoryLiveQueryStore;
  /** The executions identical live queries share (live-fanout.ts). */
  readonly fanout = new LiveFanout();
  private readonly stopRedis: () => void = () => {};
  /** On a cluster: the organizations' channels subscribed, each with the live queries holding it and its subscription. */
  private readonly followed = new Map<string, { holders: number; subscribed: Promise<void> }>();

  constructor(
    /** The least time between two executions of one live query, whatever it asks (`@live(throttle:)`). */
    readonly throttleMs: number,
    private readonly redis?: SharedRedis,
    /** What live queries' throttles wait on (src/events/live-throttle.ts). */
    readonly clock: Clock = systemClock,
  ) {
    this.store = new InMemoryLiveQueryStore({
      includeIdentifierExtension: false,
      // Throttled by live-throttle.ts on `clock`, not by the store's timers (see there).
      validateThrottleValue: () => null,
    });
    if (!redis) return;
    const onMessage = (channel: string, message: string) => {
      if (redis.sharded ? !this.followed.has(channel) : channel !== CHANNEL) return;
      try {
        const identifiers: unknown = JSON.parse(message);
        if (Array.isArray(identifiers)) void this.store.invalidate(identifiers.map(String));
      } catch {
        // Not ours: ignored.
      }
    };
    // Subscribed again on each (re)connection: on one server the channel, on a cluster those followed.
    const subscribed = () => (redis.sharded ? [...this.followed.keys()] : [CHANNEL]);
    const onReady = () => {
      const channels = subscribed();
      if (channels.length > 0) void redis.subscribe(channels).catch(() => {});
    };
    const stopMessages = redis.onMessage(onMessage);
    const stopReady = redis.onReady(onReady);
    onReady();
    this.stopRedis = () => {
      stopMessages();
      stopReady();
      const channels = subscribed();
      if (channels.length > 0) redis.unsubscribe(channels).catch(() => {});
    };
  }

  /** The least time between two executions of a live query that asks for `asked` (`@live(throttle:)`): never less than throttleMs. */
  intervalOf(asked: number | null | undefined): number {
    return Math.max(asked ?? 0, this.throttleMs);
  }

  /**
   * Has this instance hear the organization's invalidations from the others
   * while a live query of it runs here; resolves once subscribed (an
   * invalidation published after that is heard), with how to stop. On one
   * server (or without Redis) every invalidation is heard anyway.
   */
  async follow(organizationId: string): Promise<() => void> {
    const redis = this.redis;
    if (!redis?.sharded) return () => {};
    const channel = channelOf(redis, organizationId);
    let followed = this.followed.get(channel);
    if (!followed) {
      // Redis away: the subscription is made again when it is back (onReady).
      const subscribed = redis.subscribe([channel]).then(
        () => {},
        () => {},
      );
      followed = { holders: 0, subscribed };
      this.followed.set(channel, followed);
    }
    const entry = followed;
    entry.holders++;
    await entry.subscribed;
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      if (--entry.holders > 0 || this.followed.get(channel) !== entry) return;
      this.followed.delete(channel);
      redis.unsubscribe([channel]).catch(() => {});
    };
  }

  /**
   * Re-executes the live queries (of every instance) that read one of these.
   * `organizationId` is the organization they belong to: on a cluster, where
   * its channel is; null when not known, which on a cluster keeps them on this instance.
   */
  invalidate(identifiers: string[], organizationId: string | null): void {
    const redis = this.redis;
    if (!redis?.health.tryRedis() || (redis.sharded && organizationId === null)) {
      void this.store.invalidate(identifiers);
      return;
    }
    redis.publish(channelOf(redis, organizationId ?? ''), JSON.stringify(identifiers)).then(
      () => redis.health.commandSucceeded(),
      () => {
        // Not told to the others; this instance's own live queries still are.
        redis.health.commandFailed();
        void this.store.invalidate(identifiers);
      },
    );
  }

  close(): void {
    this.stopRedis();
  }
}
