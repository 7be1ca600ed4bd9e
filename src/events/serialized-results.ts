// Results serialized once for all who receive them. A live query's execution
// is shared by its identical subscribers (live-fanout.ts), which serializes
// each result once already (to tell it from the one before): its bytes are
// noted here, by the result object, and graphql-ws connections write them
// into each subscriber's `next` message (src/graphql/websocket.ts) instead of
// serializing the result again per subscriber.
import type { ExecutionResult } from 'graphql';

const serialized = new WeakMap<ExecutionResult, Buffer>();

/** Notes `result`'s JSON text (without errors: graphql-ws writes errors its own way). */
export function noteSerialized(result: ExecutionResult, text: string): void {
  if (!result.errors) serialized.set(result, Buffer.from(text));
}

/** The bytes of `result` as JSON, when it was serialized once for all. */
export const serializedBytes = (result: ExecutionResult): Buffer | undefined => serialized.get(result);
