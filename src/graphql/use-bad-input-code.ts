// graphql-js's own refusals of variables (missing, null, of the wrong type)
// carry no code; they are bad input, and say so with BAD_INPUT like every other.
import { type ExecutionResult, GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { BAD_INPUT } from '../domain/errors.ts';

/** `result` with BAD_INPUT on its errors that have no code (the REST layer's operations read it too). */
export function withBadInputCode<Result extends ExecutionResult>(result: Result): Result {
  const { errors } = result;
  if (!errors?.length || errors.every((error) => error.extensions?.code)) return result;
  return {
    ...result,
    errors: errors.map((error) =>
      error.extensions?.code
        ? error
        : new GraphQLError(error.message, {
            nodes: error.nodes,
            path: error.path,
            extensions: { ...error.extensions, code: BAD_INPUT },
          }),
    ),
  };
}

export const useBadInputCode = (): Plugin => ({
  onResultProcess({ result, setResult }) {
    if (!result || Array.isArray(result) || !('errors' in result)) return;
    setResult(withBadInputCode(result as ExecutionResult));
  },
});
