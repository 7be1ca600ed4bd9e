// Calls the REST layer of a running test server.
import type { TestServer } from './server.ts';

export interface RestResponse {
  status: number;
  headers: Headers;
  body: any;
}

export interface RestOptions {
  apiKey?: string | null;
  body?: unknown;
  /** A raw body, sent as is (malformed JSON, other media types). */
  raw?: string;
  headers?: Record<string, string>;
}

/**
 * `server`: a test server, called in process (Fastify's inject: every hook,
 * parser and route, no socket), or any gateway's base URL, called over HTTP
 * (a server process: test/support/processes.ts).
 */
export function restClient(
  server: Pick<TestServer, 'url'> & Partial<Pick<TestServer, 'app'>>,
  organizationId: string,
  apiKey: string,
) {
  return async function rest(method: string, path: string, options: RestOptions = {}): Promise<RestResponse> {
    const key = options.apiKey === undefined ? apiKey : options.apiKey;
    const headers = {
      ...(options.body !== undefined || options.raw !== undefined ? { 'content-type': 'application/json' } : {}),
      ...(key ? { 'x-api-key': key } : {}),
      ...options.headers,
    };
    const body = options.raw ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
    const target = path.startsWith('/') ? path.replace('{org}', organizationId) : path;
    if (server.app && target.startsWith('/')) {
      const response = await server.app.inject({ method: method as 'GET', url: target, headers, payload: body });
      const answer = new Headers();
      for (const [name, value] of Object.entries(response.headers)) {
        for (const one of Array.isArray(value) ? value : [value])
          if (one !== undefined) answer.append(name, String(one));
      }
      return {
        status: response.statusCode,
        headers: answer,
        body: response.body ? JSON.parse(response.body) : undefined,
      };
    }
    const response = await fetch(target.startsWith('/') ? `${server.url}${target}` : target, { method, headers, body });
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
  };
}

/** Two organizations of the server, Acme and Globex, with their REST clients: tenancy checks call as the other. */
export async function acmeAndGlobex(server: TestServer) {
  const acme = await server.createOrganization('Acme');
  const globex = await server.createOrganization('Globex');
  return {
    organizationId: acme.organizationId,
    apiKey: acme.apiKey,
    rest: restClient(server, acme.organizationId, acme.apiKey),
    otherOrganizationId: globex.organizationId,
    otherKey: globex.apiKey,
    otherRest: restClient(server, globex.organizationId, globex.apiKey),
  };
}

/** The error body every failure has (SPEC.md, DECISIONS.md). */
export function expectErrorBody(response: RestResponse, status: number) {
  if (response.status !== status || response.body?.status !== false) {
    throw new Error(`expected a ${status} error body, got ${response.status} ${JSON.stringify(response.body)}`);
  }
  const keys = Object.keys(response.body).sort();
  if (
    keys.join() !== 'data,error,message,status' ||
    response.body.data !== null ||
    typeof response.body.message !== 'string'
  ) {
    throw new Error(`not SPEC.md's error body: ${JSON.stringify(response.body)}`);
  }
  return response.body as { status: false; message: string; error: any; data: null };
}
