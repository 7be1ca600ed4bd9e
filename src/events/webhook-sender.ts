// One webhook request: a POST of the event's JSON with its Standard Webhooks
// headers, within a time limit, never following a redirect, reading at most
// 64 KiB of the answer, and connecting only to public addresses (checked on
// the addresses the socket uses: a name that rebinds to a private address
// after the endpoint was created is refused here).

import http from 'node:http';
import https from 'node:https';
import { withDeadline } from '../deadline.ts';
import { checkLiteralAddress, ForbiddenAddress, publicLookup, type WebhookUrlPolicy } from '../domain/webhook-urls.ts';
import { tracing } from '../observability/tracing.ts';

/** Bytes of an answer read at most; the rest is not waited for. */
const MAX_RESPONSE_BYTES = 64 * 1024;
/** Characters of a refusing answer's body kept in the delivery's `last_error`. */
const ERROR_BODY_CHARACTERS = 200;

export interface SendResult {
  ok: boolean;
  /** The answer's status; null when none came (timeout, network error, refused address). */
  status: number | null;
  /** Why it failed; null when it succeeded. */
  error: string | null;
  latencyMs: number;
}

export interface SendOptions extends WebhookUrlPolicy {
  timeoutMs: number;
  /** Aborts the request (the instance is stopping). */
  signal: AbortSignal;
}

/** The answer's status and its first bytes, up to the limit. */
function post(url: URL, body: string, headers: Record<string, string>, options: SendOptions, signal: AbortSignal) {
  const transport = url.protocol === 'https:' ? https : http;
  return new Promise<{ status: number; text: string }>((resolve, reject) => {
    const request = transport.request(url, {
      method: 'POST',
      // The delivery's trace goes on with the receiver's (W3C traceparent), when traces are on.
      headers: tracing().inject({
        ...headers,
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(body)),
      }),
      agent: false,
      lookup: options.allowPrivate ? undefined : publicLookup,
      signal,
    });
    request.on('error', reject);
    request.on('response', (response) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const done = () => resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') });
      response.on('data', (chunk: Buffer) => {
        size += chunk.length;
        chunks.push(chunk);
        if (size >= MAX_RESPONSE_BYTES) {
          // Enough: the status is known, the rest is not read (what the socket says after is not heard).
          done();
          response.destroy();
        }
      });
      response.on('end', done);
      response.on('error', reject);
    });
    request.end(body);
  });
}

function describe(error: unknown, url: URL, timeoutMs: number): string {
  if (error instanceof ForbiddenAddress) return `refused: ${error.message}`;
  const { name, code, message } = error as { name?: string; code?: string; message?: string };
  if (
    name === 'TimeoutError' ||
    (name === 'AbortError' && (error as { cause?: { name?: string } }).cause?.name === 'TimeoutError')
  ) {
    return `no answer within ${timeoutMs} ms`;
  }
  return `POST ${url.origin} failed: ${code ?? message ?? String(error)}`;
}

/** Sends one delivery; never throws for the endpoint's failures (only when `signal` aborts). */
export async function sendWebhook(
  target: string,
  body: string,
  headers: Record<string, string>,
  options: SendOptions,
): Promise<SendResult> {
  const started = performance.now();
  const finish = (status: number | null, error: string | null): SendResult => ({
    ok: error === null,
    status,
    error,
    latencyMs: Math.round(performance.now() - started),
  });
  const url = new URL(target);
  if (url.protocol !== 'https:' && !(options.allowHttp && url.protocol === 'http:'))
    return finish(null, `refused: ${url.protocol} URLs are not allowed`);
  try {
    if (!options.allowPrivate) checkLiteralAddress(url);
    const { status, text } = await withDeadline(options.signal, options.timeoutMs, (signal) =>
      post(url, body, headers, options, signal),
    );
    if (status >= 200 && status < 300) return finish(status, null);
    const redirect = status >= 300 && status < 400 ? ' (redirects are not followed)' : '';
    const excerpt = text.slice(0, ERROR_BODY_CHARACTERS).trim();
    return finish(status, `answered ${status}${redirect}${excerpt ? `: ${excerpt}` : ''}`);
  } catch (error) {
    options.signal.throwIfAborted();
    return finish(null, describe(error, url, options.timeoutMs));
  }
}
