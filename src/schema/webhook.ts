// Webhook endpoints and their deliveries (src/domain/webhook-endpoints.ts).
// No field reads an endpoint's secret: it is shown by the mutations that make
// one (`createWebhookEndpoint`, `rotateWebhookEndpointSecret`) and nowhere else.
import {
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  replayWebhookDelivery,
  rotateWebhookEndpointSecret,
  updateWebhookEndpoint,
  webhookEndpointCreate,
  webhookEndpointUpdate,
} from '../domain/webhook-endpoints.ts';
import type { WebhookEndpoint as WebhookEndpointRow } from '../generated/prisma/client.ts';
import { WebhookDeliveryStatus } from '../generated/prisma/enums.ts';
import { ALL_EVENTS, webhookEventTypes } from '../records/webhooks.ts';
import { builder, type NodeRef } from './builder.ts';
import { scopeOf } from './context.ts';
import { typesFromSchema } from './json-schema-types.ts';
import { modelConnection } from './pagination.ts';
import { tenantNodeId } from './tenant-nodes.ts';

const eventTypes = webhookEventTypes.map((type) => `\`${type}\``).join(', ');

const WebhookDeliveryStatusEnum = builder.enumType(WebhookDeliveryStatus, {
  name: 'WebhookDeliveryStatus',
  description: 'Where a delivery is; the values are the REST wire values.',
  values: {
    pending: { description: 'Due, being sent, or waiting for its next attempt (`nextAttemptAt`).' },
    delivered: { description: 'The endpoint answered 2xx.' },
    failed: {
      description:
        'Given up: every attempt of the retry schedule failed, or the endpoint was disabled. `replayWebhookDelivery` sends it again.',
    },
  },
});

const WebhookDelivery: NodeRef<'WebhookDelivery'> = builder.prismaNode('WebhookDelivery', {
  ...tenantNodeId,
  nullable: true,
  description:
    'One event sent to one endpoint, at least once. REST: an item of `GET /webhook-endpoints/{id}/deliveries`.',
  fields: (t) => ({
    eventId: t.exposeID('eventId', { description: 'The event (`evt_…`): the `webhook-id` header of every attempt.' }),
    eventType: t.string({
      description: `The event's type: ${eventTypes}.`,
      resolve: (delivery, _args, context) => context.loaders.webhookEventType.load(delivery.eventId),
    }),
    endpointId: t.exposeID('endpointId', { description: 'The endpoint (`whe_…`).' }),
    status: t.expose('status', { type: WebhookDeliveryStatusEnum, description: 'Where it is.' }),
    attempts: t.exposeInt('attempts', { description: 'Requests made since it was created or last replayed.' }),
    lastResponseCode: t.exposeInt('lastResponseCode', {
      nullable: true,
      description: "The last answer's HTTP status; null when none came.",
    }),
    lastError: t.exposeString('lastError', {
      nullable: true,
      description: 'Why the last attempt failed; null after a success.',
    }),
    latencyMs: t.exposeInt('latencyMs', {
      nullable: true,
      description: 'How long the last attempt took, in milliseconds.',
    }),
    nextAttemptAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'While pending: when it is (or was) due next; null once delivered or failed.',
      resolve: (delivery) => (delivery.status === 'pending' ? delivery.nextAttemptAt : null),
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When its event happened.' }),
    deliveredAt: t.expose('deliveredAt', {
      type: 'DateTime',
      nullable: true,
      description: 'When the endpoint answered 2xx; null until then.',
    }),
  }),
});

