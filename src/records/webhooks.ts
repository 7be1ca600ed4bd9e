// Webhook endpoints and their deliveries, and the event types an endpoint subscribes to.
import { z } from 'zod';
import { WebhookDeliveryStatus } from '../generated/prisma/enums.ts';
import { record, timestamp } from './record.ts';
import { integer } from './values.ts';

export const webhookEventTypes = [
  'batch.status_changed',
  'batch.finished',
  'run.status_changed',
  'run.finished',
  'run.failed',
  'call.attempt_ended',
  'call.record.completed',
  'agent.updated',
  'integration.connected',
  'prospect.erased',
  'phone_number.rested',
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
    id: z.string(),
    url: z.string(),
    events: z.array(subscribedEvent()),
    description: z.string(),
    enabled: z.boolean(),
    created_at: timestamp(),
    failing_since: timestamp().nullable(),
    disabled_at: timestamp().nullable(),
  },
);

export const webhookDelivery = record(
  { id: 'WebhookDelivery' },
  {
    id: z.string(),
    event_id: z.string(),
    event_type: z.string(),
    endpoint_id: z.string(),
    status: z.enum(WebhookDeliveryStatus),
    attempts: integer(),
    last_response_code: integer().nullable(),
    last_error: z.string().nullable(),
    latency_ms: integer().nullable(),
    next_attempt_at: timestamp().nullable(),
    created_at: timestamp(),
    delivered_at: timestamp().nullable(),
  },
);
