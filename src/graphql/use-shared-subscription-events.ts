// One execution per subscription event for all who asked the same. Every
// subscriber to a batch's progress on an instance is handed the same row
// object for the same change (src/events/batch-progress.ts), and yoga's
// executor executed the operation's selection on it once per subscriber
// (5,000 times per instance for one change in BENCHMARKS.md (j)). Here the
// first subscriber to map an event executes it, with its own context (its
// organization's, its loaders cleared for this event), and every other one
// holding the same operation (the same parsed document, which yoga's parser
// cache hands out again for the same text, operation name and variables) in
// the same organization takes that result.
//
// The results are kept in a WeakMap keyed by the event itself: they go when
// the event does, nothing to evict. Only the execution is shared: each
// subscriber's result still passes through the plugins after this one
// (yoga's error masking among them) on its own, and the subscribe resolver
// and the stream it returns (whose first read checks tenancy) stay per
// subscriber. Subscriptions run on
// graphql-js's createSourceEventStream and execute: what yoga's default
// executor (graphql-tools') adds, @defer and @stream, the schema does not offer.
import { createSourceEventStream, type DocumentNode, type ExecutionArgs, type ExecutionResult, execute } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { GraphQLContext } from '../schema/context.ts';

type Step = IteratorYieldResult<ExecutionResult>;
/** An event's execution as the step handed to every subscriber (they only read it). */
type SharedStep = Step | Promise<Step>;

/** An event's executions, by document, then by organization, operation name and variables. */
const executionsByEvent = new WeakMap<object, Map<DocumentNode, Map<string, SharedStep>>>();

function executedStep(args: ExecutionArgs, event: unknown): SharedStep {
  const result = execute({ ...args, rootValue: event });
  return 'then' in result ? result.then((value) => ({ value, done: false })) : { value: result, done: false };
}

function sharedStep(args: ExecutionArgs, audience: string, event: unknown): SharedStep {
  if (typeof event !== 'object' || event === null) return executedStep(args, event);
  let byDocument = executionsByEvent.get(event);
  if (!byDocument) {
    byDocument = new Map();
    executionsByEvent.set(event, byDocument);
  }
  let byAudience = byDocument.get(args.document);
  if (!byAudience) {
    byAudience = new Map();
    byDocument.set(args.document, byAudience);
  }
  let step = byAudience.get(audience);
  if (!step) {
    step = executedStep(args, event);
    byAudience.set(audience, step);
  }
  return step;
}

/** The source stream's events, each mapped to its (shared) execution: one promise per event and subscriber, no more. */
function executedEach(
  source: AsyncIterator<unknown>,
  stepOf: (event: unknown) => SharedStep,
): AsyncIterableIterator<ExecutionResult> {
  return {
    next: () => source.next().then((step) => (step.done ? step : stepOf(step.value))),
    async return() {
      await source.return?.();
      return { value: undefined, done: true };
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}

async function subscribeSharing(args: ExecutionArgs) {
  const source = await createSourceEventStream(args);
  // Refused (the subscribe resolver threw, variables that do not coerce): the errors, per subscriber.
  if (!(Symbol.asyncIterator in source)) return source;
  const { viewer } = args.contextValue as GraphQLContext;
  // Computed once per subscription, not per event.
  const audience = [viewer.organizationId, args.operationName ?? '', JSON.stringify(args.variableValues ?? {})].join(
    '\n',
  );
  return executedEach(source[Symbol.asyncIterator](), (event) => sharedStep(args, audience, event));
}

export const useSharedSubscriptionEvents = (): Plugin => ({
  onSubscribe({ setSubscribeFn }) {
    setSubscribeFn(subscribeSharing);
  },
});
