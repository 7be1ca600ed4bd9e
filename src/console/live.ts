// A batch's state as the newest of two sources: the page's query, and the
// batch's live query (`query … @live` over SSE) while it is followed: it
// answers at once, then again each time the batch changes.
import { useSubscription } from '@urql/preact';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { type BatchCard, ConsoleBatchLive } from '../console-operations/console-operations.ts';
import { documentOf } from './client.ts';

export type LiveState = Pick<BatchCard, 'status' | 'stats' | 'outcomes' | 'windowState' | 'pausedReason'> & {
  live: boolean;
};

/** The batch as last read, overridden by each live result that arrives after that read. */
export function useLiveBatch(batch: BatchCard, follow: boolean, onEvent?: () => void): LiveState {
  const readAt = useMemo(() => performance.now(), [batch]);
  const [event, setEvent] = useState<{ at: number; state: Omit<LiveState, 'live'> } | null>(null);
  const [subscription] = useSubscription(
    // A live query is a stream: urql sends it as a subscription is sent (SSE), the server answers it as one.
    { query: documentOf(ConsoleBatchLive), variables: { batchId: batch.id }, pause: !follow },
    (_previous, data) => {
      const fresh = data.batch;
      if (fresh) {
        const { status, stats, outcomes, windowState, pausedReason } = fresh;
        setEvent({ at: performance.now(), state: { status, stats, outcomes, windowState, pausedReason } });
      }
      return data;
    },
  );
  useEffect(() => {
    if (event) onEvent?.();
  }, [event]);
  const live = follow && !subscription.error && event !== null;
  if (event && event.at > readAt) return { ...event.state, live };
  return {
    status: batch.status,
    stats: batch.stats,
    outcomes: batch.outcomes,
    windowState: batch.windowState,
    pausedReason: batch.pausedReason,
    live,
  };
}

/** Calls `tick` every `ms` while the page is shown. */
export function useInterval(tick: () => void, ms: number) {
  useEffect(() => {
    const timer = setInterval(tick, ms);
    return () => clearInterval(timer);
  }, [tick, ms]);
}
