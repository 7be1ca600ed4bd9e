// The agent's pre-call webhook, sent before each attempt: the receiver may
// skip the call (`"skip": true`) or hand the dialer variables for it.
import { withDeadline } from '../deadline.ts';
import { precallWebhook } from '../domain/agent-config.ts';
import { tracing } from '../observability/tracing.ts';
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
  if (typeof template === 'string') {
    const whole = /^\{\{\s*([\w.]+)\s*\}\}$/.exec(template);
    if (whole && whole[1]! in variables) return variables[whole[1]!];
    return template.replace(/\{\{\s*([\w.]+)\s*\}\}/g, (text, name: string) =>
      name in variables ? String(variables[name]) : text,
    );
  }
  if (Array.isArray(template)) return template.map((item) => renderTemplate(item, variables));
  if (template && typeof template === 'object') {
    return Object.fromEntries(Object.entries(template).map(([key, value]) => [key, renderTemplate(value, variables)]));
  }
  return template;
}

/**
 * Sends the webhook and reads its answer: a 2xx with `"skip": true` skips the
 * call, its `variables` object goes to the dialer; a timeout, a network
 * failure or another status is a failed attempt (reason `precall_webhook`).
 */
export async function sendPrecallWebhook(
  config: unknown,
  variables: Record<string, string | number>,
  sign: Signer,
  signal: AbortSignal,
): Promise<PrecallAnswer> {
  const parsed = precallWebhook.safeParse(config);
  if (!parsed.success) return { kind: 'failed', reason: 'the agent’s precall_webhook is invalid' };
  const { method, url, headers, body_template: template, timeout_seconds: timeout } = parsed.data;
  const body = method === 'GET' ? '' : JSON.stringify(renderTemplate(template ?? {}, variables));
  const signed = { 'content-type': 'application/json', ...headers, ...(await sign(body)) };
  const ms = (timeout ?? DEFAULT_TIMEOUT_SECONDS) * 1000;
  let reply: { status: number; ok: boolean; answer: { skip?: unknown; variables?: unknown } | null };
  try {
    // The answer's body is read within the same deadline as the request.
    reply = await withDeadline(signal, ms, (bounded) =>
      tracing().inSpan(
        'run.precall_webhook',
        { 'http.request.method': method, 'server.address': new URL(url).host },
        async () => {
          const response = await fetch(url, {
            method,
            // The attempt's trace goes on with the receiver's (W3C traceparent), when traces are on.
            headers: tracing().inject(signed),
            body: method === 'GET' ? undefined : body,
            signal: bounded,
          });
          if (!response.ok) {
            await response.body?.cancel();
            return { status: response.status, ok: false, answer: null };
          }
          return { status: response.status, ok: true, answer: (await response.json().catch(() => null)) as never };
        },
      ),
    );
  } catch (error) {
    signal.throwIfAborted();
    return { kind: 'failed', reason: `${method} ${url} failed: ${(error as Error).message}` };
  }
  if (!reply.ok) return { kind: 'failed', reason: `${method} ${url} answered ${reply.status}` };
  const { answer } = reply;
  if (answer?.skip === true) return { kind: 'skip' };
  const given = answer?.variables;
  return {
    kind: 'call',
    variables: given && typeof given === 'object' && !Array.isArray(given) ? (given as Record<string, unknown>) : null,
  };
}
