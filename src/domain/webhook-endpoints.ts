// Webhook endpoints: where an organization's events are delivered, each with
// a Standard Webhooks secret of its own (`whsec_…`), shown when the endpoint
// is created and when the secret is rotated, stored sealed like every other
// secret. Deliveries are made by src/webhooks/webhook-worker.ts; an operator
// reads them per endpoint and replays one at will.
import { z } from 'zod';
import { rowKey } from '../db/tenant.ts';
import type { OutboundPolicy } from '../outbound/request.ts';
import { subscribedEvent, webhookEventTypes } from '../records/webhooks.ts';
import { conflict, notFound } from './errors.ts';
import { checkOutboundUrl } from './outbound-urls.ts';
import type { Scope } from './scope.ts';
import type { SecretBox } from './secrets.ts';
import { newSigningSecret } from './signing-secret.ts';

const MAX_URL_LENGTH = 2000;

const url = z.string().min(1).max(MAX_URL_LENGTH).meta({
  description: 'where events are POSTed: https (http only where the service allows it), not a private address;',
});

const events = z
  .array(subscribedEvent())
  .min(1)
  .max(webhookEventTypes.length + 1)
  .meta({ description: 'the event types delivered there, or `*` for all;' });

const description = z.string().max(500).meta({ description: 'a free description, default empty;' });

export const webhookEndpointCreate = z
  .strictObject({ url, events, description: description.optional() })
  .meta({ id: 'WebhookEndpointCreate', description: 'A webhook endpoint: where, and which events.' });
type WebhookEndpointCreate = z.output<typeof webhookEndpointCreate>;

export const webhookEndpointUpdate = z
  .strictObject({
    url: url.optional(),
    events: events.optional(),
    description: description.optional(),
    enabled: z.boolean().optional().meta({
      description:
        'false stops its deliveries (pending ones fail); true enables it again, as a new endpoint that has not failed yet',
    }),
  })
  .meta({ id: 'WebhookEndpointUpdate', description: 'Members given replace the endpoint’s.' });
type WebhookEndpointUpdate = z.output<typeof webhookEndpointUpdate>;

export interface WebhookEndpointServices {
  secrets: SecretBox;
  outbound: OutboundPolicy;
}

/** Endpoints are delivered to from the moment they exist: https (unless allowed otherwise), and resolving now. */
const endpointUrl = { path: 'url', httpsOnly: true, mustResolve: true };

const DISABLED_BY_CLIENT = 'the endpoint was disabled';

/** Creates an endpoint with a new secret; returns both, the only time besides rotation that the secret is shown. */
export async function createWebhookEndpoint(
  scope: Scope,
  services: WebhookEndpointServices,
  data: WebhookEndpointCreate,
) {
  await checkOutboundUrl(data.url, services.outbound, endpointUrl);
  const secret = newSigningSecret();
  const endpoint = await scope.prisma.webhookEndpoint.create({
    data: {
      organizationId: scope.viewer.organizationId,
      url: data.url,
      events: [...new Set(data.events)],
      description: data.description ?? '',
      secretEncrypted: services.secrets.seal(secret),
    },
  });
  return { endpoint, secret };
}

/**
 * Changes an endpoint. Disabling it fails its pending deliveries (they can be
 * replayed once it is enabled again); enabling it clears its failure record.
 */
export async function updateWebhookEndpoint(
  scope: Scope,
  services: WebhookEndpointServices,
  id: string,
  data: WebhookEndpointUpdate,
) {
  if (data.url !== undefined) await checkOutboundUrl(data.url, services.outbound, endpointUrl);
  return scope.prisma.$transaction(async (tx) => {
    // The endpoint row first, then its deliveries: the delivery worker's order.
    const [endpoint] = await tx.webhookEndpoint.updateManyAndReturn({
      where: { id },
      data: {
        url: data.url,
        events: data.events && [...new Set(data.events)],
        description: data.description,
        ...(data.enabled === true ? { enabled: true, disabledAt: null, failingSince: null } : {}),
        ...(data.enabled === false ? { enabled: false } : {}),
      },
    });
    if (!endpoint) throw notFound('webhook endpoint');
    if (data.enabled === false) {
      await tx.webhookDelivery.updateMany({
        where: { endpointId: id, status: 'pending' },
        data: { status: 'failed', lastError: DISABLED_BY_CLIENT, leaseOwner: null, leaseExpiresAt: null },
      });
    }
    return endpoint;
  });
}

/** Deletes an endpoint with its deliveries (the events stay for the organization's other endpoints). */
export async function deleteWebhookEndpoint(scope: Scope, id: string) {
  const { count } = await scope.prisma.webhookEndpoint.deleteMany({ where: { id } });
  if (count === 0) throw notFound('webhook endpoint');
  return id;
}

/** Replaces the endpoint's secret: deliveries from now on are signed with the new one only. */
export async function rotateWebhookEndpointSecret(scope: Scope, secrets: SecretBox, id: string) {
  const secret = newSigningSecret();
  const [endpoint] = await scope.prisma.webhookEndpoint.updateManyAndReturn({
    where: { id },
    data: { secretEncrypted: secrets.seal(secret) },
  });
  if (!endpoint) throw notFound('webhook endpoint');
  return { endpoint, secret };
}

/**
 * Sends a delivery again: it is pending and due at once, its attempts counted
 * afresh (the retry schedule starts over), with the same `webhook-id`. A
 * delivery being sent at this moment is left to that attempt. 409 while its
 * endpoint is disabled.
 */
export async function replayWebhookDelivery(scope: Scope, id: string) {
  return scope.prisma.$transaction(async (tx) => {
    const delivery = await tx.webhookDelivery.findFirst({
      where: { id },
      include: { endpoint: { select: { enabled: true } } },
    });
    if (!delivery) throw notFound('webhook delivery');
    if (!delivery.endpoint.enabled)
      throw conflict('the endpoint is disabled: enable it before replaying its deliveries');
    const now = new Date();
    const inFlight = delivery.status === 'pending' && delivery.leaseExpiresAt !== null && delivery.leaseExpiresAt > now;
    if (inFlight) return delivery;
    return tx.webhookDelivery.update({
      where: rowKey(scope.viewer.organizationId, id),
      data: {
        status: 'pending',
        attempts: 0,
        nextAttemptAt: now,
        deliveredAt: null,
        leaseOwner: null,
        leaseExpiresAt: null,
      },
    });
  });
}
