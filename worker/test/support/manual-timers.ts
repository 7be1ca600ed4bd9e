// Timers driven by the test: time passes when the test says so.
import type { Timers } from '../../src/conductor.ts';

export class ManualTimers implements Timers {
  now = 0;
  private pending = new Map<number, { at: number; callback: () => void }>();
  private next = 1;

  set(callback: () => void, ms: number) {
    const id = this.next++;
    this.pending.set(id, { at: this.now + ms, callback });
    return id;
  }

  clear(timer: unknown) {
    this.pending.delete(timer as number);
  }

  /** Moves time on by `ms`, running each timer due, in order. */
  advance(ms: number) {
    const until = this.now + ms;
    for (;;) {
      const due = [...this.pending.entries()]
        .filter(([, entry]) => entry.at <= until)
        .sort((a, b) => a[1].at - b[1].at)[0];
      if (!due) break;
      this.pending.delete(due[0]);
      this.now = due[1].at;
      due[1].callback();
    }
    this.now = until;
  }

  get scheduled() {
    return this.pending.size;
  }
}
