// Failures the domain reports, whichever interface (GraphQL or REST) called it.
// Each kind maps to one HTTP status; both interfaces render them from here.

type ErrorKind =
  | 'BAD_INPUT'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'CONFLICT'
  | 'PAYLOAD_TOO_LARGE'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'BAD_GATEWAY'
  | 'SERVICE_UNAVAILABLE';

export const httpStatusOf: Record<ErrorKind, number> = {
  BAD_INPUT: 400,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  BAD_GATEWAY: 502,
  SERVICE_UNAVAILABLE: 503,
};

/**
 * The code of every refusal of bad input: a DomainError's kind, and GraphQL's
 * `extensions.code` for the input it refuses itself.
 */
export const BAD_INPUT = 'BAD_INPUT' satisfies ErrorKind;

/** How long a client is told to wait (`Retry-After`, seconds) before trying a request the database could not serve. */
export const RETRY_AFTER_SECONDS = 1;

/** One offending input member: its path (`llm_config.fallbacks.0.temperature`) and the rule it broke. */
export interface FieldProblem {
  path: string;
  rule: string;
  message: string;
}

export class DomainError extends Error {
  constructor(
    readonly kind: ErrorKind,
    message: string,
    readonly detail: unknown = null,
  ) {
    super(message);
    this.name = 'DomainError';
  }
}

export const notFound = (what: string) => new DomainError('NOT_FOUND', `${what} not found`);

export const badInput = (problems: FieldProblem[]) =>
  new DomainError(
    BAD_INPUT,
    `invalid input: ${problems.map((problem) => `${problem.path || '(body)'} ${problem.message}`).join('; ')}`,
    problems,
  );

/** The database failed transiently (src/db/transient.ts) on every try: the same request may succeed shortly. */
export const unavailable = () =>
  new DomainError('SERVICE_UNAVAILABLE', 'the database is unavailable for a moment: retry the request shortly');

/**
 * The caller's API key lacks the scope an operation needs (src/key-scopes.ts):
 * the detail names it (`scope`), and every scope that would do (`any_of`).
 */
export const forbidden = (needs: readonly string[]) =>
  new DomainError(
    'FORBIDDEN',
    `this API key may not do this: it needs the scope ${needs.map((scope) => `"${scope}"`).join(' or ')}`,
    { scope: needs[0], any_of: [...needs] },
  );

export const conflict = (message: string, detail: unknown = null) => new DomainError('CONFLICT', message, detail);

/** A service the request depends on (LiveKit) refused it or did not answer: nothing was written here. */
export const badGateway = (message: string, detail: unknown = null) => new DomainError('BAD_GATEWAY', message, detail);
