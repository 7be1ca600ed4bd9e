// One run: its prospect and state, and each call attempt with what its agent
// worker reported (RunAttempt.record): the transcript as a conversation, the
// detection, the disposition, the summary, the evaluations and the recording.
// Everything reported is shown as text (never as HTML): it comes from the
// callee's words and the worker's analysis.
import { useQuery } from '@urql/preact';
import type { ComponentChildren } from 'preact';
import {
  type CallRecordView,
  type ConsentView,
  ConsoleAgentEvaluations,
  ConsoleRun,
  type RunDetail,
  type TranscriptTurn,
} from '../../console-operations/console-operations.ts';
import { documentOf } from '../client.ts';
import { dateTime, outcomeLabel, percent, plural, time } from '../format.ts';
import { hrefOf } from '../route.ts';
import { Empty, ErrorNote, Loading, StatusBadge } from '../ui.tsx';

export function RunPage({ id }: { id: string }) {
  const [result, reexecute] = useQuery({ query: documentOf(ConsoleRun), variables: { id } });
  const retry = () => reexecute({ requestPolicy: 'network-only' });
  if (result.error && !result.data) return <ErrorNote error={result.error} what="the run" retry={retry} />;
  if (!result.data) return <Loading what="the run" />;
  const run = result.data.run;
  if (!run) {
    return (
      <section class="page">
        <nav class="breadcrumb" aria-label="Breadcrumb">
          <a href={hrefOf({ page: 'batches' })}>Batches</a>
        </nav>
        <Empty>No run {id} in this organization.</Empty>
      </section>
    );
  }
  return <RunView run={run} />;
}

const nameOf = (run: RunDetail) => `${run.prospect.firstName} ${run.prospect.lastName}`.trim() || '(no name)';

function RunView({ run }: { run: RunDetail }) {
  const name = nameOf(run);
  return (
    <section class="page run-page" data-run-id={run.id} aria-labelledby="run-title">
      <nav class="breadcrumb" aria-label="Breadcrumb">
        <a href={hrefOf({ page: 'batches' })}>Batches</a> <span aria-hidden="true">/</span>{' '}
        <a href={hrefOf({ page: 'batch', id: run.batch.id })}>{run.batch.name}</a> <span aria-hidden="true">/</span>{' '}
        <span aria-current="page">{name}</span>
      </nav>
      <header class="page-header">
        <div>
          <h1 id="run-title">
            {name} <StatusBadge status={run.status} />
          </h1>
          <p class="subtitle">
            {run.prospect.phone} · {plural(run.attempts, 'attempt')}
            {run.startedAt && ` · started ${dateTime(run.startedAt)}`}
            {run.lastOutcome && ` · last ${outcomeLabel(run.lastOutcome)}`}
          </p>
          {[run.reason, run.error].filter(Boolean).map((note) => (
            <p key={note} class="note">
              {note}
            </p>
          ))}
        </div>
      </header>
      <ConsentsView consents={run.prospect.consents} />
      {run.callAttempts.length === 0 ? (
        <Empty>No call attempt yet.</Empty>
      ) : (
        run.callAttempts.map((attempt) => (
          <article
            key={attempt.number}
            class="card attempt"
            data-attempt={attempt.number}
            aria-labelledby={`attempt-${attempt.number}`}
          >
            <header class="card-title spread">
              <h2 id={`attempt-${attempt.number}`}>Attempt {attempt.number}</h2>
              <p class="subtitle">
                <span class={`outcome outcome-${attempt.outcome ?? 'in-flight'}`}>
                  {attempt.outcome ? outcomeLabel(attempt.outcome) : 'in flight'}
                </span>{' '}
                · {time(attempt.startedAt)}
                {attempt.endedAt && ` → ${time(attempt.endedAt)}`}
                {attempt.durationSeconds !== null && ` · ${attempt.durationSeconds} s`} · to {attempt.toNumber}
                {attempt.reason && ` · ${attempt.reason}`}
                {attempt.consent && ` · consent ${attempt.consent.scope}`}
              </p>
            </header>
            {attempt.record ? (
              <RecordView record={attempt.record} />
            ) : (
              <Empty>The agent worker reported no record of this call.</Empty>
            )}
          </article>
        ))
      )}
    </section>
  );
}

