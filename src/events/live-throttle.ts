// The throttle of one live query: at most one execution per interval, the
// last state always delivered. The store (@n1ru4l/in-memory-live-query-store)
// calls `execute` once per invalidation and pushes only the result of its
// latest call; an execution asked inside the interval waits on the clock until
// it ends, and is skipped when a later one was asked meanwhile (its result
// would not be pushed anyway).
//
// The store's own throttle is not used: it compares Date.now() with a timer
// that Node may fire before that much wall-clock time has passed (timers count
// from the event loop's cached time, which lags behind a busy loop), and then
// drops the trailing execution for good, so the last state never arrived.
// Waiting on a Clock (src/clock.ts) waits until the time has really passed,
// and lets tests move time themselves.
import type { ExecutionResult } from 'graphql';
import type { Clock } from '../clock.ts';

/** What a skipped execution answers: the store drops it (a later execution's result is the one pushed). */
const SKIPPED: ExecutionResult = {};

export function throttled<A>(
  execute: (args: A) => ExecutionResult | Promise<ExecutionResult>,
  intervalMs: number,
  clock: Clock,
  /** Aborted when the live query ends: an execution still waiting is skipped. */
  signal: AbortSignal,
): (args: A) => ExecutionResult | Promise<ExecutionResult> {
  let lastStart = Number.NEGATIVE_INFINITY;
  let asked = 0;
  const start = (args: A) => {
    lastStart = clock.now().getTime();
    return execute(args);
  };
  return (args) => {
    const mine = ++asked;
    const due = lastStart + intervalMs;
    if (clock.now().getTime() >= due) return start(args);
    return clock.sleepUntil(new Date(due), signal).then(
      () => (mine === asked && !signal.aborted ? start(args) : SKIPPED),
      () => SKIPPED,
    );
  };
}
