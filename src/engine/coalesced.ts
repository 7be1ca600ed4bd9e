// Coalesced calls: what every run does (record its step, look up its number
// and its agent, write its attempt open and closed, finish), done for many runs
// at once in a few set-based statements. Every run's end updates its batch's
// row (the counters), which serializes those transactions: one per run capped
// a batch at what one transaction can commit in turn (about a hundred a second
// here), however many calls were in flight; and a thousand runs claimed at once
// queued thousands of statements for the pool's few connections. So the calls
// queue here: the first goes at once, and those that arrive while it is under
// way go together in the next one. Nothing waits for a timer, so a lone call
// is as quick as before.

/** Does one group of items at once (in one transaction when it writes); returns one result per item, in order. */
export type GroupedWork<Item, Result> = (items: Item[]) => Promise<Result[]>;

export class Coalesced<Item, Result> {
  private readonly queue: { item: Item; resolve(result: Result): void; reject(error: unknown): void }[] = [];
  private flushing = false;

  constructor(
    private readonly work: GroupedWork<Item, Result>,
    /** Items per transaction at most (bounds its statements' arrays and its locks). */
    private readonly maxGroup = 500,
  ) {}

  /** Resolves with the item's result once its group is done; rejects with the group's error if it failed. */
  submit(item: Item): Promise<Result> {
    const result = new Promise<Result>((resolve, reject) => this.queue.push({ item, resolve, reject }));
    if (!this.flushing) void this.flush();
    return result;
  }

  private async flush() {
    this.flushing = true;
    while (this.queue.length > 0) {
      const group = this.queue.splice(0, this.maxGroup);
      try {
        const results = await this.work(group.map(({ item }) => item));
        for (const [index, { resolve }] of group.entries()) resolve(results[index]!);
      } catch (error) {
        for (const { reject } of group) reject(error);
      }
    }
    this.flushing = false;
  }
}
