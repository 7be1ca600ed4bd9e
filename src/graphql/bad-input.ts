// What yoga's plugins refuse before an operation runs: bad input (a 400 with
// the BAD_INPUT code, as the domain's own validation failures have), and a
// document over a limit (GRAPHQL_VALIDATION_FAILED, as GraphQL's own
// validation reports a document it refuses).
import { GraphQLError } from 'graphql';
import { BAD_INPUT } from '../domain/errors.ts';

export const badInputError = (message: string, detail: unknown = null) =>
  new GraphQLError(message, { extensions: { code: BAD_INPUT, status: 400, http: { status: 400 }, detail } });

/**
 * A document refused by a limit. Its status is the one GraphQL over HTTP gives
 * a document that fails validation: 400 for application/graphql-response+json,
 * 200 for application/json (yoga decides from `http.spec`).
 */
export const invalidDocumentError = (message: string) =>
  new GraphQLError(message, {
    extensions: { code: 'GRAPHQL_VALIDATION_FAILED', http: { spec: true, status: 400 } },
  });
