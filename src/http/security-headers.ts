// The security headers every answer carries, as helmet makes them (CSP,
// HSTS, frame and content-type options, …). They are the same for every
// request (no CSP nonces), so helmet makes them once, at start, and each
// request only sets them: @fastify/helmet built a new helmet, parsing the CSP
// again, on every request (~3.5% of a trivial query's CPU, BENCHMARKS.md (e)).
//
// No page may run inline script: the console and /docs load theirs from
// files. GraphiQL is the one page that inlines its script (its whole bundle,
// as @graphql-yoga/render-graphiql writes it): its answer carries a policy
// of its own that allows that script by its hash, and nothing else inline.
import { createHash } from 'node:crypto';
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import helmet, { type HelmetOptions } from 'helmet';

type Directives = Record<string, string[]>;

const directives: Directives = {
  'script-src': ["'self'"],
  'style-src': ["'self'"],
  'img-src': ["'self'", 'data:'],
  'connect-src': ["'self'"],
};

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

const policyOf = (given: Directives) =>
  helmetHeaders({ contentSecurityPolicy: { directives: given } })['content-security-policy'] as string;

export function registerSecurityHeaders(app: FastifyInstance): void {
  const headers = Object.entries(helmetHeaders({ contentSecurityPolicy: { directives } }));
  // On the raw response, as helmet does: an answer Fastify does not write itself carries them too.
  app.addHook('onRequest', (_request, reply, done) => {
    for (const [name, value] of headers) reply.raw.setHeader(name, value!);
    done();
  });
}

/** What an inline script is allowed by: the SHA-256 of its text, as CSP writes it. */
const scriptHash = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;

/**
 * What tells one GraphiQL page from another: its length and its ends, where
 * render-graphiql writes its options (the title; the options JSON closing the
 * script). Not the page itself, 18 MB (its bundle has characters beyond
 * Latin-1), which the last policy would otherwise keep alive.
 */
const pageKey = (html: string) => `${html.length}:${html.slice(0, 2048)}${html.slice(-2048)}`;

let lastPage: { key: string; policy: string } | undefined;

/**
 * The policy of GraphiQL's page (`html`, as render-graphiql writes it): its
 * inline scripts allowed by their hashes; the editor's workers, which the
 * page makes from Blob URLs; and inline styles, which the editor adds as it
 * runs (a style cannot run script). The page is the same on every request:
 * its policy is made once (hashing it costs ~25 ms).
 */
export function graphiqlPolicy(html: string): string {
  const key = pageKey(html);
  if (lastPage?.key === key) return lastPage.policy;
  const inlineScripts = [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((match) => scriptHash(match[1]!));
  const policy = policyOf({
    ...directives,
    'script-src': [...directives['script-src']!, ...inlineScripts],
    'worker-src': ["'self'", 'blob:'],
    'style-src': [...directives['style-src']!, "'unsafe-inline'"],
  });
  lastPage = { key, policy };
  return policy;
}
