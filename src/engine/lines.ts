// An instance's lines: what ENGINE_CONCURRENCY bounds is the calls it has in
// flight, as a dialer's lines do, not the runs it holds. A run takes a line
// just before its attempt is written open and gives it back the moment its
// call ends, so nothing else a run does (its claim, look-ups, non-call steps,
// closing the attempt, finishing) keeps a line from a run that could call.
// A freed line goes to a waiting run of the organization with the fewest
// lines of this instance (the earliest to ask among its runs): a campaign's
// runs claimed ahead do not hold back another organization's first call. A
// paced run (whose slot has come) goes before the others, so it is placed as
// close to its slot as lines allow.

/** Frees the line (once; later calls do nothing). */
export type FreeLine = () => void;

interface Waiter {
  organizationId: string;
  paced: boolean;
  /** When it asked, in order. */
  order: number;
  grant(): void;
}

/** An organization's waiting runs, each list in the order they asked. */
interface Queue {
  paced: Waiter[];
  unpaced: Waiter[];
}

export class Lines {
  private busy = 0;
  /** Lines held per organization. */
  private readonly held = new Map<string, number>();
  private readonly waiting = new Map<string, Queue>();
  private asked = 0;

  constructor(private readonly count: number) {}

  /** Waits for a free line; rejects with the signal's reason if it aborts first. */
  take(organizationId: string, paced: boolean, signal: AbortSignal): Promise<FreeLine> {
    signal.throwIfAborted();
    if (this.busy < this.count) {
      this.busy++;
      return Promise.resolve(this.freeing(organizationId));
    }
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        organizationId,
        paced,
        order: this.asked++,
        grant: () => {
          signal.removeEventListener('abort', abandon);
          resolve(this.freeing(organizationId));
        },
      };
      let queue = this.waiting.get(organizationId);
      if (!queue) {
        queue = { paced: [], unpaced: [] };
        this.waiting.set(organizationId, queue);
      }
      const list = paced ? queue.paced : queue.unpaced;
      const abandon = () => {
        list.splice(list.indexOf(waiter), 1);
        this.forgetEmpty(organizationId);
        reject(signal.reason);
      };
      signal.addEventListener('abort', abandon, { once: true });
      list.push(waiter);
    });
  }

  private freeing(organizationId: string): FreeLine {
    this.held.set(organizationId, (this.held.get(organizationId) ?? 0) + 1);
    let freed = false;
    return () => {
      if (freed) return;
      freed = true;
      const left = this.held.get(organizationId)! - 1;
      if (left === 0) this.held.delete(organizationId);
      else this.held.set(organizationId, left);
      // The line goes straight to the next waiter, if any: it stays busy.
      const next = this.next();
      if (next) next.grant();
      else this.busy--;
    };
  }

  /** The first paced waiter, else any, of the organization holding the fewest lines; the earliest among equals. */
  private next(): Waiter | undefined {
    let chosen: Waiter | undefined;
    for (const queue of this.waiting.values()) {
      const first = queue.paced[0] ?? queue.unpaced[0];
      if (first && (!chosen || this.before(first, chosen))) chosen = first;
    }
    if (!chosen) return undefined;
    const queue = this.waiting.get(chosen.organizationId)!;
    (chosen.paced ? queue.paced : queue.unpaced).shift();
    this.forgetEmpty(chosen.organizationId);
    return chosen;
  }

  private before(waiter: Waiter, other: Waiter): boolean {
    if (waiter.paced !== other.paced) return waiter.paced;
    const lines = this.held.get(waiter.organizationId) ?? 0;
    const otherLines = this.held.get(other.organizationId) ?? 0;
    return lines === otherLines ? waiter.order < other.order : lines < otherLines;
  }

  private forgetEmpty(organizationId: string) {
    const queue = this.waiting.get(organizationId);
    if (queue && queue.paced.length === 0 && queue.unpaced.length === 0) this.waiting.delete(organizationId);
  }
}
