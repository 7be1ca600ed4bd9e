// What the console works out from a batch's numbers: its answer rate, how
// fast it is calling and when it will be done at that pace.
import type { AttemptsInterval, BatchStatus, Outcomes, Stats } from '../console-operations/console-operations.ts';

/** The outcome fields and their labels, in the order they are shown and stacked. */
export const OUTCOME_FIELDS = [
  ['answered', 'answered'],
  ['noAnswer', 'no answer'],
  ['busy', 'busy'],
  ['voicemail', 'voicemail'],
  ['ivr', 'IVR'],
  ['callScreening', 'call screening'],
  ['failed', 'failed'],
] as const satisfies readonly (readonly [keyof Outcomes, string])[];

const ended = (outcomes: Outcomes) => OUTCOME_FIELDS.reduce((sum, [field]) => sum + outcomes[field], 0);

/** Attempts still in flight (started, no outcome yet). */
export const inFlight = (outcomes: Outcomes) => Math.max(0, outcomes.attempts - ended(outcomes));

/** Answered attempts among those that ended; null before any ended. */
export function answerRate(outcomes: Outcomes): number | null {
  const total = ended(outcomes);
  return total > 0 ? outcomes.answered / total : null;
}

/** Runs that have not ended (waiting, calling or paused). */
const remainingRuns = (stats: Stats) => stats.pendingCount + stats.inProgressCount + stats.pausedCount;

export const doneRuns = (stats: Stats) => stats.finishedCount + stats.failedCount + stats.cancelledCount;

export const isFinal = (status: BatchStatus) => status === 'FINISHED' || status === 'CANCELLED' || status === 'FAILED';

export const PACE_MINUTES = 10;

/**
 * Attempts per minute over the intervals of the last `minutes` of a
 * minute-by-minute timeline, from the first of them with an attempt (a batch
 * that started 30 s ago is measured over those 30 s, counted as a minute at
 * least); 0 when nothing was attempted then, null without a timeline.
 */
export function attemptsPerMinute(timeline: AttemptsInterval[], now: number, minutes = PACE_MINUTES): number | null {
  const since = now - minutes * 60_000;
  const recent = timeline.filter((interval) => Date.parse(interval.end) > since && Date.parse(interval.start) <= now);
  if (recent.length === 0) return null;
  const first = recent.find((interval) => interval.attempts > 0);
  if (!first) return 0;
  // Whole intervals are counted, so the time is measured from the first one's start.
  const elapsedMinutes = Math.max(1, (now - Date.parse(first.start)) / 60_000);
  return recent.reduce((sum, interval) => sum + interval.attempts, 0) / elapsedMinutes;
}

/** "12/min", "1.5/min", "0/min", or "—" without a timeline. */
export const paceText = (perMinute: number | null) =>
  perMinute === null ? '—' : `${perMinute === 0 || perMinute >= 10 ? Math.round(perMinute) : perMinute.toFixed(1)}/min`;

export type Eta =
  | { kind: 'done' }
  | { kind: 'stopped'; why: string }
  | { kind: 'unknown'; why: string }
  | { kind: 'at'; ms: number };

/**
 * When the batch will be done at the current pace: its remaining runs, each
 * taking as many attempts as its ended runs took on average (retries count),
 * at the attempts per minute of the last minutes.
 */
export function eta(
  status: BatchStatus,
  stats: Stats,
  outcomes: Outcomes,
  perMinute: number | null,
  windowState: string | null,
): Eta {
  const remaining = remainingRuns(stats);
  if (isFinal(status) || remaining === 0) return { kind: 'done' };
  if (status === 'PAUSED') return { kind: 'stopped', why: 'paused' };
  if (windowState) return { kind: 'stopped', why: 'window closed' };
  if (!perMinute) return { kind: 'unknown', why: `no calls in the last ${PACE_MINUTES} min` };
  const done = doneRuns(stats);
  const attemptsPerRun = done > 0 ? Math.max(1, ended(outcomes) / done) : 1;
  return { kind: 'at', ms: ((remaining * attemptsPerRun) / perMinute) * 60_000 };
}