const WebhookEndpoint: NodeRef<'WebhookEndpoint'> = builder.prismaNode('WebhookEndpoint', {
  ...tenantNodeId,
  nullable: true,
  description:
    "Where the organization's events are POSTed, signed per Standard Webhooks with its own secret. REST: `/webhook-endpoints/{id}`.",
  // No field reads secretEncrypted: the secret is never returned by a read.
  fields: (t) => ({
    url: t.exposeString('url', { description: 'Where events are POSTed.' }),
    events: t.exposeStringList('events', {
      description: `The event types delivered here (${eventTypes}), or \`${ALL_EVENTS}\` for all.`,
    }),
    description: t.exposeString('description', { description: 'A free description; empty when none was given.' }),
    enabled: t.exposeBoolean('enabled', {
      description: 'Whether events are delivered here: false once disabled by a client, or by failing for too long.',
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it was created.' }),
    failingSince: t.expose('failingSince', {
      type: 'DateTime',
      nullable: true,
      description: 'Since when its deliveries have failed with no success between; null when the last one succeeded.',
    }),
    disabledAt: t.expose('disabledAt', {
      type: 'DateTime',
      nullable: true,
      description: 'When the service disabled it for failing too long (WEBHOOK_DISABLE_AFTER); null otherwise.',
    }),
    deliveries: t.connection({
      type: WebhookDelivery,
      description: 'Its deliveries, newest first (`GET /webhook-endpoints/{id}/deliveries`).',
      resolve: (endpoint, args, context) =>
        modelConnection(args, context.db.webhookDelivery, {
          where: { endpointId: endpoint.id },
          orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
        }),
    }),
  }),
});

const WebhookEndpointSecret = builder
  .objectRef<{ endpoint: WebhookEndpointRow; secret: string }>('WebhookEndpointSecret')
  .implement({
    description: 'An endpoint with its new secret, shown this once.',
    fields: (t) => ({
      endpoint: t.field({
        type: WebhookEndpoint,
        description: 'The endpoint.',
        resolve: (created) => created.endpoint,
      }),
      secret: t.exposeString('secret', {
        description:
          "`whsec_…`: verify the endpoint's deliveries with it (Standard Webhooks); stored sealed, never shown again.",
      }),
    }),
  });

const WebhookEndpointCreate = typesFromSchema(webhookEndpointCreate);
const WebhookEndpointUpdate = typesFromSchema(webhookEndpointUpdate);

builder.queryFields((t) => ({
  webhookEndpoints: t.connection({
    type: WebhookEndpoint,
    description: "The organization's webhook endpoints, oldest first (`GET /webhook-endpoints`).",
    resolve: (_root, args, context) =>
      modelConnection(args, context.db.webhookEndpoint, { orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] }),
  }),
  webhookEndpoint: t.field({
    type: WebhookEndpoint,
    nullable: true,
    description:
      "A webhook endpoint; null for an unknown id or another organization's (`GET /webhook-endpoints/{id}`).",
    args: { id: t.arg.id({ required: true, description: 'Its id (`whe_…`).' }) },
    resolve: (_root, args, context) => context.db.webhookEndpoint.findFirst({ where: { id: String(args.id) } }),
  }),
}));

builder.mutationFields((t) => ({
  createWebhookEndpoint: t.field({
    type: WebhookEndpointSecret,
    description: 'Creates a webhook endpoint with a new secret, shown in the answer only (`POST /webhook-endpoints`).',
    args: {
      input: t.arg({ type: WebhookEndpointCreate.input(), required: true, description: 'Where, and which events.' }),
    },
    resolve: (_root, args, context) =>
      createWebhookEndpoint(scopeOf(context), context, WebhookEndpointCreate.parse(context, args.input)),
  }),
  updateWebhookEndpoint: t.field({
    type: WebhookEndpoint,
    description:
      'Changes an endpoint (`PATCH /webhook-endpoints/{id}`): members given replace its own; disabling it fails its pending deliveries.',
    args: {
      id: t.arg.id({ required: true, description: 'The endpoint (`whe_…`).' }),
      input: t.arg({ type: WebhookEndpointUpdate.input(), required: true, description: 'The members to change.' }),
    },
    resolve: (_root, args, context) =>
      updateWebhookEndpoint(
        scopeOf(context),
        context,
        String(args.id),
        WebhookEndpointUpdate.parse(context, args.input),
      ),
  }),
  deleteWebhookEndpoint: t.id({
    description: 'Deletes an endpoint with its deliveries (`DELETE /webhook-endpoints/{id}`); returns its id.',
    args: { id: t.arg.id({ required: true, description: 'The endpoint (`whe_…`).' }) },
    resolve: (_root, args, context) => deleteWebhookEndpoint(scopeOf(context), String(args.id)),
  }),
  rotateWebhookEndpointSecret: t.field({
    type: WebhookEndpointSecret,
    description:
      "Replaces an endpoint's secret (`POST /webhook-endpoints/{id}/rotate-secret`): deliveries from now on are signed with the new one only.",
    args: { id: t.arg.id({ required: true, description: 'The endpoint (`whe_…`).' }) },
    resolve: (_root, args, context) => rotateWebhookEndpointSecret(scopeOf(context), context.secrets, String(args.id)),
  }),
  replayWebhookDelivery: t.field({
    type: WebhookDelivery,
    description:
      'Sends a delivery again, due at once with the same `webhook-id`, its attempts counted afresh (`POST /webhook-deliveries/{id}/replay`). ' +
      'CONFLICT while its endpoint is disabled.',
    args: { id: t.arg.id({ required: true, description: 'The delivery (`dlv_…`).' }) },
    resolve: (_root, args, context) => replayWebhookDelivery(scopeOf(context), String(args.id)),
  }),
}));
