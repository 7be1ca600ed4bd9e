// Live queries: `query @live { … }` answers at once, then again each time
// something it read changes (over graphql-ws or SSE, as a subscription is),
// at most once per LIVE_QUERY_THROTTLE_MS. The store
// (@n1ru4l/in-memory-live-query-store, src/events/live-invalidations.ts)
// notes which objects each execution read (`Batch:bat_…` for every object
// whose `id` is selected) and re-executes the query when one is invalidated:
// by the change events that drive `batchProgress`, and by every mutation of its
// organization (`Organization:org_…`, which each of its live queries carries;
// use-write-invalidations.ts).
//
// A live query holds one of its organization's subscription slots as a
// subscription does (over SSE here, over graphql-ws in websocket.ts). It runs
// on graphql-js's executor (the store executes it on a copy of the schema that
// collects identifiers), never on graphql-jit's (compiled-execution.ts).
import { getLiveDirectiveNode } from '@n1ru4l/graphql-live-query';
import { type DocumentNode, type ExecutionArgs, execute, getOperationAST } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { type LiveInvalidations, organizationIdentifier } from '../events/live-invalidations.ts';
import type { GraphQLContext } from '../schema/context.ts';
import type { ServerContext } from './yoga.ts';

/** Whether the operation is a query marked @live (with `if:` false the store runs it once, as any query). */
export function isLiveQuery(document: DocumentNode, operationName?: string | null): boolean {
  const operation = getOperationAST(document, operationName);
  return operation?.operation === 'query' && getLiveDirectiveNode(operation) !== null;
}

/** What the store hands each execution as its context (it passes the resolvers the original). */
interface CollectingContext {
  addResourceIdentifier(values: string | string[]): void;
}

export function useLiveQueries(live: LiveInvalidations): Plugin<ServerContext & GraphQLContext> {
  return {
    onExecute({ args, setExecuteFn, setResultAndStopExecution }) {
      const { viewer } = args.contextValue;
      if (!isLiveQuery(args.document, args.operationName)) return;
      const refusal = args.contextValue.holdSubscription?.(viewer.organizationId);
      if (refusal) {
        setResultAndStopExecution({ errors: [refusal] });
        return;
      }
      const tagged = (execution: ExecutionArgs) => {
        // Every execution reads afresh: what the previous one cached in the request's loaders is stale now.
        for (const loader of Object.values(args.contextValue.loaders)) loader.clearAll();
        (execution.contextValue as CollectingContext).addResourceIdentifier(
          organizationIdentifier(viewer.organizationId),
        );
        return execute(execution);
      };
      setExecuteFn(live.store.makeExecute(tagged) as typeof execute);
    },
  };
}
