// One webhook delivery: a POST of the event's JSON with its Standard Webhooks
// headers, through the guarded client (src/outbound/request.ts): public
// addresses only, no redirect followed, at most 64 KiB of the answer read,
// within a time limit. The endpoint's scheme was checked when it was saved;
// it is checked again here, the settings may have changed since.
import { type OutboundPolicy, OutboundRequestError, sendOutbound } from '../outbound/request.ts';

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

export interface SendOptions extends OutboundPolicy {
  timeoutMs: number;
  /** Aborts the request (the instance is stopping). */
  signal: AbortSignal;
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
  if (!target.startsWith('https:') && !(options.allowHttp && target.startsWith('http:')))
    return finish(null, `refused: ${new URL(target).protocol} URLs are not allowed`);
  try {
    const { status, body: answer } = await sendOutbound(
      { method: 'POST', url: target, ownHeaders: { ...headers, 'content-type': 'application/json' }, body },
      { policy: options, timeoutMs: options.timeoutMs, signal: options.signal, maxResponseBytes: MAX_RESPONSE_BYTES },
    );
    if (status >= 200 && status < 300) return finish(status, null);
    const redirect = status >= 300 && status < 400 ? ' (redirects are not followed)' : '';
    const excerpt = answer.toString('utf8').slice(0, ERROR_BODY_CHARACTERS).trim();
    return finish(status, `answered ${status}${redirect}${excerpt ? `: ${excerpt}` : ''}`);
  } catch (error) {
    if (!(error instanceof OutboundRequestError)) throw error;
    return finish(null, error.message);
  }
}
