// The organization's signing secret (src/domain/signing-secret.ts). Rotating
// answers 200, not a create's 201: a create's answer is kept for its
// Idempotency-Key, and this one must not be stored anywhere in the clear.
import { signingSecret } from '../../records/organizations.ts';
import { operationRoute } from '../route.ts';

export const signingSecretRoutes = [
  operationRoute({
    method: 'POST',
    path: '/signing-secret/rotate',
    endpoint: null,
    summary: 'Make a new signing secret for pre-call webhooks and webhook steps (shown this once)',
    operation: `mutation { rotateSigningSecret { ${signingSecret.selection} } }`,
    variables: () => ({}),
    respond: (data) => signingSecret.present(data.rotateSigningSecret),
    response: signingSecret.schema,
  }),
];
