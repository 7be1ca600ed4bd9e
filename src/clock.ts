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
    signal?.throwIfAborted();
    // A timer may fire a millisecond early by the wall clock (timers run on the monotonic one, rounded):
    // sleep again until `at` has really passed, so nothing paced by this clock ever happens before its time.
    for (let ms = at.getTime() - Date.now(); ms > 0; ms = at.getTime() - Date.now()) {
      await sleep(ms, undefined, { signal });
    }
  },
};
