// Webhook endpoints and their deliveries. Creating an endpoint is
// a create (201, Idempotency-Key) whose answer shows the secret: the answer
// kept for the key holds it sealed (`secretMembers`, src/rest/idempotency.ts).
// Rotating a secret and replaying a delivery act on what exists: 200.
import { z } from 'zod';
import { webhookEndpointCreate, webhookEndpointUpdate } from '../../domain/webhook-endpoints.ts';
import { webhookDelivery, webhookEndpoint } from '../../records/webhooks.ts';
import { wireNames } from '../../schema/json-schema-names.ts';
import {
  dataListQuery,
  found,
  idParameter,
  operationRoute,
  pageArgs,
  pageLimitQuery,
  paginationEnvelope,
  paginationEnvelopeSchema,
} from '../route.ts';

const WebhookEndpointCreate = wireNames(webhookEndpointCreate);
const WebhookEndpointUpdate = wireNames(webhookEndpointUpdate);

const endpointParameters = { id: idParameter('whe') };

/** An endpoint as created or rotated: with its secret, shown this once. */
const withSecret = `endpoint { ${webhookEndpoint.selection} } secret`;
const presentWithSecret = ({ endpoint, secret }: { endpoint: Record<string, unknown>; secret: string }) => ({
  ...webhookEndpoint.present(endpoint),
  secret,
});
const withSecretSchema = webhookEndpoint.schema
  .extend({
    secret: z
      .string()
      .meta({ description: '`whsec_…`, shown only here: verify deliveries with it (Standard Webhooks)' }),
  })
  .meta({ id: 'WebhookEndpointWithSecret' });

export const webhookRoutes = [
  operationRoute({
    method: 'POST',
    path: '/webhook-endpoints',
    endpoint: null,
    summary: 'Create a webhook endpoint; its secret is in this answer only',
    operation: `mutation($input: WebhookEndpointCreateInput!) { createWebhookEndpoint(input: $input) { ${withSecret} } }`,
    body: webhookEndpointCreate,
    status: 201,
    secretMembers: ['secret'],
    variables: ({ body }) => ({ input: WebhookEndpointCreate.toInput(body) }),
    respond: (data) => presentWithSecret(data.createWebhookEndpoint),
    response: withSecretSchema,
  }),
  operationRoute({
    method: 'GET',
    path: '/webhook-endpoints',
    endpoint: null,
    summary: 'List the webhook endpoints, oldest first',
    operation: `query($first: Int, $after: String) {
      webhookEndpoints(first: $first, after: $after) { nodes { ${webhookEndpoint.selection} } } }`,
    query: dataListQuery,
    variables: ({ query }) => pageArgs(query.page, query.limit),
    respond: (data) => ({ data: data.webhookEndpoints.nodes.map(webhookEndpoint.present) }),
    response: z.strictObject({ data: z.array(webhookEndpoint.schema) }),
  }),
  operationRoute({
    method: 'GET',
    path: '/webhook-endpoints/:id',
    params: endpointParameters,
    endpoint: null,
    summary: 'Get a webhook endpoint (never its secret)',
    operation: `query($id: ID!) { webhookEndpoint(id: $id) { ${webhookEndpoint.selection} } }`,
    variables: ({ params }) => ({ id: params.id }),
    respond: (data) => webhookEndpoint.present(found(data.webhookEndpoint, 'webhook endpoint')),
    response: webhookEndpoint.schema,
  }),
  operationRoute({
    method: 'PATCH',
    path: '/webhook-endpoints/:id',
    params: endpointParameters,
    endpoint: null,
    summary: 'Change a webhook endpoint (url, events, description, enabled); disabling it fails its pending deliveries',
    operation: `mutation($id: ID!, $input: WebhookEndpointUpdateInput!) {
      updateWebhookEndpoint(id: $id, input: $input) { ${webhookEndpoint.selection} } }`,
    body: webhookEndpointUpdate,
    variables: ({ params, body }) => ({ id: params.id, input: WebhookEndpointUpdate.toInput(body) }),
    respond: (data) => webhookEndpoint.present(data.updateWebhookEndpoint),
    response: webhookEndpoint.schema,
  }),
  operationRoute({
    method: 'DELETE',
    path: '/webhook-endpoints/:id',
    params: endpointParameters,
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
    params: endpointParameters,
    endpoint: null,
    summary: "Replace a webhook endpoint's secret (shown in this answer only); the old one stops signing at once",
    operation: `mutation($id: ID!) { rotateWebhookEndpointSecret(id: $id) { ${withSecret} } }`,
    variables: ({ params }) => ({ id: params.id }),
    respond: (data) => presentWithSecret(data.rotateWebhookEndpointSecret),
    response: withSecretSchema,
  }),
  operationRoute({
    method: 'GET',
    path: '/webhook-endpoints/:id/deliveries',
    params: endpointParameters,
    endpoint: null,
    summary: "List a webhook endpoint's deliveries, newest first",
    operation: `query($id: ID!, $first: Int, $after: String) { webhookEndpoint(id: $id) {
      deliveries(first: $first, after: $after) { totalCount nodes { ${webhookDelivery.selection} } } } }`,
    query: pageLimitQuery,
    variables: ({ params, query }) => ({ id: params.id, ...pageArgs(query.page, query.limit) }),
    respond: (data, { query }) =>
      paginationEnvelope(
        found(data.webhookEndpoint, 'webhook endpoint').deliveries,
        query.page,
        query.limit,
        webhookDelivery.present,
      ),
    response: paginationEnvelopeSchema(webhookDelivery.schema),
  }),
  operationRoute({
    method: 'POST',
    path: '/webhook-deliveries/:id/replay',
    params: { id: idParameter('dlv') },
    answers: { 409: 'its endpoint is disabled' },
    endpoint: null,
    summary: 'Send a delivery again (the same webhook-id), due at once; 409 while its endpoint is disabled',
    operation: `mutation($id: ID!) { replayWebhookDelivery(id: $id) { ${webhookDelivery.selection} } }`,
    variables: ({ params }) => ({ id: params.id }),
    respond: (data) => webhookDelivery.present(data.replayWebhookDelivery),
    response: webhookDelivery.schema,
  }),
];
