// Queries run compiled: graphql-jit turns each query into a function once,
// the first time its document is seen, and every later request calls it. On
// the dashboard query (1,000 runs with their prospects) this halves the
// gateway's CPU per request against graphql-js's interpreter (BENCHMARKS.md).
//
// What stays on graphql-js's executor, where it behaves differently or gains
// nothing:
// - operations graphql-jit cannot compile, e.g. with variables of a recursive
//   input type (zalando-incubator/graphql-jit#81; the generated config inputs
//   are recursive): compiling is an optimization, never a failure;
// - variables that do not coerce: graphql-jit replaces a scalar's own message
//   ("Date must be YYYY-MM-DD") by "Expected type Date", so graphql-js, which
//   keeps it, answers those;
// - operations whose document holds @skip or @include: graphql-jit keeps the
//   fields of a left-out field's fragments when the same key is selected again
//   (`p @skip(if: true) { ... on P { a } } p { b }` answers `a` and `b`), orders
//   a key where a left-out node first names it, and leaves out a fragment
//   spread again after a left-out spread (zalando-incubator/graphql-jit#111,
//   #166 are of the same family); graphql-js follows the spec's CollectFields;
// - mutations (their cost is the write) and subscriptions (graphql-jit's
//   subscribe does not deliver our event streams);
// - live queries (`query @live`), which the live-query store executes on its
//   own copy of the schema (use-live-queries.ts).

import { getLiveDirectiveNode } from '@n1ru4l/graphql-live-query';
import {
  BREAK,
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  type GraphQLSchema,
  getOperationAST,
  getVariableValues,
  visit,
} from 'graphql';
import { type CompiledQuery, compileQuery, isCompiledQuery } from 'graphql-jit';
import type { Plugin } from 'graphql-yoga';

/** Whether a directive of the document is @skip or @include. */
function holdsConditions(document: DocumentNode): boolean {
  let found = false;
  visit(document, {
    Directive(node) {
      if (node.name.value !== 'skip' && node.name.value !== 'include') return;
      found = true;
      return BREAK;
    },
  });
  return found;
}

/**
 * The result with `data` before `errors`, as graphql-jit writes it (graphql-js
 * writes `errors` first): a query answers in one order whichever executor ran
 * it, and the document PostgreSQL's connections were cut from may run on the
 * other (a rewritten connection takes its @skip away: sql-subtrees/plan.ts).
 */
async function inCompiledOrder(result: unknown) {
  const settled = await result;
  if (!settled || typeof settled !== 'object' || !('errors' in settled) || Symbol.asyncIterator in settled)
    return settled;
  const { data, errors, ...rest } = settled as ExecutionResult;
  return { data, errors, ...rest };
}

export function useCompiledQueries(): Plugin {
  // Keyed by the parsed document, which yoga's parser cache hands out again for the same query text.
  const compiled = new WeakMap<GraphQLSchema, WeakMap<DocumentNode, Map<string, CompiledQuery | null>>>();

  function compiledFor(args: ExecutionArgs): CompiledQuery | null {
    let bySchema = compiled.get(args.schema);
    if (!bySchema) {
      bySchema = new WeakMap();
      compiled.set(args.schema, bySchema);
    }
    let byOperation = bySchema.get(args.document);
    if (!byOperation) {
      byOperation = new Map();
      bySchema.set(args.document, byOperation);
    }
    const operationName = args.operationName ?? '';
    if (!byOperation.has(operationName)) {
      const result = holdsConditions(args.document)
        ? null
        : compileQuery(args.schema, args.document, args.operationName ?? undefined);
      byOperation.set(operationName, result && isCompiledQuery(result) ? result : null);
    }
    return byOperation.get(operationName)!;
  }

  return {
    onExecute({ args, executeFn, setExecuteFn }) {
      const operation = getOperationAST(args.document, args.operationName);
      if (operation?.operation !== 'query' || getLiveDirectiveNode(operation)) return;
      const definitions = operation.variableDefinitions ?? [];
      if (definitions.length > 0 && getVariableValues(args.schema, definitions, args.variableValues ?? {}).errors)
        return;
      // Compiled for the document it is handed, which a plugin after this one may have rewritten
      // (the response cache adds __typename and id to each selection: use-response-cache.ts).
      setExecuteFn((execution) => {
        const query = compiledFor(execution);
        return query
          ? query.query(execution.rootValue, execution.contextValue, execution.variableValues)
          : inCompiledOrder(executeFn(execution));
      });
    },
  };
}
