// Webhook endpoints and their deliveries, and the event types an endpoint subscribes to.
import { z } from 'zod';
import { WebhookDeliveryStatus } from '../generated/prisma/enums.ts';
import { record, timestamp, value } from './record.ts';
import { integer } from './values.ts';

export const webhookEventTypes = [
  'batch.status_changed',
  'batch.finished',
  'run.status_changed',
  'run.finished',
  'run.failed',
  'call.attempt_ended',
  'agent.updated',
  'integration.connected',
  'webhook_endpoint.disabled',
] as const;
export type WebhookEventType = (typeof webhookEventTypes)[number];

/** What an endpoint subscribes to: event types, or `*` for all. */
export const ALL_EVENTS = '*';

/** An item of an endpoint's `events`. */
export const subscribedEvent = () => z.enum([ALL_EVENTS, ...webhookEventTypes]);

/** GET /webhook-endpoints/{id} (never its secret); a `webhook_endpoint.disabled` event's data. */
export const webhookEndpoint = record(
  { id: 'WebhookEndpoint' },
  {
    id: value(z.string()),
    url: value(z.string()),
    events: value(z.array(subscribedEvent())),
    description: value(z.string()),
    enabled: value(z.boolean()),
    created_at: timestamp(),
    failing_since: timestamp().nullable(),
    disabled_at: timestamp().nullable(),
  },
);

export const webhookDelivery = record(
  { id: 'WebhookDelivery' },
  {
    id: value(z.string()),
    event_id: value(z.string()),
    event_type: value(z.string()),
    endpoint_id: value(z.string()),
    status: value(z.enum(WebhookDeliveryStatus)),
    attempts: value(integer()),
    last_response_code: value(integer().nullable()),
    last_error: value(z.string().nullable()),
    latency_ms: value(integer().nullable()),
    next_attempt_at: timestamp().nullable(),
    created_at: timestamp(),
    delivered_at: timestamp().nullable(),
  },
);
