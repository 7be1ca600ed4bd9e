// POST /livekit/webhook (DIALER=livekit): LiveKit's webhooks, outside the
// organizations' prefixes and without an API key. LiveKit signs each one (a
// JWT in `Authorization`, signed with the API secret, whose `sha256` claim is
// the body's hash); anything the SDK's WebhookReceiver does not accept is a
// 401. A call's end is recorded on its attempt (src/livekit/calls.ts) for the
// instance that placed it; other events are acknowledged and ignored.
import type { FastifyInstance } from 'fastify';
import type { WebhookEvent } from 'livekit-server-sdk';
import type { LiveKit } from '../livekit/livekit.ts';
import { reportedEnd } from '../livekit/webhook.ts';
import { sendError } from '../requests/error-body.ts';
import { unlimited } from '../requests/rate-limits.ts';

const LIVEKIT_WEBHOOK_PATH = '/livekit/webhook';

export async function registerLiveKitWebhook(app: FastifyInstance, livekit: LiveKit) {
  await app.register(async (scope) => {
    // The signature covers the bytes as sent (`application/webhook+json`): the body is kept as text.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => done(null, body));
    // LiveKit's servers send every room's events: they are counted by no API key's quota.
    scope.post(LIVEKIT_WEBHOOK_PATH, { config: unlimited }, async (request, reply) => {
      let event: WebhookEvent;
      try {
        event = await livekit.webhooks.receive(
          typeof request.body === 'string' ? request.body : '',
          request.headers.authorization,
        );
      } catch {
        return sendError(reply, 401, "not a webhook signed with this gateway's LiveKit API key");
      }
      const end = reportedEnd(event);
      const recorded = end ? await livekit.calls.recordEnd(end.roomName, end.endedAt, end.durationSeconds) : false;
      return { received: true, recorded };
    });
  });
}
