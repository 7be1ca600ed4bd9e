// A subscription over HTTP (SSE) takes a slot of its organization's
// (src/graphql/subscription-slots.ts) for as long as its response lasts, given
// by the host with the request (`ServerContext.holdSubscription`); refused, it
// runs nothing and its answer is the refusal. Its stream ends once its key no
// longer holds (src/graphql/key-lapse-stream.ts). graphql-ws connections take
// theirs in src/graphql/websocket.ts, where a refusal is the protocol's error message.
import { GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { GraphQLContext } from '../schema/context.ts';
import { untilKeyLapses } from './key-lapse-stream.ts';
import type { ServerContext } from './yoga.ts';

export const useSubscriptionSlots = (): Plugin<ServerContext & GraphQLContext> => ({
  onSubscribe({ args, setResultAndStopExecution }) {
    const { holdSubscription, viewer } = args.contextValue;
    const held = holdSubscription?.(viewer);
    if (held === undefined) return;
    if (held instanceof GraphQLError) {
      setResultAndStopExecution({ errors: [held] });
      return;
    }
    return {
      onSubscribeResult({ result, setResult }) {
        if (Symbol.asyncIterator in result) setResult(untilKeyLapses(result, held));
      },
    };
  },
});
