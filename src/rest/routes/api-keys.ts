// The organization's API keys (DECISIONS.md's extension; src/schema/api-key.ts).
// Every route needs the `keys:admin` scope, and a key grants or rotates no
// more than it holds. Creating is a create (201, Idempotency-Key) whose answer
// shows the key: the answer kept for the Idempotency-Key holds it sealed
// (`secretMembers`). Rotating answers 200 and is not kept anywhere, as the
// signing secret's rotation.
import { z } from 'zod';
import { apiKeyCreate, apiKeyRotate } from '../../domain/organizations.ts';
import { apiKey, issuedApiKey } from '../../records/api-keys.ts';
import { found, idParameter, operationRoute } from '../route.ts';

const keyParameters = { id: idParameter('key') };

export const apiKeyRoutes = [
  operationRoute({
    method: 'POST',
    path: '/api-keys',
    endpoint: null,
    summary: 'Issue an API key with scopes (none the asking key lacks); the key is in this answer only',
    operation: `mutation($name: String, $scopes: [String!], $expiresAt: DateTime) {
      createApiKey(name: $name, scopes: $scopes, expiresAt: $expiresAt) { ${issuedApiKey.selection} } }`,
    body: apiKeyCreate,
    status: 201,
    secretMembers: ['api_key'],
    answers: { 409: 'the organization holds `API_KEYS_PER_ORGANIZATION` working keys already' },
    variables: ({ body }) => ({
      name: body.name ?? null,
      scopes: body.scopes ?? null,
      expiresAt: body.expires_at ?? null,
    }),
    respond: (data) => issuedApiKey.present(data.createApiKey),
    response: issuedApiKey.schema,
  }),
  operationRoute({
    method: 'GET',
    path: '/api-keys',
    endpoint: null,
    summary: "List the organization's API keys, newest first, revoked ones too (never the keys themselves)",
    operation: `query { apiKeys { ${apiKey.selection} } }`,
    variables: () => ({}),
    respond: (data) => ({ data: data.apiKeys.map(apiKey.present) }),
    response: z.strictObject({ data: z.array(apiKey.schema) }),
  }),
  operationRoute({
    method: 'DELETE',
    path: '/api-keys/:id',
    params: keyParameters,
    endpoint: null,
    summary: 'Revoke an API key: it is refused from then on',
    operation: 'mutation($id: ID!) { revokeApiKey(id: $id) { id } }',
    variables: ({ params }) => ({ id: params.id }),
    respond: (data) => {
      found(data.revokeApiKey, 'API key');
      return {};
    },
    response: z.strictObject({}),
  }),
  operationRoute({
    method: 'POST',
    path: '/api-keys/:id/rotate',
    params: keyParameters,
    endpoint: null,
    summary:
      'Issue a successor to an API key, with its scopes and expiry (shown this once); the old key is revoked, or works for `grace_seconds` more',
    operation: `mutation($id: ID!, $graceSeconds: Int) {
      rotateApiKey(id: $id, graceSeconds: $graceSeconds) { ${issuedApiKey.selection} } }`,
    body: apiKeyRotate,
    variables: ({ params, body }) => ({ id: params.id, graceSeconds: body.grace_seconds ?? null }),
    respond: (data) => issuedApiKey.present(data.rotateApiKey),
    response: issuedApiKey.schema,
  }),
];
