// Input no database could store (NUL in strings, non-finite numbers), or
// nested deeper than any legitimate request, is bad input, named where it is.
import type { Plugin } from 'graphql-yoga';
import { unstorableMembers } from '../domain/validation.ts';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../requests/json-depth.ts';
import { badInputError } from './bad-input.ts';

/** Throws BAD_INPUT when the operation's text or variables hold what no database could store (the REST layer's too). */
export function refuseUnstorableOperation(query: string, variables: Record<string, unknown> | undefined) {
  const inQuery =
    query.includes('\u0000') || query.includes('\\u0000')
      ? [{ path: 'query', rule: 'no NUL', message: 'must not contain the NUL character (U+0000)' }]
      : [];
  // Variables hold a body one level down (`input`), so they may nest one level more than a REST body.
  if (nestsDeeperThan(variables, MAX_JSON_DEPTH + 1)) {
    throw badInputError(`invalid input: variables nest deeper than ${MAX_JSON_DEPTH} levels`);
  }
  const problems = [...inQuery, ...unstorableMembers(variables ?? {}, ['variables'])];
  if (problems.length > 0) {
    throw badInputError(
      `invalid input: ${problems.map((problem) => `${problem.path} ${problem.message}`).join('; ')}`,
      problems,
    );
  }
}

export const useStorableInput = (): Plugin => ({
  onParams({ params }) {
    // A query that is not a string is yoga's to refuse (400) after this hook.
    refuseUnstorableOperation(typeof params.query === 'string' ? params.query : '', params.variables);
  },
});
