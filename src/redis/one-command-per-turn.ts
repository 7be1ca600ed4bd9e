// Requests for the same Redis key that arrive in one turn of the event loop
// (the sockets read in one poll) share one command, sent once all of them have
// arrived (setImmediate: at the turn's end). 200 clients polling one
// dashboard are then a handful of commands a turn, not 200 (the response
// cache's nonce check, the rate limit's counter: src/events/response-cache-store.ts,
// src/requests/rate-limits.ts).
//
// What a joined request reads is never older than the request: the command
// is sent after every request that joined it arrived, and a request arriving
// once it has been sent waits for the next one. So a change Redis had made
// before a request came (an invalidation, another instance's count) is seen by it.

/** What a request that joined a command learns: the command's result, how many joined it, and its own place among them. */
export interface Joined<T> {
  result: T;
  /** Requests that shared the command. */
  count: number;
  /** This request's place among them, from 0, in the order they joined. */
  index: number;
}

export class OneCommandPerTurn<T> {
  private readonly waiting = new Map<string, { count: number; done: Promise<T> }>();

  /** `send(key, count)`: the one command for the `count` requests of the key that joined it. */
  constructor(private readonly send: (key: string, count: number) => Promise<T>) {}

  join(key: string): Promise<Joined<T>> {
    let batch = this.waiting.get(key);
    if (!batch) {
      const created = {
        count: 0,
        done: new Promise<T>((resolve, reject) =>
          setImmediate(() => {
            this.waiting.delete(key);
            this.send(key, created.count).then(resolve, reject);
          }),
        ),
      };
      batch = created;
      this.waiting.set(key, batch);
    }
    const index = batch.count++;
    const joined = batch;
    return joined.done.then((result) => ({ result, count: joined.count, index }));
  }
}
