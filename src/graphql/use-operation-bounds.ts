// Work per operation, bounded before it starts: the size of its variables, the
// length of every list it passes and its cost (src/graphql/operation-cost.ts),
// checked once the variables are known, as the operation is about to execute
// or subscribe. Every transport goes through these hooks: POST and GET
// /graphql, SSE, graphql-ws (src/graphql/websocket.ts) and the REST layer's
// operations run in process (src/graphql/run-operation.ts). A refusal is
// answered as a document over a limit is, before any resolver (or SQL) runs.
import type { ExecutionArgs, ExecutionResult } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { GraphQLLimits } from '../config/request-limits.ts';
import { tracing } from '../observability/tracing.ts';
import { jsonSizeExceeds } from '../requests/json-size.ts';
import { invalidDocumentError } from './bad-input.ts';
import { measureOperation } from './operation-cost.ts';

type Bounds = Pick<GraphQLLimits, 'maxCost' | 'maxVariablesBytes'>;

/** Why the operation of `args` may not run, if it may not. */
function refusalOf(args: ExecutionArgs, { maxCost, maxVariablesBytes }: Bounds): string | undefined {
  const variables = args.variableValues ?? undefined;
  // First, as the walks below are as long as the variables are large.
  if (jsonSizeExceeds(variables ?? {}, maxVariablesBytes)) {
    return `Variables size limit of ${maxVariablesBytes} bytes exceeded.`;
  }
  const measure = measureOperation(args.schema, args.document, args.operationName, variables);
  if (measure.overlong !== undefined) return measure.overlong;
  if (measure.cost > maxCost) return `Query Cost limit of ${maxCost} exceeded, found ${measure.cost}.`;
  // The operation's span carries its cost, when traces are on.
  tracing().operationCost(args.contextValue as object, measure.cost);
  return undefined;
}

export function useOperationBounds(bounds: Bounds): Plugin {
  const refused = (args: ExecutionArgs): ExecutionResult | undefined => {
    const refusal = refusalOf(args, bounds);
    return refusal === undefined ? undefined : { errors: [invalidDocumentError(refusal)] };
  };
  return {
    onExecute({ args, setResultAndStopExecution }) {
      const result = refused(args);
      if (result) setResultAndStopExecution(result);
    },
    onSubscribe({ args, setResultAndStopExecution }) {
      const result = refused(args);
      if (result) setResultAndStopExecution(result);
    },
  };
}
