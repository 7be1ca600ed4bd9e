// The one client for every request made on a tenant's behalf: webhook
// deliveries, agents' pre-call webhooks, workflows' webhook steps. It connects
// only to public addresses (checked on the addresses the socket uses, unless
// WEBHOOK_ALLOW_PRIVATE=on), never follows a redirect, reads at most a bounded
// part of the answer, and stops at its deadline. Its failures carry a reason
// safe to record where the tenant reads it.
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { withDeadline } from '../deadline.ts';
import { tracing } from '../observability/tracing.ts';
import {
  ForbiddenAddressError,
  forbiddenReason,
  hostOf,
  isPublicAddress,
  publicLookup,
  type Resolve,
  systemResolve,
} from './addresses.ts';
import { mergeHeaders } from './headers.ts';

/** Where requests may go (the deployment's WEBHOOK_ALLOW_* settings). */
export interface OutboundPolicy {
  /** `http:` webhook endpoints allowed besides `https:` (WEBHOOK_ALLOW_HTTP). */
  allowHttp: boolean;
  /** Addresses inside private networks allowed (WEBHOOK_ALLOW_PRIVATE). */
  allowPrivate: boolean;
  /** How host names are resolved; the system resolver unless a test stands in for DNS. */
  resolve?: Resolve;
}

export interface OutboundRequest {
  method: string;
  url: string;
  /** The tenant's own headers: those the gateway sets below win, in any case. */
  headers?: Record<string, string>;
  /** The gateway's headers (signature, content type). */
  ownHeaders?: Record<string, string>;
  body?: string;
}

export interface OutboundOptions {
  policy: OutboundPolicy;
  timeoutMs: number;
  /** Aborts the request (the run or the instance stops). */
  signal: AbortSignal;
  /** Bytes of the answer read at most; the rest is not waited for. */
  maxResponseBytes: number;
}

export interface OutboundAnswer {
  status: number;
  /** The answer's first bytes, up to the bound. */
  body: Buffer;
  /** Whether `body` is the whole answer (false: it went past the bound). */
  complete: boolean;
}

/** A request that got no answer: refused here, timed out or failed on the network. */
export class OutboundRequestError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OutboundRequestError';
  }
}

function exchange(url: URL, request: OutboundRequest, options: OutboundOptions, signal: AbortSignal) {
  const transport = url.protocol === 'https:' ? https : http;
  const body = request.body ?? '';
  const headers = mergeHeaders(request.headers ?? {}, {
    ...request.ownHeaders,
    ...(request.body === undefined ? {} : { 'content-length': String(Buffer.byteLength(body)) }),
  });
  return new Promise<OutboundAnswer>((resolve, reject) => {
    const outgoing = transport.request(url, {
      method: request.method,
      // The trace goes on with the receiver's (W3C traceparent), when traces are on.
      headers: tracing().inject(headers),
      agent: false,
      lookup: options.policy.allowPrivate ? undefined : publicLookup(options.policy.resolve ?? systemResolve),
      signal,
    });
    outgoing.on('error', reject);
    outgoing.on('response', (response) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const done = (complete: boolean) =>
        resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks), complete });
      response.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        size += chunk.length;
        if (size > options.maxResponseBytes) {
          // Enough: the status is known, the rest is not read.
          done(false);
          response.destroy();
        }
      });
      response.on('end', () => done(true));
      response.on('error', reject);
    });
    outgoing.end(request.body);
  });
}

function describe(error: unknown, url: URL, timeoutMs: number): string {
  if (error instanceof ForbiddenAddressError) return error.message;
  const { name, code, message, cause } = error as { name?: string; code?: string; message?: string; cause?: Error };
  if (name === 'TimeoutError' || (name === 'AbortError' && cause?.name === 'TimeoutError'))
    return `no answer within ${timeoutMs} ms`;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `${url.hostname} does not resolve`;
  return `${url.origin} failed: ${code ?? message ?? String(error)}`;
}

/**
 * Sends one request and reads its answer up to the bound. Throws
 * OutboundRequestError when no answer came (its message says why), and the signal's
 * reason when the signal aborts.
 */
export async function sendOutbound(request: OutboundRequest, options: OutboundOptions): Promise<OutboundAnswer> {
  let url: URL;
  try {
    url = new URL(request.url);
  } catch {
    throw new OutboundRequestError('refused: not a URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new OutboundRequestError(`refused: ${url.protocol} URLs are not allowed`);
  if (url.username || url.password) throw new OutboundRequestError('refused: a URL with a user name or password');
  // An IP literal is connected to without a lookup: checked here.
  const host = hostOf(url);
  if (!options.policy.allowPrivate && isIP(host) && !isPublicAddress(host))
    throw new OutboundRequestError(forbiddenReason(url.hostname));
  try {
    return await withDeadline(options.signal, options.timeoutMs, (signal) => exchange(url, request, options, signal));
  } catch (error) {
    options.signal.throwIfAborted();
    throw new OutboundRequestError(describe(error, url, options.timeoutMs));
  }
}
