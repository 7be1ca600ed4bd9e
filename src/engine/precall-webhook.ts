// The agent's pre-call webhook, sent before each attempt: the receiver may
// skip the call (`"skip": true`) or hand the dialer variables for it.
import { fillPlaceholders, wholePlaceholderValue } from '../domain/placeholders.ts';
import { tracing } from '../observability/tracing.ts';
import { type OutboundAnswer, type OutboundPolicy, OutboundRequestError, sendOutbound } from '../outbound/request.ts';
import { precallWebhook } from '../records/agent-config.ts';
import type { ClaimedRun } from './run-store.ts';
import type { Signer } from './steps.ts';

export type PrecallAnswer =
  | { kind: 'call'; variables: Record<string, unknown> | null }
  | { kind: 'skip' }
  | { kind: 'failed'; reason: string };

const DEFAULT_TIMEOUT_SECONDS = 10;

/**
 * What `{{name}}` placeholders read: the prospect (its imported attributes as
 * `prospect.attributes.<key>`), the run, its batch and the agent, with SPEC.md's names.
 */
export function templateVariables(run: ClaimedRun, agentId: string, attempt: number): Record<string, string | number> {
  const { prospect } = run;
  const attributes = Object.entries(prospect.attributes).filter(
    (entry): entry is [string, string | number] => typeof entry[1] === 'string' || typeof entry[1] === 'number',
  );
  return {
    ...Object.fromEntries(attributes.map(([key, value]) => [`prospect.attributes.${key}`, value])),
    'prospect.id': prospect.id,
    'prospect.first_name': prospect.firstName,
    'prospect.last_name': prospect.lastName,
    'prospect.email': prospect.email,
    'prospect.phone': prospect.phone,
    'run.id': run.id,
    'run.attempt': attempt,
    'batch.id': run.batchId,
    'agent.id': agentId,
  };
}

/** Renders every string of the template; a string that is one placeholder keeps its value's type. */
function renderTemplate(template: unknown, variables: Record<string, string | number>): unknown {
  if (typeof template === 'string')
    return wholePlaceholderValue(template, variables) ?? fillPlaceholders(template, variables);
  if (Array.isArray(template)) return template.map((item) => renderTemplate(item, variables));
  if (template && typeof template === 'object') {
    return Object.fromEntries(Object.entries(template).map(([key, value]) => [key, renderTemplate(value, variables)]));
  }
  return template;
}

/** Bytes of an answer read at most: its `variables` go to the dialer, and into the attempt. */
const MAX_ANSWER_BYTES = 64 * 1024;

/**
 * Sends the webhook through the guarded client (src/outbound/request.ts) and
 * reads its answer: a 2xx with `"skip": true` skips the call, its `variables`
 * object goes to the dialer; a refused address, a timeout, a network failure,
 * a redirect, an answer over 64 KiB or another status is a failed attempt
 * (reason `precall_webhook`).
 */
export async function sendPrecallWebhook(
  config: unknown,
  variables: Record<string, string | number>,
  sign: Signer,
  policy: OutboundPolicy,
  signal: AbortSignal,
): Promise<PrecallAnswer> {
  const parsed = precallWebhook.safeParse(config);
  if (!parsed.success) return { kind: 'failed', reason: 'the agent’s precall_webhook is invalid' };
  const { method, url, headers, body_template: template, timeout_seconds: timeout } = parsed.data;
  const body = method === 'GET' ? '' : JSON.stringify(renderTemplate(template ?? {}, variables));
  const request = {
    method,
    url,
    headers,
    ownHeaders: { 'content-type': 'application/json', ...(await sign(body)) },
    body: method === 'GET' ? undefined : body,
  };
  const limits = {
    policy,
    timeoutMs: (timeout ?? DEFAULT_TIMEOUT_SECONDS) * 1000,
    signal,
    maxResponseBytes: MAX_ANSWER_BYTES,
  };
  let reply: OutboundAnswer;
  try {
    reply = await tracing().inSpan(
      'run.precall_webhook',
      { 'http.request.method': method, 'server.address': URL.canParse(url) ? new URL(url).host : '' },
      () => sendOutbound(request, limits),
    );
  } catch (error) {
    if (error instanceof OutboundRequestError)
      return { kind: 'failed', reason: `${method} ${url} failed: ${error.message}` };
    throw error;
  }
  if (reply.status < 200 || reply.status >= 300) {
    const redirect = reply.status >= 300 && reply.status < 400 ? ' (redirects are not followed)' : '';
    return { kind: 'failed', reason: `${method} ${url} answered ${reply.status}${redirect}` };
  }
  if (!reply.complete) return { kind: 'failed', reason: `${method} ${url} answered more than 64 KiB` };
  const answer = parseAnswer(reply.body);
  if (answer?.skip === true) return { kind: 'skip' };
  const given = answer?.variables;
  return {
    kind: 'call',
    variables: given && typeof given === 'object' && !Array.isArray(given) ? (given as Record<string, unknown>) : null,
  };
}

/** The answer's JSON object; null for an empty or non-JSON body (the call goes ahead without variables). */
function parseAnswer(body: Buffer): { skip?: unknown; variables?: unknown } | null {
  try {
    const value: unknown = JSON.parse(body.toString('utf8'));
    return value && typeof value === 'object' ? value : null;
  } catch {
    return null;
  }
}
