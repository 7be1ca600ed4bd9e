// graphql-ws writes each result as a `next` message it serializes itself, once
// per subscriber: 1,000 dashboards of one live query were 1,000 serializations
// of the same result per change (BENCHMARKS.md (n)). A result serialized once
// for all (src/events/serialized-results.ts) is written instead as the bytes
// it was serialized to: graphql-ws is handed a payload that serializes to a
// token of this connection, and the connection's `send` writes the message
// with the result's bytes in the token's place (not copied, not serialized).
// Any other result is written as graphql-ws writes it.
import { randomBytes } from 'node:crypto';
import type { WebSocket } from '@fastify/websocket';
import type { ExecutionResult } from 'graphql';
import { serializedBytes } from '../events/serialized-results.ts';

/** A token no result's text holds by chance: this process's own prefix, then a count. */
const TOKEN_PREFIX = `serialized-${randomBytes(8).toString('hex')}-`;
let tokens = 0;

type Send = (data: unknown, ...rest: unknown[]) => void;

/**
 * Has `socket` write serialized results as their bytes; returns what to give
 * graphql-ws as a result's payload (its `onNext`): undefined for a result not
 * serialized once for all (graphql-ws serializes it).
 */
export function writeSerializedResults(socket: WebSocket): (result: ExecutionResult) => object | undefined {
  /** The bytes of each token handed out, until its message is written (at once: graphql-ws sends it next). */
  const pending = new Map<string, Buffer>();
  const send = socket.send.bind(socket) as Send;
  (socket as { send: Send }).send = (data, ...rest) => {
    if (typeof data === 'string' && pending.size > 0) {
      for (const [token, bytes] of pending) {
        // `{"id":"…","type":"next","payload":"<token>"}`: the token is the payload, last.
        const tail = `"${token}"}`;
        if (!data.endsWith(tail)) continue;
        pending.delete(token);
        // One text message (as graphql-ws's are) in three frames, the result's bytes the middle one: not copied.
        // Sent one after the other at once, nothing comes between them; graphql-ws's callback with the last.
        send(data.slice(0, -tail.length), { fin: false });
        send(bytes, { binary: false, fin: false });
        return send('}', { fin: true }, ...rest.filter((argument) => typeof argument === 'function'));
      }
    }
    return send(data, ...rest);
  };
  return (result) => {
    const bytes = serializedBytes(result);
    if (!bytes) return undefined;
    const token = TOKEN_PREFIX + tokens++;
    pending.set(token, bytes);
    return { toJSON: () => token };
  };
}
