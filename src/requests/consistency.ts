// Read-your-writes across requests, with read replicas (docs/scaling.md): every
// write's answer carries the primary's WAL position after it in the X-Consistency
// header; a request that sends it back reads from a replica only once that
// replica has replayed past it (src/db/read-replicas.ts). Without replicas
// nothing is added: the primary answers every read.
import type { FastifyInstance } from 'fastify';
import type { ReadReplicas, RequestConsistency } from '../db/read-replicas.ts';

const CONSISTENCY_HEADER = 'x-consistency';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set on every request when there are read replicas; undefined without. */
    consistency?: RequestConsistency;
  }
}

export function registerConsistency(app: FastifyInstance, replicas: ReadReplicas | undefined) {
  if (!replicas) return;
  app.decorateRequest('consistency', undefined);
  // Callback hooks: a request that wrote nothing makes no promise here.
  app.addHook('onRequest', (request, _reply, done) => {
    const token = request.headers[CONSISTENCY_HEADER];
    request.consistency = { token: typeof token === 'string' ? token : null, writer: null };
    done();
  });
  // Before the answer leaves: a client that reads right after it has its token already.
  app.addHook('onSend', (request, reply, payload, done) => {
    const writer = request.consistency?.writer;
    if (!writer) return done(null, payload);
    // The primary not answering now: the write's answer goes without a token rather than failing.
    replicas
      .wrote(writer)
      .catch(() => null)
      .then((token) => {
        if (token) reply.header(CONSISTENCY_HEADER, token);
        done(null, payload);
      });
  });
}
