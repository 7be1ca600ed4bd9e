// One batch: its live state, answer rate, pace and ETA, its outcomes over
// time, its campaign settings, and its runs (the runs listing's filters, sort and paging)
// with each run's call attempts.
import { useQuery } from '@urql/preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import {
  type BatchDetail,
  ConsoleBatch,
  ConsoleBatchRuns,
  type RunFilter,
  type RunOrder,
  type RunRow,
  type RunStatus,
} from '../../console-operations/console-operations.ts';
import { documentOf } from '../client.ts';
import { count, dateTime, duration, etaText, outcomeLabel, percent, plural, time } from '../format.ts';
import { useLiveBatch } from '../live.ts';
import { answerRate, attemptsPerMinute, eta, PACE_MINUTES, paceText } from '../pace.ts';
import { RecordBreakdownCharts } from '../record-breakdown.tsx';
import { hrefOf } from '../route.ts';
import {
  BatchActions,
  Choice,
  Empty,
  ErrorNote,
  Loading,
  Metric,
  OutcomeBreakdown,
  Progress,
  StatusBadge,
  TimelineChart,
} from '../ui.tsx';

const RANGES = [
  { label: 'Last hour', minutes: 60, intervalMinutes: 1 },
  { label: 'Last 24 hours', minutes: 1440, intervalMinutes: 15 },
  { label: 'Last 7 days', minutes: 10080, intervalMinutes: 120 },
] as const;

/** Progress events come up to 10 a second; the charts and runs are read again at most this often. */
const REREAD_MS = 3000;

/** Calls `work` at most once per `ms`, the last call always honoured. */
function useThrottled(work: () => void, ms: number) {
  const last = useRef(0);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  useEffect(() => () => void (timer.current && clearTimeout(timer.current)), []);
  return useCallback(() => {
    if (timer.current) return;
    const wait = Math.max(0, last.current + ms - Date.now());
    timer.current = setTimeout(() => {
      timer.current = null;
      last.current = Date.now();
      work();
    }, wait);
  }, [work, ms]);
}

export function BatchPage({ id }: { id: string }) {
  const [range, setRange] = useState(0);
  const { minutes, intervalMinutes } = RANGES[range]!;
  const [result, reexecute] = useQuery({
    query: documentOf(ConsoleBatch),
    variables: { id, minutes, intervalMinutes },
  });
  const [runsVersion, setRunsVersion] = useState(0);
  const reread = useCallback(() => {
    reexecute({ requestPolicy: 'network-only' });
    setRunsVersion((version) => version + 1);
  }, [reexecute]);
  const throttledReread = useThrottled(reread, REREAD_MS);

  if (result.error && !result.data) return <ErrorNote error={result.error} what="the batch" retry={reread} />;
  if (!result.data) return <Loading what="the batch" />;
  const batch = result.data.batch;
  if (!batch) {
    return (
      <section class="page">
        <Breadcrumb name="Not found" />
        <Empty>No batch {id} in this organization.</Empty>
      </section>
    );
  }
  return (
    <BatchView
      batch={batch}
      range={range}
      onRange={setRange}
      onProgress={throttledReread}
      onChanged={reread}
      runsVersion={runsVersion}
    />
  );
}

function Breadcrumb({ name }: { name: string }) {
  return (
    <nav class="breadcrumb" aria-label="Breadcrumb">
      <a href={hrefOf({ page: 'batches' })}>Batches</a> <span aria-hidden="true">/</span>{' '}
      <span aria-current="page">{name}</span>
    </nav>
  );
}

interface BatchViewProps {
  batch: BatchDetail;
  range: number;
  onRange: (range: number) => void;
  onProgress: () => void;
  onChanged: () => void;
  runsVersion: number;
}

