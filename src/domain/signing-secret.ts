// The organization's signing secret: the requests the service makes for it
// (an agent's pre-call webhook, a workflow's webhook steps) carry Standard
// Webhooks signatures (webhook-id, webhook-timestamp, webhook-signature:
// `v1,<base64 HMAC-SHA256>`) made with it, so receivers can tell them from
// forgeries with any Standard Webhooks library. It is shown once, when it is
// rotated (made), and stored sealed like every other secret.
import { randomBytes, randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import type { Scope } from './scope.ts';
import type { SecretBox } from './secrets.ts';

const SIGNING_SECRET_PREFIX = 'whsec_';

/** A new Standard Webhooks secret: `whsec_` and 32 random bytes in base64 (also a webhook endpoint's). */
export const newSigningSecret = () => `${SIGNING_SECRET_PREFIX}${randomBytes(32).toString('base64')}`;

/** Makes a new secret (the previous one stops signing at once); returns it, the only time it is shown. */
export async function rotateSigningSecret(scope: Scope, secrets: SecretBox) {
  const secret = newSigningSecret();
  const rotatedAt = new Date();
  await scope.prisma.organization.update({
    where: { id: scope.viewer.organizationId },
    data: { signingSecretEncrypted: secrets.seal(secret) },
  });
  return { secret, rotatedAt };
}

/**
 * The Standard Webhooks headers for one request's body, signed at `at`. `id`
 * is the `webhook-id`: a new one per request, unless the request is a retry of
 * the same message (a webhook event's deliveries carry the event's id).
 */
export function signatureHeaders(
  secret: string,
  body: string,
  at: Date,
  id = `msg_${randomUUID().replaceAll('-', '')}`,
): Record<string, string> {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': new Webhook(secret).sign(id, at, body),
  };
}
