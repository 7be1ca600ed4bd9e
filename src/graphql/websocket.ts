// GraphQL over WebSocket (the graphql-ws protocol) at /graphql, for
// subscriptions. The key travels in the connection's init payload
// (`connectionParams["x-api-key"]`); a connection without a valid one is
// closed (4403). Operations run through yoga's envelop pipeline, with the
// same context and bounds as HTTP requests (src/graphql/use-operation-bounds.ts
// runs as each executes or subscribes).
import type { WebsocketHandler } from '@fastify/websocket';
import { type ExecutionArgs, GraphQLError } from 'graphql';
import { makeHandler } from 'graphql-ws/use/@fastify/websocket';
import { authenticate, type Viewer } from '../auth/authenticate.ts';
import type { Services } from '../services.ts';
import { operationTextOf, type PersistedOperations } from './protections.ts';
import { refuseUnstorableOperation } from './use-storable-input.ts';
import type { GraphQLServer } from './yoga.ts';

type Enveloped = ReturnType<GraphQLServer['getEnveloped']>;

export function graphqlWebSocketHandler(
  graphql: GraphQLServer,
  services: Services,
  operations: PersistedOperations,
): WebsocketHandler {
  return makeHandler<Record<string, unknown>, { viewer: Viewer }>({
    onConnect: async (context) => {
      const key = context.connectionParams?.['x-api-key'];
      const viewer = await authenticate(services.db, typeof key === 'string' ? key : null, services.apiKeys);
      if (!viewer) return false;
      context.extra.viewer = viewer;
      return true;
    },
    execute: (args) => (args.rootValue as Enveloped).execute(args),
    subscribe: (args) => (args.rootValue as Enveloped).subscribe(args),
    onSubscribe: async (context, _id, params) => {
      // The allow-list holds here as over HTTP (yoga's persisted-operations plugin does not see these).
      const text = operationTextOf(operations, params);
      if (typeof text !== 'string') return [new GraphQLError(text.message, { extensions: text.extensions })];
      // As over HTTP: nothing no database could store, nothing nested past any request's depth.
      try {
        refuseUnstorableOperation(text, params.variables ?? undefined);
      } catch (error) {
        return [error as GraphQLError];
      }
      const enveloped = graphql.getEnveloped({ viewer: context.extra.viewer, params });
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
      return args;
    },
  });
}
