// Input yoga's plugins refuse before it runs: a 400 with the BAD_INPUT code,
// as the domain's own validation failures have.
import { GraphQLError } from 'graphql';
import { BAD_INPUT } from '../domain/errors.ts';

export const badInputError = (message: string, detail: unknown = null) =>
  new GraphQLError(message, { extensions: { code: BAD_INPUT, status: 400, http: { status: 400 }, detail } });
