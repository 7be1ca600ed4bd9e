// Database failures worth trying again, and trying again. A lost connection, a
// server shutting down or starting up, an administrator's termination, a
// serialization failure, a deadlock: none of them says the work was wrong, and
// the same work usually succeeds a moment later.
//
// They reach us wrapped in several ways. The pg driver's own error carries the
// SQLSTATE in `code`. Prisma 7 over a driver adapter throws its own error whose
// `meta.driverAdapterError.cause` holds the adapter's view of the driver error
// (`originalCode`: the SQLSTATE, `kind`: e.g. `TransactionWriteConflict` for
// both 40001 and 40P01), with a Prisma code for the kinds it names (P1001, P1017,
// P2034) and P2010/P2039 for the rest. A connection that breaks under a query
// gives a socket error (ECONNRESET, …) or one of pg's uncoded messages.
import { setTimeout as sleep } from 'node:timers/promises';

/** admin_shutdown, crash_shutdown, cannot_connect_now, serialization_failure, deadlock_detected; class 08 (connection exception) apart. */
const TRANSIENT_SQLSTATES = new Set(['57P01', '57P02', '57P03', '40001', '40P01']);
const CONNECTION_EXCEPTION = /^08[0-9A-Z]{3}$/;
/** Can't reach the database server; server closed the connection; write conflict or deadlock. */
const TRANSIENT_PRISMA_CODES = new Set(['P1001', 'P1017', 'P2034']);
/** The driver adapter's names for the same (`DriverAdapterError.cause.kind`). */
const TRANSIENT_ADAPTER_KINDS = new Set(['DatabaseNotReachable', 'ConnectionClosed', 'TransactionWriteConflict']);
const TRANSIENT_SOCKET_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT']);
/** pg's errors for a connection that broke under a query or a transaction carry no code, only these words. */
const BROKEN_CONNECTION = /^(Connection terminated|Client has encountered a connection error)/;

const isTransientCode = (code: unknown) =>
  typeof code === 'string' &&
  (TRANSIENT_SQLSTATES.has(code) ||
    CONNECTION_EXCEPTION.test(code) ||
    TRANSIENT_PRISMA_CODES.has(code) ||
    TRANSIENT_SOCKET_CODES.has(code));

/** The error and every error it wraps (causes, the driver adapter's error, an AggregateError's members). */
function* wrapped(error: unknown): Generator<Record<string, unknown>> {
  const seen = new Set<unknown>();
  const pending = [error];
  while (pending.length > 0) {
    const next = pending.pop();
    if (typeof next !== 'object' || next === null || seen.has(next)) continue;
    seen.add(next);
    const node = next as Record<string, unknown>;
    yield node;
    pending.push(node.cause, (node.meta as Record<string, unknown> | undefined)?.driverAdapterError);
    if (Array.isArray(node.errors)) pending.push(...node.errors);
  }
}

/** Whether the database failed in a way that the same work, tried again shortly, may not. */
export function isTransientDatabaseError(error: unknown): boolean {
  for (const node of wrapped(error)) {
    if (isTransientCode(node.code) || isTransientCode(node.originalCode)) return true;
    if (typeof node.kind === 'string' && TRANSIENT_ADAPTER_KINDS.has(node.kind)) return true;
    if (node instanceof Error && BROKEN_CONNECTION.test(node.message)) return true;
  }
  return false;
}

/** Whether the database failed with this SQLSTATE, however wrapped (e.g. 55P03, lock_not_available: a lock_timeout). */
export function hasSqlState(error: unknown, sqlState: string): boolean {
  for (const node of wrapped(error)) if (node.code === sqlState || node.originalCode === sqlState) return true;
  return false;
}

export interface RetryOptions {
  /** Tries in all, the first included (default 5). */
  attempts?: number;
  /** The wait after the first failure; it doubles with each further one (default 50 ms). */
  baseDelayMs?: number;
  /** No wait is longer (default 2 s). */
  maxDelayMs?: number;
  /** Stops waiting and trying: the promise rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Told of each transient failure that will be tried again, with its attempt's number (1 for the first). */
  onRetry?: (error: unknown, attempt: number) => void;
}

/**
 * Runs `work`, and again after a transient database error, up to `attempts`
 * times in all, waiting longer each time: exponential backoff with jitter
 * (between half and all of `baseDelayMs * 2^(attempt-1)`, capped), so that
 * callers that failed together do not retry together. Any other error, and
 * the last transient one, is thrown as it is. `work` must be safe to run
 * again: a whole transaction, or a statement that changes nothing.
 */
export async function retryTransient<T>(work: () => Promise<T>, options: RetryOptions = {}): Promise<T> {
  const { attempts = 5, baseDelayMs = 50, maxDelayMs = 2_000, signal, onRetry } = options;
  for (let attempt = 1; ; attempt++) {
    signal?.throwIfAborted();
    try {
      return await work();
    } catch (error) {
      if (attempt >= attempts || signal?.aborted || !isTransientDatabaseError(error)) throw error;
      onRetry?.(error, attempt);
      const ceiling = Math.min(maxDelayMs, baseDelayMs * 2 ** (attempt - 1));
      // Aborted while waiting: throw the signal's reason, as before an attempt.
      await sleep(ceiling / 2 + (Math.random() * ceiling) / 2, undefined, { signal }).catch(() =>
        signal?.throwIfAborted(),
      );
    }
  }
}