function BatchView({ batch, range, onRange, onProgress, onChanged, runsVersion }: BatchViewProps) {
  const state = useLiveBatch(batch, true, onProgress);
  const perMinute = attemptsPerMinute(batch.lastHour, Date.now());
  const until = etaText(eta(state.status, state.stats, state.outcomes, perMinute, state.windowState));
  const done =
    state.stats.totalCount - state.stats.pendingCount - state.stats.inProgressCount - state.stats.pausedCount;
  return (
    <section class="page batch-page" data-batch-id={batch.id} aria-labelledby="batch-title">
      <Breadcrumb name={batch.name} />
      <header class="page-header">
        <div>
          <h1 id="batch-title">
            {batch.name} <StatusBadge status={state.status} />
            {state.live && (
              <span class="live" title="Updated live">
                live
              </span>
            )}
          </h1>
          <p class="subtitle">
            {batch.workflow.name} v{batch.workflowVersionNumber} · created {dateTime(batch.createdAt)} ·{' '}
            {plural(batch.totalProspects, 'prospect')}
          </p>
          {state.pausedReason && <p class="note paused-reason">{state.pausedReason}</p>}
          {state.windowState && <p class="note window-state">{state.windowState}</p>}
        </div>
        <BatchActions id={batch.id} name={batch.name} status={state.status} stats={state.stats} onDone={onChanged} />
      </header>

      <dl class="metrics tiles" aria-live="polite">
        <Metric
          name="done"
          label="Done"
          value={percent(state.stats.totalCount ? done / state.stats.totalCount : 0)}
          note={`${count(done)} of ${count(state.stats.totalCount)} runs`}
        />
        <Metric
          name="answer-rate"
          label="Answer rate"
          value={percent(answerRate(state.outcomes))}
          note={`${count(state.outcomes.answered)} answered`}
        />
        <Metric name="pace" label="Pace" value={paceText(perMinute)} note={`attempts, last ${PACE_MINUTES} min`} />
        <Metric name="eta" label="ETA" value={until.value} note={until.note} />
      </dl>

      <div class="columns">
        <div class="card">
          <h2>Progress</h2>
          <Progress stats={state.stats} label={batch.name} />
          <OutcomeBreakdown outcomes={state.outcomes} />
        </div>
        <Settings batch={batch} />
      </div>

      <div class="card">
        <header class="card-title spread">
          <h2>Outcomes over time</h2>
          {/* biome-ignore lint/a11y/useSemanticElements: toggle buttons, not a form section: a fieldset
              would want a legend and bring its own box (padding, min-width) to undo. */}
          <div class="segmented" role="group" aria-label="Time range">
            {RANGES.map((option, index) => (
              <button key={option.label} type="button" aria-pressed={index === range} onClick={() => onRange(index)}>
                {option.label}
              </button>
            ))}
          </div>
        </header>
        <TimelineChart
          timeline={batch.history}
          since={batch.createdAt}
          height={220}
          title={`Call attempts of ${batch.name} by outcome, ${RANGES[range]!.label.toLowerCase()}, every ${duration(RANGES[range]!.intervalMinutes * 60_000)}`}
        />
      </div>

      <div class="card call-records">
        <header class="card-title spread">
          <h2>Call records</h2>
          <p class="subtitle">{plural(batch.recordBreakdown.records, 'record')} reported</p>
        </header>
        <RecordBreakdownCharts breakdown={batch.recordBreakdown} batchName={batch.name} />
      </div>

      <Runs batchId={batch.id} version={runsVersion} />
    </section>
  );
}

function Settings({ batch }: { batch: BatchDetail }) {
  const window = batch.callingWindow;
  const rows: [string, string][] = [
    [
      'Calling window',
      window ? `${window.days.join(', ')} · ${window.start}–${window.end} · ${window.timezone}` : 'Any time',
    ],
    ['Concurrency', batch.maxConcurrency === null ? 'Unbounded' : `${count(batch.maxConcurrency)} calls at once`],
    ['Pace limit', batch.callsPerSecond === null ? 'Unpaced' : `${batch.callsPerSecond} calls per second`],
    [
      'Retry',
      batch.retry.maxAttempts <= 1
        ? 'No retries'
        : `Up to ${batch.retry.maxAttempts} attempts on ${batch.retry.on.map(outcomeLabel).join(', ')}, ${duration(batch.retry.delaySeconds * 1000)} apart`,
    ],
    [
      'Circuit breaker',
      batch.autoPause
        ? `Pauses at ${percent(batch.autoPause.failureRate)} failed of the last ${batch.autoPause.window}`
        : 'Off',
    ],
    ['Scheduled', batch.scheduledAt ? dateTime(batch.scheduledAt) : 'At once'],
  ];
  return (
    <div class="card settings">
      <h2>Settings</h2>
      <dl class="pairs">
        {rows.map(([label, value]) => (
          <div key={label}>
            <dt>{label}</dt>
            <dd>{value}</dd>
          </div>
        ))}
      </dl>
    </div>
  );
}

