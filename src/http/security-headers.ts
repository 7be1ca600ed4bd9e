// The security headers every answer carries, as helmet makes them (CSP,
// HSTS, frame and content-type options, …). They are the same for every
// request (no CSP nonces), so helmet makes them once, at start, and each
// request only sets them: @fastify/helmet built a new helmet, parsing the CSP
// again, on every request (~3.5% of a trivial query's CPU, BENCHMARKS.md (e)).
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import helmet, { type HelmetOptions } from 'helmet';

/** The headers helmet sets with these options, captured from one run of its middleware. */
function helmetHeaders(options: HelmetOptions): OutgoingHttpHeaders {
  const headers: OutgoingHttpHeaders = {};
  const response = {
    setHeader(name: string, value: string) {
      headers[name.toLowerCase()] = value;
    },
    removeHeader(name: string) {
      delete headers[name.toLowerCase()];
    },
  };
  helmet(options)({} as IncomingMessage, response as unknown as ServerResponse, () => {});
  return headers;
}

export function registerSecurityHeaders(app: FastifyInstance, options: HelmetOptions): void {
  const headers = Object.entries(helmetHeaders(options));
  // On the raw response, as helmet does: an answer Fastify does not write itself carries them too.
  app.addHook('onRequest', (_request, reply, done) => {
    for (const [name, value] of headers) reply.raw.setHeader(name, value!);
    done();
  });
}
