// Pieces every page uses: states (loading, empty, error), a batch's status,
// progress and outcomes, and its actions.
import type { CombinedError } from '@urql/core';
import { useMutation } from '@urql/preact';
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import {
  type AttemptsInterval,
  type BatchStatus,
  ConsoleRetryFailedRuns,
  ConsoleSetBatchStatus,
  type Outcomes,
  type Stats,
} from '../console-operations/console-operations.ts';
import { BarChart, OUTCOME_COLORS } from './chart.tsx';
import { documentOf } from './client.ts';
import { clock, count, plural } from './format.ts';
import { doneRuns, inFlight, isFinal, OUTCOME_FIELDS } from './pace.ts';
import { useMissingScope } from './scopes.ts';

export function Loading({ what }: { what: string }) {
  return (
    <p class="state loading" role="status">
      <span class="spinner" aria-hidden="true" /> Loading {what}…
    </p>
  );
}

export function Empty({ children }: { children: ComponentChildren }) {
  return <p class="state empty">{children}</p>;
}

/** What a failed request says: the GraphQL errors' messages, else the network's. */
export const errorMessage = (error: CombinedError) =>
  error.graphQLErrors.length > 0
    ? error.graphQLErrors.map((e) => e.message).join('; ')
    : (error.networkError?.message ?? error.message);

export function ErrorNote({ error, what, retry }: { error: CombinedError; what: string; retry?: () => void }) {
  return (
    <div class="state error" role="alert">
      <strong>Could not load {what}.</strong> <span class="message">{errorMessage(error)}</span>
      {retry && (
        <button type="button" class="link" onClick={retry}>
          Try again
        </button>
      )}
    </div>
  );
}

const STATUS_LABELS: Record<BatchStatus, string> = {
  PENDING: 'Pending',
  IN_PROGRESS: 'Calling',
  PAUSED: 'Paused',
  FINISHED: 'Finished',
  CANCELLED: 'Cancelled',
  FAILED: 'Failed',
};

export function StatusBadge({ status }: { status: BatchStatus }) {
  return (
    <span class={`badge status-${status.toLowerCase()}`} data-status={status} title={status}>
      {STATUS_LABELS[status]}
    </span>
  );
}

export function Progress({ stats, label }: { stats: Stats; label: string }) {
  const done = doneRuns(stats);
  return (
    <div class="progress">
      <progress
        max={Math.max(stats.totalCount, 1)}
        value={done}
        aria-label={`${label}: ${done} of ${stats.totalCount} runs done`}
      />
      <p class="counts">
        <strong>
          {count(done)} / {count(stats.totalCount)}
        </strong>{' '}
        done · {count(stats.inProgressCount)} calling · {count(stats.pendingCount)} waiting
        {stats.pausedCount > 0 && <> · {count(stats.pausedCount)} paused</>}
        {stats.failedCount > 0 && <> · {count(stats.failedCount)} failed</>}
      </p>
    </div>
  );
}

/** The attempts by outcome: a stacked bar and its legend with the counts. */
export function OutcomeBreakdown({ outcomes }: { outcomes: Outcomes }) {
  const flying = inFlight(outcomes);
  const parts = [
    ...OUTCOME_FIELDS.map(([field, label]) => ({ field, label, value: outcomes[field] })),
    { field: 'inFlight' as const, label: 'in flight', value: flying },
  ];
  return (
    <div class="outcomes">
      <div class="stack" aria-hidden="true">
        {parts.map(({ field, value }) =>
          value > 0 ? <span key={field} style={{ flexGrow: value, background: OUTCOME_COLORS[field] }} /> : null,
        )}
      </div>
      <ul class="legend" aria-label={`${plural(outcomes.attempts, 'call attempt')} by outcome`}>
        <li class="total">
          <span class="count">{count(outcomes.attempts)}</span> {outcomes.attempts === 1 ? 'attempt' : 'attempts'}
        </li>
        {parts.map(({ field, label, value }) =>
          field === 'inFlight' && value === 0 ? null : (
            <li key={field} class={`${field}${value === 0 ? ' zero' : ''}`}>
              <i style={{ background: OUTCOME_COLORS[field] }} aria-hidden="true" />
              <span class="count">{count(value)}</span> {label}
            </li>
          ),
        )}
      </ul>
    </div>
  );
}

/** Intervals a chart shows at least, when those before the batch existed are left out. */
const INTERVALS_AT_LEAST = 15;

interface TimelineChartProps {
  timeline: AttemptsInterval[];
  /** When the batch was created: the intervals that ended before are left out. */
  since: string;
  height: number;
  compact?: boolean;
  title: string;
}

/** Attempts per interval, stacked by outcome (those in flight on top). */
export function TimelineChart({ timeline: whole, since, height, compact, title }: TimelineChartProps) {
  const existed = whole.findIndex((interval) => interval.end > since);
  const timeline = whole.slice(
    Math.max(0, Math.min(whole.length - INTERVALS_AT_LEAST, existed < 0 ? whole.length : existed)),
  );
  const labels = timeline.map((interval) => clock(new Date(interval.start)));
  const total = timeline.reduce((sum, interval) => sum + interval.attempts, 0);
  const peak = timeline.reduce((max, interval) => Math.max(max, interval.attempts), 0);
  const datasets = [
    ...OUTCOME_FIELDS.map(([field, label]) => ({
      label,
      data: timeline.map((interval) => interval[field]),
      backgroundColor: OUTCOME_COLORS[field],
      borderRadius: 2,
    })),
    { label: 'in flight', data: timeline.map(inFlight), backgroundColor: OUTCOME_COLORS.inFlight, borderRadius: 2 },
  ];
  return (
    <BarChart
      labels={labels}
      datasets={datasets}
      stacked
      compact={compact}
      height={height}
      label={`${title}: ${plural(total, 'attempt')}, at most ${count(peak)} in one interval`}
    />
  );
}

