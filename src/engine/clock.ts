// The engine's time. Windows, retry delays, pacing slots, leases and the
// attempts' timestamps all read this clock, so tests drive them with a clock
// they advance (test/support/manual-clock.ts) instead of sleeping.
import { setTimeout as sleep } from 'node:timers/promises';

export interface Clock {
  now(): Date;
  /** Resolves at `at` (at once if it has passed); rejects when `signal` aborts. */
  sleepUntil(at: Date, signal?: AbortSignal): Promise<void>;
}

export const systemClock: Clock = {
  now: () => new Date(),
  sleepUntil: async (at, signal) => {
    const ms = at.getTime() - Date.now();
    if (ms > 0) await sleep(ms, undefined, { signal });
    else signal?.throwIfAborted();
  },
};
