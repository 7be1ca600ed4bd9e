// An SSE subscription or live query ends once its key no longer holds
// (src/auth/key-lapse.ts): its last event is this refusal, then the stream
// completes (graphql-ws connections are closed with 4403 instead,
// src/graphql/websocket.ts).
import { type ExecutionResult, GraphQLError } from 'graphql';

const lapsedKey = () =>
  new GraphQLError('the API key was revoked, expired or changed: a valid API key is required in the X-API-Key header', {
    extensions: { code: 'UNAUTHENTICATED', status: 401 },
  });

/** `results` until `lapsed` aborts: then the refusal, and the end (the source is told to stop). */
export function untilKeyLapses(
  results: AsyncIterableIterator<ExecutionResult>,
  lapsed: AbortSignal,
): AsyncIterableIterator<ExecutionResult> {
  const refusal: IteratorYieldResult<ExecutionResult> = { value: { errors: [lapsedKey()] }, done: false };
  const lapse = new Promise<typeof refusal>((resolve) => {
    if (lapsed.aborted) resolve(refusal);
    else lapsed.addEventListener('abort', () => resolve(refusal), { once: true });
  });
  let ended: Promise<unknown> | undefined;
  const end = () => (ended ??= results.return?.() ?? Promise.resolve());
  return {
    async next() {
      if (ended) return { value: undefined, done: true };
      const step = await Promise.race([results.next(), lapse]);
      if (step === refusal) void end();
      return step;
    },
    async return() {
      await end();
      return { value: undefined, done: true };
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}
