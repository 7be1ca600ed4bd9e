// A graphql-ws client for tests, and what one operation over it received:
// subscriptions and live queries alike.
import { type Client, type ClientOptions, createClient } from 'graphql-ws';
import WebSocket from 'ws';

/** A client of the server at `url` (http://…) authenticated by `apiKey`, never reconnecting by itself. */
export const wsClient = (url: string, apiKey: string, extra: Partial<ClientOptions> = {}): Client =>
  createClient({
    url: `${url.replace('http', 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: { 'x-api-key': apiKey },
    retryAttempts: 0,
    ...extra,
  });

export interface Followed<T> {
  /** Each result's data as `pick` chose it, in order. */
  events: T[];
  /** The same, each with when it arrived (Date.now()). */
  results: { at: number; data: T }[];
  errors: unknown[];
  stop: () => void;
  /** Resolves once `done()` holds, re-checked at each message; rejects after `timeoutMs` with what arrived. */
  until: (done: () => boolean, timeoutMs?: number) => Promise<void>;
}

/** Runs `query` over `client` and collects what it receives (each result's data through `pick`). */
export function follow<D, T = D>(
  client: Client,
  query: string,
  variables: Record<string, unknown> = {},
  pick: (data: D) => T = (data) => data as unknown as T,
): Followed<T> {
  const events: T[] = [];
  const results: { at: number; data: T }[] = [];
  const errors: unknown[] = [];
  const waiters: (() => void)[] = [];
  const wake = () => {
    for (const resolve of waiters.splice(0)) resolve();
  };
  const stop = client.subscribe<D>(
    { query, variables },
    {
      next: (message) => {
        if (message.errors) errors.push(...message.errors);
        if (message.data) {
          const data = pick(message.data as D);
          events.push(data);
          results.push({ at: Date.now(), data });
        }
        wake();
      },
      error: (error) => {
        errors.push(error);
        wake();
      },
      complete: wake,
    },
  );
  const until = async (done: () => boolean, timeoutMs = 10_000) => {
    const deadline = Date.now() + timeoutMs;
    while (!done()) {
      if (Date.now() > deadline)
        throw new Error(`timed out; received: ${JSON.stringify(events)} errors: ${JSON.stringify(errors)}`);
      await new Promise<void>((resolve) => {
        waiters.push(resolve);
        setTimeout(resolve, 50);
      });
    }
  };
  return { events, results, errors, stop, until };
}