/** The prospect's consent history, newest entry first: consents, and revocations. */
function ConsentsView({ consents }: { consents: ConsentView[] }) {
  return (
    <section class="card consents" aria-labelledby="consents-title">
      <h2 id="consents-title">Consents</h2>
      {consents.length === 0 ? (
        <Empty>No consent recorded.</Empty>
      ) : (
        <ul>
          {consents.map((entry) => (
            <li key={entry.id} data-consent={entry.id}>
              {entry.revokedAt ? 'Revoked' : 'Consent'} · {entry.scope} · {entry.source} ·{' '}
              {dateTime(entry.revokedAt ?? entry.capturedAt)}
              {entry.expiresAt && ` · expires ${dateTime(entry.expiresAt)}`}
              {entry.evidence && (
                <>
                  {' · '}
                  {httpsUrl(entry.evidence) ? (
                    <a href={entry.evidence} rel="noreferrer noopener" target="_blank">
                      evidence
                    </a>
                  ) : (
                    entry.evidence
                  )}
                </>
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/** The recording's address when it is https (the gateway accepts no other), else null: shown as text then. */
function httpsUrl(value: string | null): string | null {
  if (!value) return null;
  try {
    return new URL(value).protocol === 'https:' ? value : null;
  } catch {
    return null;
  }
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

interface Fact {
  name: string;
  label: string;
  value: ComponentChildren;
}

function RecordView({ record }: { record: CallRecordView }) {
  const recording = httpsUrl(record.recordingUrl);
  const { detection, disposition, latency, transfer } = record;
  const facts = (
    [
      detection && {
        name: 'detection',
        label: 'Detection',
        value: `${detection.result.replace('_', ' ')} · ${percent(detection.confidence)} sure · at ${seconds(detection.detectedMs)}`,
      },
      disposition && {
        name: 'disposition',
        label: 'Disposition',
        value: (
          <span
            class={`category category-${disposition.category}`}
          >{`${disposition.label} (${disposition.category})`}</span>
        ),
      },
      record.sentiment !== null && { name: 'sentiment', label: 'Sentiment', value: record.sentiment.toFixed(2) },
      record.endedBy && { name: 'ended-by', label: 'Ended by', value: record.endedBy },
      latency && {
        name: 'latency',
        label: 'Response time',
        value: `p50 ${latency.p50Ms} ms · p95 ${latency.p95Ms} ms`,
      },
      record.callbackAt && { name: 'callback', label: 'Call back', value: dateTime(record.callbackAt) },
      transfer && { name: 'transfer', label: 'Transfer', value: `to ${transfer.to} · ${transfer.status}` },
    ] as (Fact | null | false | '')[]
  ).filter((fact): fact is Fact => Boolean(fact));
  return (
    <div class="record">
      {facts.length > 0 && (
        <dl class="pairs record-facts">
          {facts.map(({ name, label, value }) => (
            <div key={name} class={name}>
              <dt>{label}</dt>
              <dd>{value}</dd>
            </div>
          ))}
        </dl>
      )}
      {record.summary && (
        <section class="summary" aria-label="Summary">
          <h3>Summary</h3>
          <p>{record.summary}</p>
        </section>
      )}
      {record.recordingUrl && (
        <p class="recording">
          {recording ? (
            <a href={recording} target="_blank" rel="noopener noreferrer">
              Listen to the recording
            </a>
          ) : (
            <span class="muted">Recording (not https, not linked): {record.recordingUrl}</span>
          )}
        </p>
      )}
      <Transcript turns={record.transcript} />
      {record.evaluations.length > 0 && <Evaluations record={record} />}
    </div>
  );
}

const SPEAKERS: Record<string, string> = { agent: 'Agent', callee: 'Callee', system: 'System' };

function Transcript({ turns }: { turns: TranscriptTurn[] }) {
  if (turns.length === 0) return <p class="muted transcript-empty">No transcript reported.</p>;
  return (
    <section class="conversation" aria-label="Transcript">
      <h3>Transcript</h3>
      <ol class="transcript">
        {turns.map((turn, index) => (
          <li key={`${turn.startedMs} ${index}`} class={`turn turn-${SPEAKERS[turn.role] ? turn.role : 'system'}`}>
            <span class="speaker">
              {SPEAKERS[turn.role] ?? turn.role} · {seconds(turn.startedMs)}
            </span>
            <p class="text">{turn.text}</p>
          </li>
        ))}
      </ol>
    </section>
  );
}

/** The record's scores, each under its evaluation's title (read from its agent, by number; the number while loading). */
function Evaluations({ record }: { record: CallRecordView }) {
  const [agent] = useQuery({ query: documentOf(ConsoleAgentEvaluations), variables: { id: record.agentId } });
  const titles = new Map(agent.data?.agent?.evaluations.nodes.map((node) => [node.databaseId, node.title]) ?? []);
  return (
    <section class="evaluations" aria-label="Evaluations">
      <h3>Evaluations</h3>
      <ul class="evaluation-results">
        {record.evaluations.map((evaluation) => (
          <li
            key={evaluation.evaluationId}
            data-evaluation-id={evaluation.evaluationId}
            class={evaluation.passed ? 'passed' : 'failed'}
          >
            <span class="verdict">{evaluation.passed ? 'passed' : 'failed'}</span>{' '}
            <span class="evaluation">
              {titles.get(evaluation.evaluationId) || `Evaluation ${evaluation.evaluationId}`}
            </span>{' '}
            <span class="score">{evaluation.score}/100</span>
            {evaluation.reason && <span class="reason"> · {evaluation.reason}</span>}
          </li>
        ))}
      </ul>
    </section>
  );
}
