// Webhook endpoints and their deliveries (issue 13). Creating an endpoint is
// a create (201, Idempotency-Key) whose answer shows the secret: the answer
// kept for the key holds it sealed (`secretMembers`, src/rest/idempotency.ts).
// Rotating a secret and replaying a delivery act on what exists: 200.
import { z } from 'zod';
import { webhookEndpointCreate, webhookEndpointUpdate } from '../../domain/webhook-endpoints.ts';
import { wireNames } from '../../schema/json-schema-names.ts';
import {
  presentWebhookDelivery,
  presentWebhookEndpoint,
  presentWebhookEndpointSecret,
  webhookDeliveryFragment,
  webhookDeliverySchema,
  webhookEndpointFragment,
  webhookEndpointSchema,
  webhookEndpointSecretSchema,
} from '../resources/webhooks.ts';
import {
  dataListQuery,
  found,
  operationRoute,
  pageArgs,
  pageLimitQuery,
  paginationEnvelope,
  paginationEnvelopeSchema,
} from '../route.ts';

const WebhookEndpointCreate = wireNames(webhookEndpointCreate);
const WebhookEndpointUpdate = wireNames(webhookEndpointUpdate);

const withSecret = `endpoint { ...WebhookEndpointRest } secret`;

export const webhookRoutes = [
  operationRoute({
    method: 'POST',
    path: '/webhook-endpoints',
    endpoint: null,
    summary: 'Create a webhook endpoint; its secret is in this answer only',
    operation: `mutation($input: WebhookEndpointCreateInput!) { createWebhookEndpoint(input: $input) { ${withSecret} } } ${webhookEndpointFragment}`,
    body: webhookEndpointCreate,
    status: 201,
    secretMembers: ['secret'],
    variables: ({ body }) => ({ input: WebhookEndpointCreate.toInput(body) }),
    respond: (data) => presentWebhookEndpointSecret(data.createWebhookEndpoint),
    response: webhookEndpointSecretSchema,
  }),
  operationRoute({
    method: 'GET',
    path: '/webhook-endpoints',
    endpoint: null,
    summary: 'List the webhook endpoints, oldest first',
    operation: `query($first: Int, $after: String) {
      webhookEndpoints(first: $first, after: $after) { nodes { ...WebhookEndpointRest } } } ${webhookEndpointFragment}`,
    query: dataListQuery,
    variables: ({ query }) => pageArgs(query.page, query.limit),
    respond: (data) => ({ data: data.webhookEndpoints.nodes.map(presentWebhookEndpoint) }),
    response: z.strictObject({ data: z.array(webhookEndpointSchema) }),
  }),
  operationRoute({
    method: 'GET',
    path: '/webhook-endpoints/:id',
    endpoint: null,
    summary: 'Get a webhook endpoint (never its secret)',
    operation: `query($id: ID!) { webhookEndpoint(id: $id) { ...WebhookEndpointRest } } ${webhookEndpointFragment}`,
    variables: ({ params }) => ({ id: params.id }),
    respond: (data) => presentWebhookEndpoint(found(data.webhookEndpoint, 'webhook endpoint')),
    response: webhookEndpointSchema,
  }),
  operationRoute({
    method: 'PATCH',
    path: '/webhook-endpoints/:id',
    endpoint: null,
    summary: 'Change a webhook endpoint (url, events, description, enabled); disabling it fails its pending deliveries',
    operation: `mutation($id: ID!, $input: WebhookEndpointUpdateInput!) {
      updateWebhookEndpoint(id: $id, input: $input) { ...WebhookEndpointRest } } ${webhookEndpointFragment}`,
    body: webhookEndpointUpdate,
    variables: ({ params, body }) => ({ id: params.id, input: WebhookEndpointUpdate.toInput(body) }),
    respond: (data) => presentWebhookEndpoint(data.updateWebhookEndpoint),
    response: webhookEndpointSchema,
  }),
  operationRoute({
    method: 'DELETE',
    path: '/webhook-endpoints/:id',
    endpoint: null,
    summary: 'Delete a webhook endpoint with its deliveries',
    operation: `mutation($id: ID!) { deleteWebhookEndpoint(id: $id) }`,
    variables: ({ params }) => ({ id: params.id }),
    respond: () => ({}),
    response: z.strictObject({}),
  }),
  operationRoute({
    method: 'POST',
    path: '/webhook-endpoints/:id/rotate-secret',
    endpoint: null,
    summary: "Replace a webhook endpoint's secret (shown in this answer only); the old one stops signing at once",
    operation: `mutation($id: ID!) { rotateWebhookEndpointSecret(id: $id) { ${withSecret} } } ${webhookEndpointFragment}`,
    variables: ({ params }) => ({ id: params.id }),
    respond: (data) => presentWebhookEndpointSecret(data.rotateWebhookEndpointSecret),
    response: webhookEndpointSecretSchema,
  }),
  operationRoute({
    method: 'GET',
    path: '/webhook-endpoints/:id/deliveries',
    endpoint: null,
    summary: "List a webhook endpoint's deliveries, newest first",
    operation: `query($id: ID!, $first: Int, $after: String) { webhookEndpoint(id: $id) {
      deliveries(first: $first, after: $after) { totalCount nodes { ...WebhookDeliveryRest } } } } ${webhookDeliveryFragment}`,
    query: pageLimitQuery,
    variables: ({ params, query }) => ({ id: params.id, ...pageArgs(query.page, query.limit) }),
    respond: (data, { query }) =>
      paginationEnvelope(
        found(data.webhookEndpoint, 'webhook endpoint').deliveries,
        query.page,
        query.limit,
        presentWebhookDelivery,
      ),
    response: paginationEnvelopeSchema(webhookDeliverySchema),
  }),
  operationRoute({
    method: 'POST',
    path: '/webhook-deliveries/:id/replay',
    endpoint: null,
    summary: 'Send a delivery again (the same webhook-id), due at once; 409 while its endpoint is disabled',
    operation: `mutation($id: ID!) { replayWebhookDelivery(id: $id) { ...WebhookDeliveryRest } } ${webhookDeliveryFragment}`,
    variables: ({ params }) => ({ id: params.id }),
    respond: (data) => presentWebhookDelivery(data.replayWebhookDelivery),
    response: webhookDeliverySchema,
  }),
];
