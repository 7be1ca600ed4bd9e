// The organization's signing secret (src/domain/signing-secret.ts). Rotating
// answers 200, not a create's 201: a create's answer is kept for its
// Idempotency-Key, and this one must not be stored anywhere in the clear.
import { z } from 'zod';
import { timestamp } from '../resources/common.ts';
import { operationRoute } from '../route.ts';
import { wire } from '../wire.ts';

export const signingSecretRoutes = [
  operationRoute({
    method: 'POST',
    path: '/signing-secret/rotate',
    endpoint: null,
    summary: 'Make a new signing secret for pre-call webhooks and webhook steps (shown this once)',
    operation: 'mutation { rotateSigningSecret { secret rotatedAt } }',
    variables: () => ({}),
    respond: (data) => wire(data.rotateSigningSecret),
    response: z.strictObject({ secret: z.string(), rotated_at: timestamp() }).meta({ id: 'SigningSecret' }),
  }),
];
