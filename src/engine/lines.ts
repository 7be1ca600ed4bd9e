// An instance's lines: what ENGINE_CONCURRENCY bounds is the calls it has in
// flight, as a dialer's lines do, not the runs it holds. A run takes a line
// just before its attempt is written open and gives it back the moment its
// call ends, so nothing else a run does (its claim, look-ups, non-call steps,
// closing the attempt, finishing) keeps a line from a run that could call.
// Runs wait for a line in the order they asked; a paced run (whose slot has
// come) goes before the others, so it is placed as close to its slot as lines
// allow.

/** Frees the line (once; later calls do nothing). */
export type FreeLine = () => void;

interface Waiter {
  grant(): void;
}

export class Lines {
  private busy = 0;
  private readonly waiting = { paced: [] as Waiter[], unpaced: [] as Waiter[] };

  constructor(private readonly count: number) {}

  /** Waits for a free line; rejects with the signal's reason if it aborts first. */
  take(paced: boolean, signal: AbortSignal): Promise<FreeLine> {
    signal.throwIfAborted();
    if (this.busy < this.count) {
      this.busy++;
      return Promise.resolve(this.freeing());
    }
    return new Promise((resolve, reject) => {
      const queue = paced ? this.waiting.paced : this.waiting.unpaced;
      const waiter: Waiter = {
        grant: () => {
          signal.removeEventListener('abort', abandon);
          resolve(this.freeing());
        },
      };
      const abandon = () => {
        queue.splice(queue.indexOf(waiter), 1);
        reject(signal.reason);
      };
      signal.addEventListener('abort', abandon, { once: true });
      queue.push(waiter);
    });
  }

  private freeing(): FreeLine {
    let freed = false;
    return () => {
      if (freed) return;
      freed = true;
      // The line goes straight to the next waiter, if any: it stays busy.
      const next = this.waiting.paced.shift() ?? this.waiting.unpaced.shift();
      if (next) next.grant();
      else this.busy--;
    };
  }
}
