// Integrations: E10-E14.
import { z } from 'zod';
import { integrationConnect } from '../../domain/integrations.ts';
import { wireNames } from '../../schema/json-schema-names.ts';
import { MAX_PAGE_SIZE } from '../../schema/pagination.ts';
import {
  availableIntegrationFragment,
  availableIntegrationSchema,
  connectedIntegrationFragment,
  connectedIntegrationSchema,
  presentIntegration,
} from '../resources/integrations.ts';
import { found, operationRoute } from '../route.ts';

const IntegrationConnect = wireNames(integrationConnect);

export const integrationRoutes = [
  operationRoute({
    method: 'POST',
    path: '/integrations',
    endpoint: 'E10',
    summary: 'Connect an integration (an already connected slug gets new credentials and settings)',
    operation: `mutation($input: ConnectIntegrationInput!) { connectIntegration(input: $input) { ...ConnectedIntegrationRest } }
      ${connectedIntegrationFragment}`,
    body: integrationConnect,
    jsonMembers: { objects: ['credentials', 'settings'] },
    status: 201,
    variables: ({ body }) => ({ input: IntegrationConnect.toInput(body) }),
    respond: (data) => presentIntegration(data.connectIntegration),
    response: connectedIntegrationSchema,
  }),
  operationRoute({
    method: 'GET',
    path: '/integrations',
    endpoint: 'E11',
    summary: 'List available integrations with their connection status',
    operation: `query { integrations(first: ${MAX_PAGE_SIZE}) { nodes { ...AvailableIntegrationRest } } } ${availableIntegrationFragment}`,
    variables: () => ({}),
    respond: (data) => ({ data: data.integrations.nodes.map(presentIntegration) }),
    response: z.strictObject({ data: z.array(availableIntegrationSchema) }),
  }),
  operationRoute({
    method: 'GET',
    path: '/integrations/connected',
    endpoint: 'E12',
    summary: 'List connected integrations',
    operation: `query { connectedIntegrations(first: ${MAX_PAGE_SIZE}) { nodes { ...ConnectedIntegrationRest } } }
      ${connectedIntegrationFragment}`,
    variables: () => ({}),
    respond: (data) => ({ data: data.connectedIntegrations.nodes.map(presentIntegration) }),
    response: z.strictObject({ data: z.array(connectedIntegrationSchema) }),
  }),
  operationRoute({
    method: 'GET',
    path: '/integrations/slug/:slug',
    endpoint: 'E13',
    summary: 'Get a connected integration by slug',
    operation: `query($slug: String!) { integrationBySlug(slug: $slug) { ...ConnectedIntegrationRest } } ${connectedIntegrationFragment}`,
    variables: ({ params }) => ({ slug: params.slug }),
    respond: (data) => presentIntegration(found(data.integrationBySlug, 'integration')),
    response: connectedIntegrationSchema,
  }),
  operationRoute({
    method: 'GET',
    path: '/integrations/:id',
    endpoint: 'E14',
    summary: 'Get a connected integration by id',
    operation: `query($id: ID!) { connectedIntegration(id: $id) { ...ConnectedIntegrationRest } } ${connectedIntegrationFragment}`,
    variables: ({ params }) => ({ id: params.id }),
    respond: (data) => presentIntegration(found(data.connectedIntegration, 'integration')),
    response: connectedIntegrationSchema,
  }),
];
