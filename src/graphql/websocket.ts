// GraphQL over WebSocket (the graphql-ws protocol) at /graphql, for
// subscriptions. The key travels in the connection's init payload
// (`connectionParams["x-api-key"]`); a connection without a valid one is
// closed (4403). Operations run through yoga's envelop pipeline, with the
// same context and bounds as HTTP requests (src/graphql/use-operation-bounds.ts
// runs as each executes or subscribes).
//
// The limits of HTTP hold here too. Every operation sent (a query, a mutation
// or a subscription) counts against the organization's rate limit, on the
// same counters as its HTTP requests (src/requests/rate-limits.ts): past it the
// operation is answered with the protocol's error message (RATE_LIMITED, and
// when to retry), nothing run. A connection holds at most
// SUBSCRIPTIONS_PER_CONNECTION subscriptions, and each takes one of its
// organization's slots (src/graphql/subscription-slots.ts), given back when it
// completes or the connection closes; past either, TOO_MANY_SUBSCRIPTIONS.
//
// The key is verified again every API_KEY_CACHE_TTL_MS while the connection is
// open (src/auth/key-lapse.ts): once it is revoked, expired, or holds other
// scopes, the connection is closed (4403), so it receives nothing more after
// the TTL, as an HTTP request with it would be refused.
import type { WebsocketHandler } from '@fastify/websocket';
import { type ExecutionArgs, type ExecutionResult, GraphQLError, getOperationAST } from 'graphql';
import { makeHandler } from 'graphql-ws/use/@fastify/websocket';
import { authenticate, type Viewer } from '../auth/authenticate.ts';
import { keyLapse } from '../auth/key-lapse.ts';
import { type RateLimited, type RateLimiter, rateLimitedMessage } from '../requests/rate-limits.ts';
import type { Services } from '../services.ts';
import { operationTextOf, type PersistedOperations } from './protections.ts';
import { writeSerializedResults } from './serialized-next.ts';
import { type ReleaseSlot, type SubscriptionSlots, tooManySubscriptions } from './subscription-slots.ts';
import { isLiveQuery } from './use-live-queries.ts';
import { refuseUnstorableOperation } from './use-storable-input.ts';
import type { GraphQLServer } from './yoga.ts';

type Enveloped = ReturnType<GraphQLServer['getEnveloped']>;

export interface WebSocketLimits {
  rateLimiter: RateLimiter;
  /** The instance's subscription slots, shared with SSE. */
  slots: SubscriptionSlots;
  /** Subscriptions one connection may hold at once. */
  perConnection: number;
}

// A type, not an interface: graphql-ws wants an index signature of its `extra`.
type Connection = {
  viewer: Viewer;
  /** Ends the watch over the key (src/auth/key-lapse.ts). */
  unwatch: AbortController;
  /** The connection's subscriptions by operation id, each with its organization slot. */
  subscriptions: Map<string, ReleaseSlot>;
  /** A result's payload when it was serialized once for all (src/graphql/serialized-next.ts). */
  serializedPayload: (result: ExecutionResult) => object | undefined;
};

const rateLimited = ({ retryAfterSeconds }: RateLimited) =>
  new GraphQLError(rateLimitedMessage(retryAfterSeconds), {
    extensions: { code: 'RATE_LIMITED', status: 429, retryAfterSeconds },
  });

function release(connection: Partial<Connection>, id: string) {
  connection.subscriptions?.get(id)?.();
  connection.subscriptions?.delete(id);
}

/** The close code of a connection whose key is not, or no longer, valid (graphql-ws's own Forbidden). */
const FORBIDDEN = 4403;

