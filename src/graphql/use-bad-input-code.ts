// graphql-js's own refusals of variables (missing, null, of the wrong type)
// carry no code; they are bad input, and say so with BAD_INPUT like every other.
import { GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { BAD_INPUT } from '../domain/errors.ts';

export const useBadInputCode = (): Plugin => ({
  onResultProcess({ result, setResult }) {
    if (!result || Array.isArray(result) || !('errors' in result) || !result.errors?.length) return;
    const { errors } = result as { errors: readonly GraphQLError[] };
    if (errors.every((error) => error.extensions?.code)) return;
    setResult({
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
    });
  },
});
