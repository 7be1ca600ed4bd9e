// Identical live queries share one execution. Those of one instance holding
// the same document, operation name and variables, for callers of one
// organization whose keys hold the same scopes (responseCacheSession), are
// executed once per change by the store (live-invalidations.ts),
// with the first one's context, and each result is handed to all of them: 200
// dashboards of one batch cost one execution per change, not 200. A
// subscriber that joins late gets the latest result at once; a slow one skips
// to the newest (LatestValue); a result equal to the previous one is not
// sent; its text is serialized once for every graphql-ws subscriber
// (serialized-results.ts). The execution stops when its last subscriber
// leaves. What happens per subscriber still does: the subscription slot it
// holds (src/graphql/use-live-queries.ts), and the plugins after this one (yoga's error
// masking among them) on each result.
import type { ExecutionResult } from 'graphql';
import { LatestValue } from './latest-value.ts';
import { noteSerialized } from './serialized-results.ts';

type Results = ExecutionResult | AsyncIterableIterator<ExecutionResult>;

interface Execution {
  /** The store's stream, or the single answer of a query that did not go live (refused, or `@live(if: false)`). */
  source: Promise<Results>;
  subscribers: Set<LatestValue<ExecutionResult>>;
  latest: ExecutionResult | undefined;
  /** The latest result as JSON: an execution that reads the same is not sent again. */
  latestText: string;
}

export class LiveFanout {
  private readonly running = new Map<string, Execution>();

  /** The executions running for keys that begin with `prefix` (a session: an organization and its key's scopes), and their subscribers. */
  census(prefix: string): { executions: number; subscribers: number } {
    let executions = 0;
    let subscribers = 0;
    for (const [key, execution] of this.running) {
      if (!key.startsWith(prefix)) continue;
      executions++;
      subscribers += execution.subscribers.size;
    }
    return { executions, subscribers };
  }

  /** The results of the live query `key`: those of its running execution, or of one `start` begins. */
  async join(key: string, start: () => Promise<Results>): Promise<Results> {
    for (;;) {
      const execution = this.running.get(key) ?? this.begin(key, start);
      const source = await execution.source;
      if (!(Symbol.asyncIterator in source)) return source;
      // It ended while this one waited (its last subscriber left): start another.
      if (this.running.get(key) !== execution) continue;
      const subscriber: LatestValue<ExecutionResult> = new LatestValue(() => this.leave(key, execution, subscriber));
      if (execution.latest) subscriber.push(execution.latest);
      execution.subscribers.add(subscriber);
      return subscriber;
    }
  }

  private begin(key: string, start: () => Promise<Results>): Execution {
    const execution: Execution = { source: start(), subscribers: new Set(), latest: undefined, latestText: '' };
    this.running.set(key, execution);
    execution.source.then(
      async (source) => {
        if (!(Symbol.asyncIterator in source)) return this.end(key, execution);
        try {
          for await (const result of source) {
            // Nothing the subscribers read changed (another organization's batch of the id asked, which it may not
            // read, or a write that touched nothing read): they hear nothing.
            const text = JSON.stringify(result);
            if (text === execution.latestText) continue;
            execution.latestText = text;
            execution.latest = result;
            // Written as is to each graphql-ws subscriber (serialized-results.ts).
            noteSerialized(result, text);
            for (const subscriber of execution.subscribers) subscriber.push(result);
          }
        } catch {
          // The stream failed: its subscribers end with it, as they would have alone.
        }
        this.end(key, execution);
        for (const subscriber of [...execution.subscribers]) void subscriber.return();
      },
      () => this.end(key, execution),
    );
    return execution;
  }

  private leave(key: string, execution: Execution, subscriber: LatestValue<ExecutionResult>) {
    execution.subscribers.delete(subscriber);
    if (execution.subscribers.size > 0 || this.running.get(key) !== execution) return;
    this.end(key, execution);
    void execution.source.then((source) => {
      if (Symbol.asyncIterator in source) void source.return?.();
    });
  }

  private end(key: string, execution: Execution) {
    if (this.running.get(key) === execution) this.running.delete(key);
  }
}
