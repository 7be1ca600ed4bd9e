// GET /metrics: Prometheus metrics for the operator's scraper, never for a
// tenant (they span every organization: routes, operations, queue depths).
// The scraper sends METRICS_TOKEN as a bearer token; without METRICS_TOKEN
// the route is off, whoever asks: a proxy in front of the gateway makes every
// request look local, so where a request comes from proves nothing.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { Metrics } from '../observability/metrics.ts';
import { sendError } from '../requests/error-body.ts';
import { unlimited } from '../requests/rate-limits.ts';

// Compared as digests: equal lengths for timingSafeEqual, and no time that depends on the token.
const digest = (text: string) => createHash('sha256').update(text).digest();

export function registerMetricsRoute(app: FastifyInstance, metrics: Metrics, token: string | undefined) {
  const expected = token === undefined ? null : digest(token);
  app.get('/metrics', { config: unlimited }, async (request, reply) => {
    if (!expected) {
      return sendError(
        reply,
        404,
        'metrics are off: set METRICS_TOKEN, then scrape with Authorization: Bearer <token>',
      );
    }
    const given = /^Bearer +(\S+) *$/i.exec(request.headers.authorization ?? '')?.[1];
    if (given === undefined || !timingSafeEqual(digest(given), expected)) {
      reply.header('www-authenticate', 'Bearer realm="metrics"');
      return sendError(reply, 401, 'the metrics token is required: Authorization: Bearer <METRICS_TOKEN>');
    }
    return reply.type(metrics.registry.contentType).send(await metrics.registry.metrics());
  });
}
