// A subscriber's own queue of states: only the newest waits, older ones are
// dropped (a slow subscriber skips to the current state instead of falling behind).
export class LatestValue<T> implements AsyncIterableIterator<T> {
  private pending: T | undefined;
  private waiting: ((result: IteratorResult<T>) => void) | null = null;
  private done = false;

  constructor(private readonly onClose: () => void) {}

  push(value: T) {
    if (this.done) return;
    if (this.waiting) {
      const resolve = this.waiting;
      this.waiting = null;
      resolve({ value, done: false });
    } else {
      this.pending = value;
    }
  }

  next(): Promise<IteratorResult<T>> {
    if (this.done) return Promise.resolve({ value: undefined, done: true });
    if (this.pending !== undefined) {
      const value = this.pending;
      this.pending = undefined;
      return Promise.resolve({ value, done: false });
    }
    return new Promise((resolve) => (this.waiting = resolve));
  }

  return(): Promise<IteratorResult<T>> {
    if (!this.done) {
      this.done = true;
      this.onClose();
      this.waiting?.({ value: undefined, done: true });
      this.waiting = null;
    }
    return Promise.resolve({ value: undefined, done: true });
  }

  [Symbol.asyncIterator]() {
    return this;
  }
}
