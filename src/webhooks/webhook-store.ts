// The delivery worker's moves (their statements: src/db/sql/). Due deliveries are claimed with FOR
// UPDATE SKIP LOCKED by any number of instances; a claimed one is held under a
// lease (its `nextAttemptAt` moves to the lease's end, so a dead instance's
// deliveries are due again then), and its outcome is written only while the
// lease is still this instance's.
//
// Order: a delivery is not claimed while an older delivery (an earlier event)
// of the same endpoint about the same object is pending, in flight or waiting
// for its retry. A delivery that ends `failed` no longer holds the newer ones.
// The older ones are looked for on the unique key ("endpointId", "eventId"),
// in the range of ids that begin like this one (the object's prefix: see
// src/domain/webhook-events.ts): a few rows, however long the history.
//
// Locks: the endpoint row first, then its deliveries, as a client's change or
// deletion of the endpoint takes them. The engine's writes of new deliveries
// only share the endpoint row's key, which none of these block.

import { type ClaimedDelivery, claimDeliveries } from '../db/sql/claim-deliveries.ts';
import { disableEndpoint } from '../db/sql/disable-endpoint.ts';
import { failPendingDeliveries } from '../db/sql/fail-pending-deliveries.ts';
import { lockEndpoint } from '../db/sql/lock-endpoint.ts';
import { type AttemptRecord, markDelivered } from '../db/sql/mark-delivered.ts';
import { organizationsWithDueDeliveries } from '../db/sql/organizations-with-due-deliveries.ts';
import { recordFailedDelivery } from '../db/sql/record-failed-delivery.ts';
import { releaseDelivery } from '../db/sql/release-delivery.ts';
import { setEndpointFailing } from '../db/sql/set-endpoint-failing.ts';
import { retryTransient } from '../db/transient.ts';
import type { Tx } from '../db/tx.ts';
import { OBJECT_PREFIX_LENGTH, Outbox } from '../domain/webhook-events.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';

export type { ClaimedDelivery } from '../db/sql/claim-deliveries.ts';
export type { AttemptRecord } from '../db/sql/mark-delivered.ts';

export class WebhookStore {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly owner: string,
  ) {}

  /**
   * Takes up to `limit` due deliveries under this instance's lease, until
   * `leaseUntil`: the organizations whose deliveries have waited longest
   * first, each claiming an even part of the places left by a statement of
   * its own (its plan: src/db/sql/claim-deliveries.ts), which a sharded
   * database routes to that organization's shard (docs/scaling.md#ready-for-citus).
   */
  async claim(limit: number, now: Date, leaseUntil: Date): Promise<ClaimedDelivery[]> {
    const organizationIds = await retryTransient(() => organizationsWithDueDeliveries(this.prisma, now, limit));
    const claimed: ClaimedDelivery[] = [];
    for (const [index, organizationId] of organizationIds.entries()) {
      const share = Math.ceil((limit - claimed.length) / (organizationIds.length - index));
      if (share <= 0) break;
      claimed.push(
        ...(await retryTransient(() =>
          claimDeliveries(this.prisma, organizationId, this.owner, OBJECT_PREFIX_LENGTH, share, now, leaseUntil),
        )),
      );
    }
    return claimed;
  }

  /** A 2xx: the delivery is delivered, its endpoint no longer failing. */
  delivered(delivery: ClaimedDelivery, now: Date, attempt: AttemptRecord): Promise<void> {
    return this.transaction(async (tx) => {
      await lockEndpoint(tx, delivery.organizationId, delivery.endpointId);
      const held = await markDelivered(tx, delivery.organizationId, delivery.id, this.owner, attempt, now);
      if (held === 0) return;
      await setEndpointFailing(tx, delivery.organizationId, delivery.endpointId, null);
    });
  }

  /**
   * A failed attempt: tried again at `retryAt`, or `failed` when it is null.
   * The endpoint is failing since its first failure after a success; once
   * that is `disableAfterMs` ago it is disabled, its pending deliveries fail,
   * and `webhook_endpoint.disabled` goes to the organization's other endpoints.
   */
  failed(
    delivery: ClaimedDelivery,
    now: Date,
    attempt: AttemptRecord,
    retryAt: Date | null,
    disableAfterMs: number,
  ): Promise<void> {
    return this.transaction(async (tx) => {
      const [endpoint] = await lockEndpoint(tx, delivery.organizationId, delivery.endpointId);
      const held = await recordFailedDelivery(tx, delivery.organizationId, delivery.id, this.owner, attempt, retryAt);
      if (held === 0 || !endpoint) return;
      const failingSince = endpoint.failingSince ?? now;
      if (!endpoint.enabled || now.getTime() - failingSince.getTime() < disableAfterMs) {
        if (!endpoint.failingSince) await setEndpointFailing(tx, delivery.organizationId, delivery.endpointId, now);
        return;
      }
      await disableEndpoint(tx, delivery.organizationId, delivery.endpointId, failingSince, now);
      await failPendingDeliveries(
        tx,
        delivery.organizationId,
        delivery.endpointId,
        `the endpoint was disabled: failing since ${failingSince.toISOString()}`,
      );
      await new Outbox()
        .add('webhook_endpoint.disabled', endpoint.organizationId, { kind: 'endpoint', id: delivery.endpointId })
        .write(tx, now);
    });
  }

  /** Hands a delivery back untried (this instance is stopping): due again at once, for any instance. */
  release(delivery: ClaimedDelivery, now: Date) {
    return retryTransient(() => releaseDelivery(this.prisma, delivery.organizationId, delivery.id, this.owner, now));
  }

  private transaction<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    return retryTransient(() => this.prisma.$transaction(work));
  }
}