export function Metric({ label, value, note, name }: { label: string; value: string; note?: string; name: string }) {
  return (
    <div class={`metric ${name}`}>
      <dt>{label}</dt>
      <dd>
        <span class="value">{value}</span>
        {note && <span class="note">{note}</span>}
      </dd>
    </div>
  );
}

/** Pause, resume, cancel (asked twice) and retry the failed runs; the change comes back through the live view. */
export function BatchActions({
  id,
  name,
  status,
  stats,
  onDone,
}: {
  id: string;
  name: string;
  status: BatchStatus;
  stats: Stats;
  onDone?: () => void;
}) {
  const [setStatus, runSetStatus] = useMutation(documentOf(ConsoleSetBatchStatus));
  const [retry, runRetry] = useMutation(documentOf(ConsoleRetryFailedRuns));
  const [confirmingCancel, setConfirmingCancel] = useState(false);
  // A key without the scope sees the controls disabled, the scope it lacks as their title.
  const lacksStatus = useMissingScope('Mutation.updateBatchStatus');
  const lacksRetry = useMissingScope('Mutation.retryFailedRuns');
  useEffect(() => {
    if (!confirmingCancel) return;
    const timer = setTimeout(() => setConfirmingCancel(false), 5000);
    return () => clearTimeout(timer);
  }, [confirmingCancel]);
  const busy = setStatus.fetching || retry.fetching;
  const error = setStatus.error ?? retry.error;
  const act = async (run: () => Promise<{ error?: CombinedError }>) => {
    const result = await run();
    if (!result.error) onDone?.();
  };
  return (
    <div class="actions">
      <div class="buttons">
        {status === 'PAUSED' ? (
          <button
            type="button"
            class="resume"
            disabled={busy || lacksStatus !== null}
            title={lacksStatus ?? undefined}
            aria-label={`Resume ${name}`}
            onClick={() => act(() => runSetStatus({ id, status: 'PENDING' }))}
          >
            Resume
          </button>
        ) : (
          <button
            type="button"
            class="pause"
            disabled={busy || lacksStatus !== null || !(status === 'PENDING' || status === 'IN_PROGRESS')}
            title={lacksStatus ?? undefined}
            aria-label={`Pause ${name}`}
            onClick={() => act(() => runSetStatus({ id, status: 'PAUSED' }))}
          >
            Pause
          </button>
        )}
        <button
          type="button"
          class="retry"
          disabled={busy || lacksRetry !== null || stats.failedCount === 0 || status === 'CANCELLED'}
          title={lacksRetry ?? undefined}
          aria-label={`Retry the failed runs of ${name}`}
          onClick={() => act(() => runRetry({ id }))}
        >
          Retry failed
        </button>
        <button
          type="button"
          class={`cancel danger${confirmingCancel ? ' confirming' : ''}`}
          disabled={busy || lacksStatus !== null || isFinal(status)}
          title={lacksStatus ?? undefined}
          aria-label={confirmingCancel ? `Confirm: cancel ${name} for good` : `Cancel ${name}`}
          onClick={() => {
            if (!confirmingCancel) return setConfirmingCancel(true);
            setConfirmingCancel(false);
            void act(() => runSetStatus({ id, status: 'CANCELLED' }));
          }}
        >
          {confirmingCancel ? 'Confirm cancel' : 'Cancel'}
        </button>
      </div>
      {error && (
        <p class="action-error" role="alert">
          {errorMessage(error)}
        </p>
      )}
    </div>
  );
}

/** One choice of a drop-down: a value shown as itself, or [value, what it shows]. */
type ChoiceOption<T extends string> = T | readonly [T, string];

/**
 * A filter's drop-down: its label over a <select> of `options`; `any` names a
 * first choice of no value, for "no filter".
 */
export function Choice<T extends string>({
  label,
  name,
  value,
  options,
  any,
  onChange,
}: {
  label: string;
  name?: string;
  value: T | '';
  options: readonly ChoiceOption<T>[];
  any?: string;
  onChange: (value: T | '') => void;
}) {
  return (
    <label>
      {label}
      <select name={name} value={value} onChange={(event) => onChange(event.currentTarget.value as T | '')}>
        {any !== undefined && <option value="">{any}</option>}
        {options.map((option) => {
          const [optionValue, text] = typeof option === 'string' ? [option, option] : option;
          return (
            <option key={optionValue} value={optionValue}>
              {text}
            </option>
          );
        })}
      </select>
    </label>
  );
}

/** Paging forward through a connection: back to its first page, or on past the last item shown. */
export function Pager({
  label,
  atFirst,
  hasNext,
  first,
  next,
}: {
  label: string;
  atFirst: boolean;
  hasNext: boolean;
  first: () => void;
  next: () => void;
}) {
  return (
    <nav class="pager" aria-label={label}>
      <button type="button" disabled={atFirst} onClick={first}>
        ← First
      </button>
      <button type="button" disabled={!hasNext} onClick={next}>
        Next →
      </button>
    </nav>
  );
}
