// GraphQL streams (subscriptions, live queries) over graphql-ws, for tests
// that follow what an instance pushes.
import { type Client, createClient } from 'graphql-ws';
import WebSocket from 'ws';

/** A client of the server at `url` (its HTTP URL), as the organization of `apiKey`. */
export const wsClient = (url: string, apiKey: string) =>
  createClient({
    url: `${url.replace('http', 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: { 'x-api-key': apiKey },
    retryAttempts: 0,
  });

export interface Stream<T> {
  /** Each result's data, in order, with when it arrived (Date.now()). */
  results: { at: number; data: T }[];
  errors: unknown[];
  stop(): void;
  /** Resolves once `done()` holds (checked on each message), or throws after `timeoutMs` with what arrived. */
  until(done: () => boolean, timeoutMs?: number): Promise<void>;
}

/** Sends one operation and collects what the server pushes for it. */
export function stream<T>(client: Client, query: string, variables: Record<string, unknown> = {}): Stream<T> {
  const results: { at: number; data: T }[] = [];
  const errors: unknown[] = [];
  const waiters: (() => void)[] = [];
  const wake = () => {
    for (const resolve of waiters.splice(0)) resolve();
  };
  const stop = client.subscribe<T>(
    { query, variables },
    {
      next: (message) => {
        if (message.errors) errors.push(...message.errors);
        if (message.data) results.push({ at: Date.now(), data: message.data as T });
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
      if (Date.now() > deadline) {
        throw new Error(`timed out; results: ${JSON.stringify(results)} errors: ${JSON.stringify(errors)}`);
      }
      // A message wakes it; the timer only bounds the wait to notice the deadline.
      await new Promise<void>((resolve) => {
        waiters.push(resolve);
        setTimeout(resolve, 50);
      });
    }
  };
  return { results, errors, stop, until };
}
