// One structured log line per request (pino, through Fastify): request id,
// organization, route or GraphQL operation, status and latency, trace and span ids; and the same
// latency into the metrics. Keys and credentials are redacted by the logger.
import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Metrics } from './metrics.ts';
import { tracing } from './tracing.ts';

/** What the handlers learn about a request, for its log line. */
export interface RequestAudit {
  organizationId?: string;
  /** The GraphQL operation (its name, or its first root field). */
  operation?: string;
  /** The request's trace and span, when traces are on (src/observability/tracing.ts). */
  trace?: { traceId: string; spanId: string };
  /** Where it came from, for the audit trail of its writes (src/domain/audit-log.ts). */
  sourceIp?: string;
  userAgent?: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    audit: RequestAudit;
  }
}

/** The caller's `x-request-id` when it is a sane token, else a new one. */
export function requestIdOf(request: { headers: Record<string, string | string[] | undefined> }): string {
  const given = request.headers['x-request-id'];
  return typeof given === 'string' && /^[\w.:-]{1,128}$/.test(given) ? given : randomUUID();
}

const routeOf = (request: FastifyRequest) => request.routeOptions.url ?? 'unmatched';

export function registerRequestLog(app: FastifyInstance, metrics: Metrics) {
  app.decorateRequest('audit', null as unknown as RequestAudit);
  // Callback hooks, not async ones: they do no asynchronous work, and every request runs them,
  // so no promise is made for each.
  app.addHook('onRequest', (request, reply, done) => {
    // The request's span is active here when traces are on: its plugin's hook runs first.
    request.audit = { trace: tracing().activeIds(), sourceIp: request.ip, userAgent: request.headers['user-agent'] };
    reply.header('x-request-id', request.id);
    done();
  });
  app.addHook('onResponse', (request, reply, done) => {
    const route = routeOf(request);
    const latencyMs = reply.elapsedTime;
    metrics.httpDuration.observe({ method: request.method, route, status: String(reply.statusCode) }, latencyMs / 1000);
    if (route !== '/health' && route !== '/ready' && route !== '/metrics')
      logRequest(request, route, latencyMs, reply.statusCode);
    done();
  });
}

function logRequest(request: FastifyRequest, route: string, latencyMs: number, status: number) {
  request.log.info(
    {
      method: request.method,
      route,
      status,
      latencyMs: Math.round(latencyMs * 100) / 100,
      organizationId: request.audit.organizationId,
      operation: request.audit.operation,
      traceId: request.audit.trace?.traceId,
      spanId: request.audit.trace?.spanId,
    },
    'request',
  );
}