const RUN_STATUSES: RunStatus[] = ['PENDING', 'IN_PROGRESS', 'PAUSED', 'FINISHED', 'CANCELLED', 'FAILED'];
const ORDERS: [RunOrder, string][] = [
  ['STARTED_DESC', 'Latest started first'],
  ['STARTED_ASC', 'Earliest started first'],
  ['STATUS_ASC', 'Status, pending first'],
  ['STATUS_DESC', 'Status, failed first'],
];
const RUNS_PAGE = 25;

/** A `datetime-local` value as RFC 3339, or nothing when empty. */
const instant = (local: string) => (local ? new Date(local).toISOString() : undefined);

/** A page of runs: its cursor, and where it starts in the list. */
type Page = { after?: string; before?: string; last?: number; offset: number };

function Runs({ batchId, version }: { batchId: string; version: number }) {
  const [status, setStatus] = useState<RunStatus | ''>('');
  const [after, setAfter] = useState('');
  const [before, setBefore] = useState('');
  const [orderBy, setOrderBy] = useState<RunOrder>('STARTED_DESC');
  const [page, setPage] = useState<Page>({ offset: 0 });
  const filter: RunFilter = {
    ...(status ? { status } : {}),
    ...(after ? { startedAfter: instant(after) } : {}),
    ...(before ? { startedBefore: instant(before) } : {}),
  };
  const [result, reexecute] = useQuery({
    query: documentOf(ConsoleBatchRuns),
    variables: {
      id: batchId,
      filter,
      orderBy,
      ...(page.last ? { last: page.last, before: page.before } : { first: RUNS_PAGE, after: page.after }),
    },
  });
  useEffect(() => {
    if (version > 0) reexecute({ requestPolicy: 'network-only' });
  }, [version]);
  const restart =
    <T,>(set: (value: T) => void) =>
    (value: T) => {
      set(value);
      setPage({ offset: 0 });
    };
  const runs = result.data?.batch?.runs;
  // Where the rows shown start: the page asked for only once its rows are in.
  const [offset, setOffset] = useState(0);
  useEffect(() => setOffset(page.offset), [runs]);
  return (
    <section class="card runs" aria-labelledby="runs-title">
      <header class="card-title spread">
        <h2 id="runs-title">Runs</h2>
        <p class="subtitle runs-summary" aria-live="polite">
          {runs
            ? runs.nodes.length
              ? `${count(offset + 1)}–${count(offset + runs.nodes.length)} of ${count(runs.totalCount)}`
              : `0 of ${count(runs.totalCount)}`
            : ''}
        </p>
      </header>
      <form class="filters runs-filters" onSubmit={(event) => event.preventDefault()}>
        <Choice
          label="Status"
          name="status"
          value={status}
          options={RUN_STATUSES}
          any="Any status"
          onChange={restart(setStatus)}
        />
        <Choice
          label="Sort"
          name="order"
          value={orderBy}
          options={ORDERS}
          onChange={(value) => value && restart(setOrderBy)(value)}
        />
        <label class="started">
          Started after
          <input
            type="datetime-local"
            name="started-after"
            value={after}
            onChange={(event) => restart(setAfter)(event.currentTarget.value)}
          />
        </label>
        <label class="started">
          Started before
          <input
            type="datetime-local"
            name="started-before"
            value={before}
            onChange={(event) => restart(setBefore)(event.currentTarget.value)}
          />
        </label>
      </form>
      {result.error && !runs ? (
        <ErrorNote error={result.error} what="the runs" retry={() => reexecute({ requestPolicy: 'network-only' })} />
      ) : !runs ? (
        <Loading what="runs" />
      ) : runs.nodes.length === 0 ? (
        <Empty>No run matches these filters.</Empty>
      ) : (
        <>
          <table class="runs-table" aria-busy={result.fetching}>
            <thead>
              <tr>
                <th scope="col">Prospect</th>
                <th scope="col">Status</th>
                <th scope="col">Attempts</th>
                <th scope="col">Started</th>
                <th scope="col">Step</th>
                <th scope="col">Notes</th>
              </tr>
            </thead>
            {runs.nodes.map((run) => (
              <RunRowView key={run.id} run={run} />
            ))}
          </table>
          <nav class="pager" aria-label="Runs pages">
            <button
              type="button"
              disabled={!runs.pageInfo.hasPreviousPage || offset === 0}
              onClick={() => {
                setPage({
                  last: RUNS_PAGE,
                  before: runs.pageInfo.startCursor ?? undefined,
                  offset: Math.max(0, offset - RUNS_PAGE),
                });
              }}
            >
              ← Previous
            </button>
            <button
              type="button"
              disabled={!runs.pageInfo.hasNextPage}
              onClick={() => {
                setPage({ after: runs.pageInfo.endCursor ?? undefined, offset: offset + runs.nodes.length });
              }}
            >
              Next →
            </button>
          </nav>
        </>
      )}
    </section>
  );
}

