// What live queries (`query @live`, src/graphql/use-live-queries.ts) hear of
// changes. Each result of a live query remembers the resource identifiers it
// read (`Batch:bat_…`, `Organization:org_…`); an invalidation names some, and
// the store re-executes the live queries holding one (throttled). Identifiers
// hold ids, which are unique across organizations, and a live query collects
// only what its organization can read, so an invalidation for one organization
// never re-executes another's.
//
// Instances tell each other through one Redis channel: every instance
// subscribes to it, and hears its own invalidations there too. Without Redis,
// or while it does not answer (src/redis/redis-health.ts), invalidations stay
// on this instance.
import { InMemoryLiveQueryStore } from '@n1ru4l/in-memory-live-query-store';
import type { RedisChannels } from './batch-progress.ts';

const CHANNEL = 'liveQueryInvalidated';

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
  private readonly stopRedis: () => void = () => {};

  constructor(
    /** The least time between two executions of one live query, whatever it asks (`@live(throttle:)`). */
    readonly throttleMs: number,
    private readonly redis?: RedisChannels,
  ) {
    this.store = new InMemoryLiveQueryStore({
      includeIdentifierExtension: false,
      // Every live query is throttled: at least throttleMs between its executions, more if it asks.
      validateThrottleValue: (asked) => Math.max(asked ?? 0, throttleMs) || null,
    });
    if (!redis) return;
    const onMessage = (channel: string, message: string) => {
      if (channel !== CHANNEL) return;
      try {
        const identifiers: unknown = JSON.parse(message);
        if (Array.isArray(identifiers)) void this.store.invalidate(identifiers.map(String));
      } catch {
        // Not ours: ignored.
      }
    };
    const onReady = () => void redis.subscribe.subscribe(CHANNEL).catch(() => {});
    redis.subscribe.on('message', onMessage).on('ready', onReady);
    onReady();
    this.stopRedis = () => {
      redis.subscribe.off('message', onMessage).off('ready', onReady);
      redis.subscribe.unsubscribe(CHANNEL).catch(() => {});
    };
  }

  /** Re-executes the live queries (of every instance) that read one of these. */
  invalidate(identifiers: string[]): void {
    const redis = this.redis;
    if (!redis?.health.tryRedis()) {
      void this.store.invalidate(identifiers);
      return;
    }
    redis.publish.publish(CHANNEL, JSON.stringify(identifiers)).then(
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
