// PostgreSQL writes connection subtrees (docs/sql-rendering.md): a query over
// /graphql whose connections PostgreSQL can write (sql-subtrees/plan.ts) runs
// with those connections replaced by their parents' ids, then each is written
// as JSON text in one statement for all its parents and spliced into the
// answer (sql-subtrees/splice.ts). What it leaves to the resolvers:
// - operations answered otherwise than as one JSON text over HTTP: the REST
//   layer's (run-operation.ts reads the result's objects), graphql-ws, server-sent
//   events and multipart answers;
// - requests the shared response cache keeps or answers (it walks and stores
//   the result's objects: use-response-cache.ts);
// - mutations, subscriptions and live queries (`@live`, any operation directive).
import type { Plugin } from 'graphql-yoga';
import type { ResponseCacheStore } from '../events/response-cache-store.ts';
import type { GraphQLContext } from '../schema/context.ts';
import { planQuery } from './sql-subtrees/plan.ts';
import { spliceConnections } from './sql-subtrees/splice.ts';
import { cachedBy } from './use-response-cache.ts';

const STREAMED = /text\/event-stream|multipart\/mixed/i;

export function useSqlSubtrees(cache: ResponseCacheStore): Plugin {
  return {
    onExecute({ args, executeFn, setExecuteFn }) {
      const context = args.contextValue as unknown as GraphQLContext & { request?: Request };
      const { request } = context;
      if (!request || STREAMED.test(request.headers.get('accept') ?? '') || cachedBy(cache, request, context)) return;
      const plan = planQuery(
        args.schema,
        args.document,
        args.operationName,
        args.variableValues,
        context.viewer.organizationId,
      );
      if (!plan) return;
      setExecuteFn(async (execution) => {
        const result = await executeFn({ ...execution, document: plan.document });
        // The context the executor ran with: a read replica's client, when the query was sent to one (use-read-replicas.ts).
        const { sql } = execution.contextValue as GraphQLContext;
        return spliceConnections(result as never, plan, sql, context.viewer.organizationId);
      });
    },
  };
}