export function graphqlWebSocketHandler(
  graphql: GraphQLServer,
  services: Services,
  operations: PersistedOperations,
  { rateLimiter, slots, perConnection }: WebSocketLimits,
): WebsocketHandler {
  /** Takes a slot for the subscription `id`, or says why not. */
  function holdSubscription(connection: Connection, id: string): GraphQLError | null {
    if (connection.subscriptions.size >= perConnection) {
      return tooManySubscriptions(
        `this connection holds ${connection.subscriptions.size} subscriptions, the most it may (SUBSCRIPTIONS_PER_CONNECTION): complete one first`,
      );
    }
    const slot = slots.take(connection.viewer.organizationId);
    if (slot instanceof GraphQLError) return slot;
    connection.subscriptions.set(id, slot);
    return null;
  }

  return makeHandler<Record<string, unknown>, Connection>({
    onConnect: async (context) => {
      const key = context.connectionParams?.['x-api-key'];
      if (typeof key !== 'string') return false;
      const viewer = await authenticate(services.db, key, services.apiKeys);
      // Closed while the key was read: nothing to watch.
      if (!viewer || context.extra.socket.readyState !== context.extra.socket.OPEN) return false;
      const { socket } = context.extra;
      const connection: Connection = {
        viewer,
        unwatch: new AbortController(),
        subscriptions: new Map(),
        serializedPayload: writeSerializedResults(socket),
      };
      Object.assign(context.extra, connection);
      keyLapse(services.db, services.apiKeys, key, viewer, connection.unwatch.signal).addEventListener('abort', () =>
        socket.close(FORBIDDEN, 'Forbidden: the API key was revoked, expired or changed'),
      );
      return true;
    },
    execute: (args) => (args.rootValue as Enveloped).execute(args),
    subscribe: (args) => (args.rootValue as Enveloped).subscribe(args),
    onSubscribe: async (context, id, params) => {
      const connection = context.extra as typeof context.extra & Connection;
      const limited = await rateLimiter.countOperation(connection.viewer.organizationId);
      if (limited) return [rateLimited(limited)];
      // The allow-list holds here as over HTTP (yoga's persisted-operations plugin does not see these).
      const text = operationTextOf(operations, params);
      if (typeof text !== 'string') return [new GraphQLError(text.message, { extensions: text.extensions })];
      // As over HTTP: nothing no database could store, nothing nested past any request's depth.
      try {
        refuseUnstorableOperation(text, params.variables ?? undefined);
      } catch (error) {
        return [error as GraphQLError];
      }
      // The upgrade request's origin: a mutation sent over the socket is recorded as coming from it.
      const { ip, headers } = context.extra.request;
      const audit = { sourceIp: ip, userAgent: headers['user-agent'] };
      const enveloped = graphql.getEnveloped({ viewer: connection.viewer, params, audit });
      const document = enveloped.parse(text);
      const errors = enveloped.validate(enveloped.schema, document);
      if (errors.length > 0) return errors;
      const args: ExecutionArgs = {
        schema: enveloped.schema,
        document,
        operationName: params.operationName,
        variableValues: params.variables,
        contextValue: await enveloped.contextFactory(),
        rootValue: enveloped,
      };
      // Last: from here graphql-ws runs it, and tells onComplete when it ends.
      // A live query (`query @live`) streams as a subscription does, and holds a slot as one.
      if (
        getOperationAST(document, params.operationName)?.operation === 'subscription' ||
        isLiveQuery(document, params.operationName)
      ) {
        const refusal = holdSubscription(connection, id);
        if (refusal) return [refusal];
      }
      return args;
    },
    // A live query's result shared by its identical subscribers is written as the bytes it was serialized to, once.
    onNext: (context, _id, _payload, _args, result) =>
      (context.extra as typeof context.extra & Partial<Connection>).serializedPayload?.(result as ExecutionResult),
    // Whether the client completed it, its stream ended or failed.
    onComplete: (context, id) => release(context.extra, id),
    // What did not complete before the connection closed (a failure while subscribing).
    onClose: (context) => {
      context.extra.unwatch?.abort();
      for (const id of context.extra.subscriptions?.keys() ?? []) release(context.extra, id);
    },
  });
}