function RunRowView({ run }: { run: RunRow }) {
  const [open, setOpen] = useState(false);
  const name = `${run.prospect.firstName} ${run.prospect.lastName}`.trim() || '(no name)';
  const notes = [
    run.lastOutcome && `last ${outcomeLabel(run.lastOutcome)}`,
    run.reason,
    run.error,
    run.nextAttemptAt &&
      (run.status === 'PENDING' || run.status === 'PAUSED') &&
      `next attempt ${dateTime(run.nextAttemptAt)}`,
  ].filter(Boolean);
  return (
    <tbody class="run" data-run-id={run.id}>
      <tr>
        <td data-label="Prospect">
          <a class="prospect" href={hrefOf({ page: 'run', id: run.id })}>
            {name}
          </a>{' '}
          <span class="phone">{run.prospect.phone}</span>
        </td>
        <td data-label="Status">
          <StatusBadge status={run.status} />
        </td>
        <td data-label="Attempts">
          {run.callAttempts.length > 0 ? (
            <button type="button" class="link attempts-toggle" aria-expanded={open} onClick={() => setOpen(!open)}>
              {plural(run.attempts, 'attempt')} {open ? '▴' : '▾'}
            </button>
          ) : (
            <span class="muted">{plural(run.attempts, 'attempt')}</span>
          )}
        </td>
        <td data-label="Started">{run.startedAt ? dateTime(run.startedAt) : <span class="muted">not yet</span>}</td>
        <td data-label="Step" class="step">
          {run.currentStepId ?? '—'}
        </td>
        <td data-label="Notes" class="note">
          {notes.join(' · ')}
        </td>
      </tr>
      {open && (
        <tr class="attempts-row">
          <td colSpan={6}>
            <ol class="call-attempts" aria-label={`Call attempts of ${name}`}>
              {run.callAttempts.map((attempt) => (
                <li key={attempt.number}>
                  <span class="number">#{attempt.number}</span>
                  <span class={`outcome outcome-${attempt.outcome ?? 'in-flight'}`}>
                    {attempt.outcome ? outcomeLabel(attempt.outcome) : 'in flight'}
                  </span>
                  <span class="when">
                    {time(attempt.startedAt)}
                    {attempt.endedAt && ` → ${time(attempt.endedAt)}`}
                  </span>
                  {attempt.durationSeconds !== null && <span>{attempt.durationSeconds} s</span>}
                  <span>
                    to {attempt.toNumber}
                    {attempt.fromNumber && ` from ${attempt.fromNumber}`}
                  </span>
                  {attempt.reason && <span class="reason">{attempt.reason}</span>}
                </li>
              ))}
            </ol>
          </td>
        </tr>
      )}
    </tbody>
  );
}
