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
//
// On a Redis Cluster a live query has its instance follow its organization's
// invalidations (LiveInvalidations.follow) from before its first execution
// until it ends. Throttled on the services' clock (src/events/live-throttle.ts).
import { getLiveDirectiveArgumentValues, getLiveDirectiveNode } from '@n1ru4l/graphql-live-query';
import {
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  execute,
  GraphQLError,
  getOperationAST,
  print,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { type LiveInvalidations, organizationIdentifier } from '../events/live-invalidations.ts';
import { throttled } from '../events/live-throttle.ts';
import type { GraphQLContext } from '../schema/context.ts';
import { untilKeyLapses } from './key-lapse-stream.ts';
import { responseCacheSession } from './use-response-cache.ts';
import type { ServerContext } from './yoga.ts';

/** The operation's @live directive when it is a query marked so (with `if:` false the store runs it once, as any query). */
function liveDirectiveOf(document: DocumentNode, operationName?: string | null) {
  const operation = getOperationAST(document, operationName);
  return operation?.operation === 'query' ? getLiveDirectiveNode(operation) : null;
}

export function isLiveQuery(document: DocumentNode, operationName?: string | null): boolean {
  return liveDirectiveOf(document, operationName) !== null;
}

type Results = ExecutionResult | AsyncIterableIterator<ExecutionResult>;

/** The live query's results, calling `release` once they end, however they end. */
function releasing(
  results: AsyncIterableIterator<ExecutionResult>,
  release: () => void,
): AsyncIterableIterator<ExecutionResult> {
  const ended = <T>(value: T) => {
    release();
    return value;
  };
  return {
    next: () =>
      results.next().then(
        (step) => (step.done ? ended(step) : step),
        (error) => ended(Promise.reject(error)),
      ),
    return: () => ended(results.return?.() ?? Promise.resolve({ value: undefined, done: true })),
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}

/** What the store hands each execution as its context (it passes the resolvers the original). */
interface CollectingContext {
  addResourceIdentifier(values: string | string[]): void;
}

export function useLiveQueries(live: LiveInvalidations): Plugin<ServerContext & GraphQLContext> {
  return {
    onExecute({ args, setExecuteFn, setResultAndStopExecution }) {
      const { viewer } = args.contextValue;
      const directive = liveDirectiveOf(args.document, args.operationName);
      if (!directive) return;
      const held = args.contextValue.holdSubscription?.(viewer);
      if (held instanceof GraphQLError) {
        setResultAndStopExecution({ errors: [held] });
        return;
      }
      const { throttleValue } = getLiveDirectiveArgumentValues(directive, args.variableValues);
      const session = responseCacheSession(args.contextValue);
      // The first of identical live queries executes for all (src/events/live-fanout.ts), on its context.
      const start = async (executionArgs: ExecutionArgs): Promise<Results> => {
        const ended = new AbortController();
        const tagged = (execution: ExecutionArgs) => {
          // Every execution reads afresh: what the previous one cached in the request's loaders is stale now.
          for (const loader of Object.values(args.contextValue.loaders)) loader.clearAll();
          (execution.contextValue as CollectingContext).addResourceIdentifier(
            organizationIdentifier(viewer.organizationId),
          );
          return execute(execution) as ExecutionResult | Promise<ExecutionResult>;
        };
        const liveExecute = live.store.makeExecute(
          throttled(tagged, live.intervalOf(throttleValue), live.clock, ended.signal),
        ) as (args: ExecutionArgs) => Results | Promise<Results>;
        // On a cluster, from before its first execution until it ends (on one server at once).
        const release = await live.follow(viewer.organizationId);
        const results = await liveExecute(executionArgs);
        const end = () => {
          ended.abort();
          release();
        };
        if (Symbol.asyncIterator in results) return releasing(results, end);
        end();
        return results;
      };
      // The document as executed: the response cache adds the fields it collects entities by to an SSE request's.
      setExecuteFn((async (executionArgs: ExecutionArgs) => {
        const results = await live.fanout.join(
          [
            session,
            executionArgs.operationName ?? '',
            print(executionArgs.document),
            JSON.stringify(executionArgs.variableValues ?? {}),
          ].join('\n'),
          () => start(executionArgs),
        );
        // Over SSE this subscriber's results end once its key no longer holds (src/graphql/key-lapse-stream.ts).
        return held && Symbol.asyncIterator in results ? untilKeyLapses(results, held) : results;
      }) as typeof execute);
    },
  };
}
