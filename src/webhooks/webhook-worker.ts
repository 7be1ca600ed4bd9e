// The webhook delivery worker, beside the run engine in every instance that
// runs one. It claims due deliveries (webhook-store.ts: any instance, SKIP
// LOCKED, in order per endpoint and object), signs each with its endpoint's
// secret per Standard Webhooks (`webhook-id` is the event's id, the same on
// every attempt), sends it (webhook-sender.ts) and records the outcome: a 2xx
// is delivered; anything else is tried again after the next wait of the
// retry schedule, and `failed` after the last. Deliveries are at least once:
// an instance that dies mid-request leaves its delivery to be claimed again
// when its lease ends.

import { randomUUID } from 'node:crypto';
import os from 'node:os';
import { ClaimLoop } from '../claim-loop.ts';
import { type Clock, systemClock } from '../clock.ts';
import type { WebhookSettings } from '../config/webhook-settings.ts';
import type { SecretBox } from '../domain/secrets.ts';
import { signatureHeaders } from '../domain/signing-secret.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import type { Logger } from '../observability/logger.ts';
import { tracing } from '../observability/tracing.ts';
import { type SendResult, sendWebhook } from './webhook-sender.ts';
import { type ClaimedDelivery, WebhookStore } from './webhook-store.ts';

/** How an attempt ended, for the metrics: delivered, to be tried again, or given up. */
type AttemptOutcome = 'delivered' | 'retrying' | 'failed';
export type AttemptListener = (outcome: AttemptOutcome, seconds: number) => void;

export interface WebhookWorkerOptions {
  /** Requests in flight at once on this instance. */
  concurrency: number;
  /** How long to wait for work when none was found. */
  pollMs: number;
  clock?: Clock;
}

/** A claimed delivery stays this instance's for its attempt's time limit and this margin. */
const LEASE_MARGIN_MS = 5000;

export class WebhookWorker {
  readonly owner = `${os.hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private readonly store: WebhookStore;
  private readonly clock: Clock;
  private readonly inFlight = new Set<Promise<void>>();
  /** One per request in flight, all aborted by stop(): no listener per request on a signal that lives as long as the worker. */
  private readonly requests = new Set<AbortController>();
  private stopped = false;
  private readonly listeners = new Set<AttemptListener>();
  private readonly claims: ClaimLoop<ClaimedDelivery>;

  constructor(
    prisma: PrismaClient,
    private readonly secrets: SecretBox,
    private readonly settings: WebhookSettings,
    options: WebhookWorkerOptions,
    private readonly log: Logger = console,
  ) {
    this.store = new WebhookStore(prisma, this.owner);
    this.clock = options.clock ?? systemClock;
    this.claims = new ClaimLoop({
      room: () => options.concurrency - this.inFlight.size,
      claim: (room) => this.claim(room),
      start: (delivery) => this.startDelivery(delivery),
      failed: (error) => this.log.error({ err: error }, 'claiming webhook deliveries failed'),
      pollMs: options.pollMs,
    });
  }

  start(): void {
    this.claims.start();
  }

  /** Told of each attempt's outcome and duration (the delivery metrics). */
  onAttempt(listener: AttemptListener): void {
    this.listeners.add(listener);
  }

  /** Stops claiming, cuts the requests in flight short and hands their deliveries back, due at once. */
  async stop(): Promise<void> {
    if (!this.claims.isRunning) return;
    await this.claims.stop();
    this.stopped = true;
    for (const request of this.requests) request.abort();
    await Promise.allSettled([...this.inFlight]);
  }

  private claim(room: number): Promise<ClaimedDelivery[]> {
    const now = this.clock.now();
    return this.store.claim(room, now, new Date(now.getTime() + this.settings.timeoutMs + LEASE_MARGIN_MS));
  }

  private startDelivery(delivery: ClaimedDelivery) {
    // Each delivery is a trace of its own (when traces are on), linked to the request that created the batch it is about.
    const attributes = {
      'webhook.delivery_id': delivery.id,
      'webhook.event_id': delivery.eventId,
      'webhook.event_type': delivery.payload.type,
      'webhook.attempt': delivery.attempts + 1,
    };
    const done = tracing()
      .inTraceLinkedTo('webhook.deliver', delivery.batchTraceparent, attributes, () => this.deliver(delivery))
      .catch((error) => this.log.error({ err: error, deliveryId: delivery.id }, 'webhook delivery failed unexpectedly'))
      .finally(() => {
        this.inFlight.delete(done);
        this.claims.wake();
      });
    this.inFlight.add(done);
  }

  private async deliver(delivery: ClaimedDelivery) {
    const { type, timestamp, data } = delivery.payload;
    // The body's members in the order the README shows them (the database keeps them in its own).
    const body = JSON.stringify({ type, timestamp, data });
    // Signed at the wall clock's time, whatever clock schedules the attempts: receivers compare it with theirs.
    const headers = {
      'user-agent': 'agent-gateway-webhooks/1',
      ...signatureHeaders(this.secrets.open(delivery.secretEncrypted), body, systemClock.now(), delivery.eventId),
    };
    let result: SendResult;
    const request = new AbortController();
    this.requests.add(request);
    try {
      result = await sendWebhook(delivery.url, body, headers, { ...this.settings, signal: request.signal });
    } catch (error) {
      if (!this.stopped) throw error;
      await this.store.release(delivery, this.clock.now());
      return;
    } finally {
      this.requests.delete(request);
    }
    const now = this.clock.now();
    const attempt = { status: result.status, error: result.error, latencyMs: result.latencyMs };
    let outcome: AttemptOutcome = 'delivered';
    if (result.ok) await this.store.delivered(delivery, now, attempt);
    else {
      // The wait after this attempt, the (attempts + 1)th; none left: failed.
      const wait = this.settings.retryScheduleMs[delivery.attempts];
      const retryAt = wait === undefined ? null : new Date(now.getTime() + wait);
      outcome = retryAt ? 'retrying' : 'failed';
      await this.store.failed(delivery, now, attempt, retryAt, this.settings.disableAfterMs);
    }
    for (const listener of this.listeners) listener(outcome, result.latencyMs / 1000);
  }
}
