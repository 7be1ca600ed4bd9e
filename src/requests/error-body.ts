// SPEC.md's error body, the one shape every failed HTTP response has.
import type { FastifyReply } from 'fastify';
import { RETRY_AFTER_SECONDS } from '../domain/errors.ts';

export interface ErrorBody {
  status: false;
  message: string;
  error: unknown;
  data: null;
}

export function errorBody(message: string, error: unknown = null): ErrorBody {
  return { status: false, message, error, data: null };
}

/** Answers with the status and the error body; a 503 also says when to try again (Retry-After). */
export function sendError(reply: FastifyReply, status: number, message: string, error: unknown = null) {
  if (status === 503) reply.header('retry-after', String(RETRY_AFTER_SECONDS));
  return reply.code(status).send(errorBody(message, error));
}
