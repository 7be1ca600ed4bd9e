// Integrations.
import { z } from 'zod';
import { integrationConnect } from '../../domain/integrations.ts';
import { availableIntegration, connectedIntegration } from '../../records/integrations.ts';
import { wireNames } from '../../schema/json-schema-names.ts';
import { MAX_PAGE_SIZE } from '../../schema/pagination.ts';
import { found, idParameter, operationRoute } from '../route.ts';

const IntegrationConnect = wireNames(integrationConnect);

export const integrationRoutes = [
  operationRoute({
    method: 'POST',
    path: '/integrations',
    endpoint: 'E10',
    summary: 'Connect an integration (an already connected slug gets new credentials and settings)',
    operation: `mutation($input: ConnectIntegrationInput!) { connectIntegration(input: $input) { ${connectedIntegration.selection} } }`,
    body: integrationConnect,
    jsonMembers: { objects: ['credentials', 'settings'] },
    status: 201,
    variables: ({ body }) => ({ input: IntegrationConnect.toInput(body) }),
    respond: (data) => connectedIntegration.present(data.connectIntegration),
    response: connectedIntegration.schema,
  }),
  operationRoute({
    method: 'GET',
    path: '/integrations',
    endpoint: 'E11',
    summary: 'List available integrations with their connection status',
    operation: `query { integrations(first: ${MAX_PAGE_SIZE}) { nodes { ${availableIntegration.selection} } } }`,
    variables: () => ({}),
    respond: (data) => ({ data: data.integrations.nodes.map(availableIntegration.present) }),
    response: z.strictObject({ data: z.array(availableIntegration.schema) }),
  }),
  operationRoute({
    method: 'GET',
    path: '/integrations/connected',
    endpoint: 'E12',
    summary: 'List connected integrations',
    operation: `query { connectedIntegrations(first: ${MAX_PAGE_SIZE}) { nodes { ${connectedIntegration.selection} } } }`,
    variables: () => ({}),
    respond: (data) => ({ data: data.connectedIntegrations.nodes.map(connectedIntegration.present) }),
    response: z.strictObject({ data: z.array(connectedIntegration.schema) }),
  }),
  operationRoute({
    method: 'GET',
    path: '/integrations/slug/:slug',
    endpoint: 'E13',
    summary: 'Get a connected integration by slug',
    operation: `query($slug: String!) { integrationBySlug(slug: $slug) { ${connectedIntegration.selection} } }`,
    params: {
      slug: z
        .string()
        .regex(/^[a-z0-9]+(-[a-z0-9]+)*$/)
        .meta({ description: "The catalog entry's slug" }),
    },
    variables: ({ params }) => ({ slug: params.slug }),
    respond: (data) => connectedIntegration.present(found(data.integrationBySlug, 'integration')),
    response: connectedIntegration.schema,
  }),
  operationRoute({
    method: 'GET',
    path: '/integrations/:id',
    endpoint: 'E14',
    summary: 'Get a connected integration by id',
    operation: `query($id: ID!) { connectedIntegration(id: $id) { ${connectedIntegration.selection} } }`,
    params: { id: idParameter('oint') },
    variables: ({ params }) => ({ id: params.id }),
    respond: (data) => connectedIntegration.present(found(data.connectedIntegration, 'integration')),
    response: connectedIntegration.schema,
  }),
];
