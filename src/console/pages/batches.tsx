// Batches: every batch of the organization, newest first, with its progress
// (live for the first unfinished ones), outcomes, attempts per minute over
// the last hour, answer rate and ETA; filters by workflow and status.
import { useQuery } from '@urql/preact';
import { useCallback, useState } from 'preact/hooks';
import {
  type BatchCard,
  type BatchStatus,
  ConsoleBatches,
  ConsoleWorkflows,
} from '../../console-operations/console-operations.ts';
import { documentOf } from '../client.ts';
import { count, dateTime, etaText, percent } from '../format.ts';
import { useInterval, useLiveBatch } from '../live.ts';
import { answerRate, attemptsPerMinute, eta, isFinal, PACE_MINUTES, paceText } from '../pace.ts';
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

const STATUSES: BatchStatus[] = ['PENDING', 'IN_PROGRESS', 'PAUSED', 'FINISHED', 'CANCELLED', 'FAILED'];
/** Subscriptions open at once: each is an HTTP connection, and a browser opens 6 per server. */
const FOLLOWED_AT_MOST = 4;
const PAGE = 20;
const REFRESH_MS = 10_000;

export function BatchesPage() {
  const [workflowId, setWorkflowId] = useState('');
  const [status, setStatus] = useState<BatchStatus | ''>('');
  const [first, setFirst] = useState(PAGE);
  const [workflows] = useQuery({ query: documentOf(ConsoleWorkflows) });
  const [batches, reexecute] = useQuery({
    query: documentOf(ConsoleBatches),
    variables: { workflowId: workflowId || null, status: status || null, first },
  });
  const refresh = useCallback(() => reexecute({ requestPolicy: 'network-only' }), [reexecute]);
  // New batches appear, and the last hour's chart moves on.
  useInterval(refresh, REFRESH_MS);

  const nodes = batches.data?.batches.nodes ?? [];
  const followed = new Set(
    nodes
      .filter((batch) => !isFinal(batch.status))
      .slice(0, FOLLOWED_AT_MOST)
      .map((batch) => batch.id),
  );
  const filtered = workflowId !== '' || status !== '';

  return (
    <section class="page batches-page" aria-labelledby="batches-title">
      <header class="page-header">
        <div>
          <h1 id="batches-title">Batches</h1>
          <p class="subtitle">
            {batches.data ? `${count(batches.data.batches.totalCount)} ${filtered ? 'matching' : 'in all'}` : ' '}
          </p>
        </div>
        <form class="filters" onSubmit={(event) => event.preventDefault()}>
          <Choice
            label="Workflow"
            value={workflowId}
            options={(workflows.data?.workflows.nodes ?? []).map((workflow) => [workflow.id, workflow.name] as const)}
            any="All workflows"
            onChange={(value) => {
              setWorkflowId(value);
              setFirst(PAGE);
            }}
          />
          <Choice
            label="Status"
            value={status}
            options={STATUSES}
            any="Any status"
            onChange={(value) => {
              setStatus(value);
              setFirst(PAGE);
            }}
          />
        </form>
      </header>
      {batches.error && !batches.data ? (
        <ErrorNote error={batches.error} what="the batches" retry={refresh} />
      ) : !batches.data ? (
        <Loading what="batches" />
      ) : nodes.length === 0 ? (
        <Empty>
          {filtered
            ? 'No batch matches these filters.'
            : 'No batches yet: create one with the createBatch mutation or POST /org/{org_id}/workflows/{workflow_id}/batches.'}
        </Empty>
      ) : (
        <>
          <div class="batch-list">
            {nodes.map((batch) => (
              <BatchCardView key={batch.id} batch={batch} follow={followed.has(batch.id)} onChanged={refresh} />
            ))}
          </div>
          {batches.data.batches.pageInfo.hasNextPage && first < 100 && (
            <button
              type="button"
              class="more"
              onClick={() => setFirst(Math.min(100, first + PAGE))}
              disabled={batches.fetching}
            >
              Show more batches
            </button>
          )}
        </>
      )}
    </section>
  );
}

function BatchCardView({ batch, follow, onChanged }: { batch: BatchCard; follow: boolean; onChanged: () => void }) {
  const state = useLiveBatch(batch, follow);
  const perMinute = attemptsPerMinute(batch.lastHour, Date.now());
  const until = etaText(eta(state.status, state.stats, state.outcomes, perMinute, state.windowState));
  return (
    <article class="card batch-card" data-batch-id={batch.id} aria-labelledby={`batch-${batch.id}`}>
      <div class="card-main">
        <header class="card-title">
          <h2 id={`batch-${batch.id}`}>
            <a href={hrefOf({ page: 'batch', id: batch.id })}>{batch.name}</a>
          </h2>
          <StatusBadge status={state.status} />
          {state.live && (
            <span class="live" title="Updated live">
              live
            </span>
          )}
        </header>
        <p class="meta">
          <span class="workflow">{batch.workflow.name}</span> · created {dateTime(batch.createdAt)}
        </p>
        {state.pausedReason && <p class="note paused-reason">{state.pausedReason}</p>}
        {state.windowState && <p class="note window-state">{state.windowState}</p>}
        <Progress stats={state.stats} label={batch.name} />
        <OutcomeBreakdown outcomes={state.outcomes} />
      </div>
      <div class="card-chart">
        <h3>Attempts per minute, last hour</h3>
        <TimelineChart
          timeline={batch.lastHour}
          since={batch.createdAt}
          height={96}
          compact
          title={`Attempts per minute of ${batch.name} over the last hour`}
        />
      </div>
      <div class="card-side">
        <dl class="metrics">
          <Metric name="answer-rate" label="Answer rate" value={percent(answerRate(state.outcomes))} />
          <Metric name="pace" label="Pace" value={paceText(perMinute)} note={`last ${PACE_MINUTES} min`} />
          <Metric name="eta" label="ETA" value={until.value} note={until.note} />
        </dl>
        <BatchActions id={batch.id} name={batch.name} status={state.status} stats={state.stats} onDone={onChanged} />
      </div>
    </article>
  );
}
