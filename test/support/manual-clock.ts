// A clock that moves only when a test advances it: the engine's windows,
// retry delays and pacing are tested without sleeping through them.
import type { Clock } from '../../src/clock.ts';

export class ManualClock implements Clock {
  private current: number;
  private sleepers: { at: number; resolve: () => void }[] = [];

  constructor(start: Date | string) {
    this.current = new Date(start).getTime();
  }

  now(): Date {
    return new Date(this.current);
  }

  sleepUntil(at: Date, signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    if (at.getTime() <= this.current) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const sleeper = { at: at.getTime(), resolve };
      this.sleepers.push(sleeper);
      signal?.addEventListener('abort', () => {
        this.sleepers = this.sleepers.filter((other) => other !== sleeper);
        reject(signal.reason);
      });
    });
  }

  /** The earliest time someone sleeps until, or null when nobody sleeps. */
  nextWake(): Date | null {
    const at = Math.min(...this.sleepers.map((sleeper) => sleeper.at));
    return Number.isFinite(at) ? new Date(at) : null;
  }

  /** Moves time forward, waking whoever slept until then. */
  advance(ms: number) {
    this.set(new Date(this.current + ms));
  }

  set(at: Date | string) {
    this.current = new Date(at).getTime();
    const due = this.sleepers.filter((sleeper) => sleeper.at <= this.current);
    this.sleepers = this.sleepers.filter((sleeper) => sleeper.at > this.current);
    for (const sleeper of due) sleeper.resolve();
  }
}
