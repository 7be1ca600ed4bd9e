// The worker's client of the gateway's REST API (SPEC.md's routes under
// /org/{org_id}): it reads the agent and reports the call. Requests that may
// succeed later (no answer, a 5xx, a 429, an Idempotency-Key still held by a
// first request) are retried with a growing delay; a report carries the same
// Idempotency-Key on every try, so a report retried after a lost answer, or
// sent again by a worker restarted mid-call, is not counted twice.
import type { GatewayAgent } from './agent.ts';
import type { AgentEvaluation } from './analysis.ts';

export interface GatewaySettings {
  url: string;
  apiKey: string;
}

export interface RetryPolicy {
  /** Tries in all, the first included. */
  attempts: number;
  /** The delay after the first failure, doubled after each next one up to `maxDelayMs`. */
  firstDelayMs: number;
  maxDelayMs: number;
  /** Waits `ms` (injectable: tests pass time without sleeping). */
  sleep(ms: number): Promise<void>;
}

export const defaultRetryPolicy: RetryPolicy = {
  attempts: 8,
  firstDelayMs: 500,
  maxDelayMs: 30_000,
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

/** The gateway refused the request for good (a 4xx other than 408 and 429), or it kept failing. */
export class GatewayRequestError extends Error {
  constructor(
    message: string,
    /** The gateway's status; null when it never answered. */
    readonly status: number | null,
    /** SPEC.md's error body's `message`, when it answered one. */
    readonly gatewayMessage: string | null,
  ) {
    super(message);
  }
}

/** A 409 the gateway answers while another request with the same Idempotency-Key is running. */
const idempotencyRace = /has not completed; retry later|in contention; retry/;

const isRetryable = (status: number, message: string | null) =>
  status >= 500 || status === 408 || status === 429 || (status === 409 && idempotencyRace.test(message ?? ''));

export class GatewayClient {
  constructor(
    private readonly settings: GatewaySettings,
    private readonly organizationId: string,
    private readonly retry: RetryPolicy = defaultRetryPolicy,
  ) {}

  /** E2: the agent's configuration. */
  agent(agentId: string): Promise<GatewayAgent> {
    return this.request('GET', `/agents/${encodeURIComponent(agentId)}`) as Promise<GatewayAgent>;
  }

  /** E19: a page of the agent's evaluations (`size` at most 100). */
  evaluations(
    agentId: string,
    page: number,
    size: number,
  ): Promise<{ data: AgentEvaluation[]; meta: { total: number } }> {
    const query = new URLSearchParams({ agent_id: agentId, page: String(page), size: String(size) });
    return this.request('GET', `/agents/evals?${query}`) as Promise<{
      data: AgentEvaluation[];
      meta: { total: number };
    }>;
  }

  /**
   * POSTs `body` under the organization, with `idempotencyKey` on every try;
   * the gateway's answer. `final`: statuses that are not tried again.
   */
  post(path: string, body: unknown, idempotencyKey: string, final: number[] = []): Promise<unknown> {
    return this.request('POST', path, body, idempotencyKey, final);
  }

  private async request(
    method: string,
    path: string,
    body?: unknown,
    idempotencyKey?: string,
    final: number[] = [],
  ): Promise<unknown> {
    const url = `${this.settings.url}/org/${encodeURIComponent(this.organizationId)}${path}`;
    const headers: Record<string, string> = { 'x-api-key': this.settings.apiKey };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (idempotencyKey !== undefined) headers['idempotency-key'] = idempotencyKey;
    let delay = this.retry.firstDelayMs;
    let failure = '';
    for (let attempt = 1; attempt <= this.retry.attempts; attempt++) {
      if (attempt > 1) {
        await this.retry.sleep(delay);
        delay = Math.min(delay * 2, this.retry.maxDelayMs);
      }
      let response: Response;
      try {
        response = await fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
      } catch (error) {
        failure = `${method} ${path}: ${(error as Error).message}`;
        continue;
      }
      const text = await response.text();
      const answer = parseJson(text);
      if (response.ok) return answer;
      const message = errorMessageOf(answer);
      failure = `${method} ${path} answered ${response.status}${message ? `: ${message}` : ''}`;
      if (final.includes(response.status) || !isRetryable(response.status, message))
        throw new GatewayRequestError(failure, response.status, message);
    }
    throw new GatewayRequestError(`${failure} (gave up after ${this.retry.attempts} tries)`, null, null);
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** SPEC.md's error body: `{status: false, message, error, data: null}`. */
function errorMessageOf(answer: unknown): string | null {
  const message = (answer as { message?: unknown } | null)?.message;
  return typeof message === 'string' ? message : null;
}
