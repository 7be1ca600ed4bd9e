// Webhook endpoints and their deliveries on the wire.
import { z } from 'zod';
import { wire } from '../wire.ts';
import { int, timestamp } from './common.ts';

export const webhookEndpointFragment = `fragment WebhookEndpointRest on WebhookEndpoint {
  id url events description enabled createdAt failingSince disabledAt }`;
export const presentWebhookEndpoint = (endpoint: Record<string, unknown>) => wire(endpoint);
export const webhookEndpointSchema = z
  .strictObject({
    id: z.string(),
    url: z.string(),
    events: z.array(z.string()),
    description: z.string(),
    enabled: z.boolean(),
    created_at: timestamp(),
    failing_since: timestamp().nullable(),
    disabled_at: timestamp().nullable(),
  })
  .meta({ id: 'WebhookEndpoint' });

/** An endpoint as created or rotated: with its secret, shown this once. */
export const presentWebhookEndpointSecret = ({
  endpoint,
  secret,
}: {
  endpoint: Record<string, unknown>;
  secret: string;
}) => ({
  ...presentWebhookEndpoint(endpoint),
  secret,
});
export const webhookEndpointSecretSchema = webhookEndpointSchema
  .extend({
    secret: z
      .string()
      .meta({ description: '`whsec_…`, shown only here: verify deliveries with it (Standard Webhooks)' }),
  })
  .meta({ id: 'WebhookEndpointWithSecret' });

export const webhookDeliveryFragment = `fragment WebhookDeliveryRest on WebhookDelivery {
  id eventId eventType endpointId status attempts lastResponseCode lastError latencyMs nextAttemptAt createdAt deliveredAt }`;
export const presentWebhookDelivery = (delivery: Record<string, unknown>) => wire(delivery);
export const webhookDeliverySchema = z
  .strictObject({
    id: z.string(),
    event_id: z.string(),
    event_type: z.string(),
    endpoint_id: z.string(),
    status: z.enum(['pending', 'delivered', 'failed']),
    attempts: int(),
    last_response_code: int().nullable(),
    last_error: z.string().nullable(),
    latency_ms: int().nullable(),
    next_attempt_at: timestamp().nullable(),
    created_at: timestamp(),
    delivered_at: timestamp().nullable(),
  })
  .meta({ id: 'WebhookDelivery' });
