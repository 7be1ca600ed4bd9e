// The REST layer's operations, run in process through yoga's envelop
// pipeline (the plugins, context, resolvers and dataloaders of /graphql)
// rather than sent to yoga as HTTP: no Fetch Request with a JSON body to
// parse, no result serialized to JSON then parsed back. The router reshapes
// the ExecutionResult itself, and its answer is serialized once, by Fastify.
//
// What a request to /graphql goes through that these leave out, and why:
// - yoga's HTTP steps (media types, UTF-8 bodies, body size, method, the
//   GraphQL parameters' shape): the router read and checked the HTTP request,
//   and builds the variables from JSON it parsed itself, under the route's
//   body limit (8 MiB at most; yoga's is 25 MB);
// - the persisted-operation lookup by hash: the router hands over the text,
//   one of the gateway's own, which runs whether only persisted operations
//   may or not;
// - parsing and validating each time: the text never changes, so it is
//   parsed and validated once per server, with every rule /graphql has (the
//   depth, alias, token and cost limits, which a fixed operation meets or
//   never does, and the introspection rule), and its document kept. What is
//   keyed by the document stays found: graphql-jit's compiled query
//   (src/graphql/compiled-execution.ts) and the cost traces show.
// What they keep: the variables' storable check (byte-array JSON members are
// decoded after the router's own check), the context (made from the viewer
// the router authenticated), execution with its plugins (compiled queries,
// operation metrics, tracing, masked errors), and the BAD_INPUT code.
import type { DocumentNode, ExecutionResult, GraphQLError } from 'graphql';
import { withBadInputCode } from './use-bad-input-code.ts';
import { refuseUnstorableOperation } from './use-storable-input.ts';
import { type GraphQLServer, maskOperationError, type ServerContext } from './yoga.ts';

/** A document ready to run, or why it never will. */
type Prepared = { document: DocumentNode } | { errors: readonly GraphQLError[] };

/**
 * Runs an operation's text with `variables` (JSON values, as a request body
 * would carry them), answering as /graphql would: its data, or its errors
 * masked and coded.
 */
export type OperationRunner = (
  text: string,
  variables: Record<string, unknown>,
  context: ServerContext,
) => Promise<ExecutionResult>;

export function operationRunner(graphql: GraphQLServer): OperationRunner {
  const prepared = new Map<string, Prepared>();

  function prepare(text: string, enveloped: ReturnType<GraphQLServer['getEnveloped']>): Prepared {
    let found = prepared.get(text);
    if (!found) {
      const document: DocumentNode = enveloped.parse(text);
      const errors = enveloped.validate(enveloped.schema, document);
      found = errors.length > 0 ? { errors } : { document };
      prepared.set(text, found);
    }
    return found;
  }

  return async (text, variables, context) => {
    try {
      refuseUnstorableOperation(text, variables);
      // A copy: it becomes the operation's context, which plugins extend.
      const enveloped = graphql.getEnveloped({ ...context });
      const ready = prepare(text, enveloped);
      if ('errors' in ready) return withBadInputCode({ errors: ready.errors });
      const result = await enveloped.execute({
        schema: enveloped.schema,
        document: ready.document,
        contextValue: await enveloped.contextFactory(),
        variableValues: variables,
      });
      // A query or a mutation without @defer or @stream: one result, not a stream of them.
      return withBadInputCode(result as ExecutionResult);
    } catch (error) {
      // What yoga does with an error thrown rather than returned (src/graphql/yoga.ts).
      return withBadInputCode({ errors: [maskOperationError(error) as GraphQLError] });
    }
  };
}
