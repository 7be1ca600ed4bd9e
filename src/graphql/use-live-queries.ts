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
// subscription does (over SSE here, over graphql-ws in websocket.ts), and
// over SSE ends once its key no longer holds, as a subscription does. It runs
// on graphql-js's executor (the store executes it on a copy of the schema that
// collects identifiers), never on graphql-jit's (compiled-execution.ts).
//
// On a Redis Cluster a live query has its instance follow its organization's
// invalidations (LiveInvalidations.follow) from before its first execution
// until it ends.
import { getLiveDirectiveNode } from '@n1ru4l/graphql-live-query';
import {
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  execute,
  GraphQLError,
  getOperationAST,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { type LiveInvalidations, organizationIdentifier } from '../events/live-invalidations.ts';
import type { GraphQLContext } from '../schema/context.ts';
import { untilKeyLapses } from './key-lapse-stream.ts';
import type { ServerContext } from './yoga.ts';

/** Whether the operation is a query marked @live (with `if:` false the store runs it once, as any query). */
export function isLiveQuery(document: DocumentNode, operationName?: string | null): boolean {
  const operation = getOperationAST(document, operationName);
  return operation?.operation === 'query' && getLiveDirectiveNode(operation) !== null;
}

type Results = ExecutionResult | AsyncIterableIterator<ExecutionResult>;
type Execute = (args: ExecutionArgs) => Results | Promise<Results>;

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

/** Executes a live query once its instance follows the organization's invalidations. */
const following =
  (live: LiveInvalidations, organizationId: string, liveExecute: Execute): Execute =>
  async (args) => {
    const release = await live.follow(organizationId);
    const results = await liveExecute(args);
    if (Symbol.asyncIterator in results) return releasing(results, release);
    release();
    return results;
  };

/** Over SSE: the live query's results end once its key no longer holds (src/graphql/key-lapse-stream.ts). */
const endingAtLapse =
  (liveExecute: Execute, lapsed: AbortSignal): Execute =>
  async (args) => {
    const results = await liveExecute(args);
    return Symbol.asyncIterator in results ? untilKeyLapses(results, lapsed) : results;
  };

/** What the store hands each execution as its context (it passes the resolvers the original). */
interface CollectingContext {
  addResourceIdentifier(values: string | string[]): void;
}

export function useLiveQueries(live: LiveInvalidations): Plugin<ServerContext & GraphQLContext> {
  return {
    onExecute({ args, setExecuteFn, setResultAndStopExecution }) {
      const { viewer } = args.contextValue;
      if (!isLiveQuery(args.document, args.operationName)) return;
      const held = args.contextValue.holdSubscription?.(viewer);
      if (held instanceof GraphQLError) {
        setResultAndStopExecution({ errors: [held] });
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
      const liveExecute = live.store.makeExecute(tagged) as Execute;
      const followed = live.followsOrganizations ? following(live, viewer.organizationId, liveExecute) : liveExecute;
      setExecuteFn((held ? endingAtLapse(followed, held) : followed) as typeof execute);
    },
  };
}
