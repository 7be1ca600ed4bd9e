// A batch's state as the newest of two sources: the page's query, and the
// batchProgress subscription (SSE) while it is followed.
import { useSubscription } from '@urql/preact';
import { useEffect, useMemo, useState } from 'preact/hooks';
import {
  type BatchCard,
  ConsoleBatchProgress,
  type Outcomes,
  type Stats,
} from '../console-operations/console-operations.ts';
import { documentOf } from './client.ts';

export type LiveState = Pick<BatchCard, 'status' | 'stats' | 'outcomes' | 'windowState' | 'pausedReason'> & {
  live: boolean;
};

/** The batch as last read, overridden by each progress event that arrives after that read. */
export function useLiveBatch(batch: BatchCard, follow: boolean, onEvent?: () => void): LiveState {
  const readAt = useMemo(() => performance.now(), [batch]);
  const [event, setEvent] = useState<{ at: number; state: Omit<LiveState, 'live'> } | null>(null);
  const [subscription] = useSubscription(
    { query: documentOf(ConsoleBatchProgress), variables: { batchId: batch.id }, pause: !follow },
    (_previous, data) => {
      const { status, stats, batch: fresh } = data.batchProgress;
      setEvent({
        at: performance.now(),
        state: {
          status,
          stats: stats as Stats,
          outcomes: fresh.outcomes as Outcomes,
          windowState: fresh.windowState,
          pausedReason: fresh.pausedReason,
        },
      });
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
