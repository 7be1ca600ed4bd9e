// Webhooks: the organization's event endpoints, each with its latest
// deliveries (status, attempts, the last answer) and a replay button.
import { useMutation, useQuery } from '@urql/preact';
import { useCallback } from 'preact/hooks';
import {
  ConsoleReplayWebhookDelivery,
  ConsoleWebhookEndpoints,
  type WebhookDeliveryRow,
  type WebhookEndpointRow,
} from '../../console-operations/console-operations.ts';
import { documentOf } from '../client.ts';
import { count, dateTime } from '../format.ts';
import { useInterval } from '../live.ts';
import { useMissingScope } from '../scopes.ts';
import { Empty, ErrorNote, errorMessage, Loading } from '../ui.tsx';

/** Deliveries move on their own (retries, the worker): the page reads them again this often. */
const REFRESH_MS = 10_000;

export function WebhooksPage() {
  const [result, reexecute] = useQuery({ query: documentOf(ConsoleWebhookEndpoints) });
  const refresh = useCallback(() => reexecute({ requestPolicy: 'network-only' }), [reexecute]);
  useInterval(refresh, REFRESH_MS);
  const endpoints = result.data?.webhookEndpoints;
  return (
    <section class="page webhooks-page" aria-labelledby="webhooks-title">
      <header class="page-header">
        <div>
          <h1 id="webhooks-title">Webhooks</h1>
          <p class="subtitle">
            {endpoints
              ? `${count(endpoints.totalCount)} ${endpoints.totalCount === 1 ? 'endpoint' : 'endpoints'} · events signed per Standard Webhooks`
              : ' '}
          </p>
        </div>
      </header>
      {result.error && !endpoints ? (
        <ErrorNote error={result.error} what="the webhook endpoints" retry={refresh} />
      ) : !endpoints ? (
        <Loading what="webhook endpoints" />
      ) : endpoints.nodes.length === 0 ? (
        <Empty>
          No webhook endpoints yet: add one with the createWebhookEndpoint mutation or POST /org/{'{org_id}'}
          /webhook-endpoints.
        </Empty>
      ) : (
        endpoints.nodes.map((endpoint) => <EndpointView key={endpoint.id} endpoint={endpoint} onReplayed={refresh} />)
      )}
    </section>
  );
}

function endpointState(endpoint: WebhookEndpointRow): { label: string; tone: string } {
  if (endpoint.disabledAt) return { label: `Disabled ${dateTime(endpoint.disabledAt)} (kept failing)`, tone: 'failed' };
  if (!endpoint.enabled) return { label: 'Disabled', tone: 'cancelled' };
  if (endpoint.failingSince) return { label: `Failing since ${dateTime(endpoint.failingSince)}`, tone: 'paused' };
  return { label: 'Enabled', tone: 'finished' };
}

function EndpointView({ endpoint, onReplayed }: { endpoint: WebhookEndpointRow; onReplayed: () => void }) {
  const state = endpointState(endpoint);
  return (
    <article class="card endpoint" data-endpoint-id={endpoint.id} aria-labelledby={`endpoint-${endpoint.id}`}>
      <header class="card-title spread">
        <h2 id={`endpoint-${endpoint.id}`} class="endpoint-url">
          {endpoint.url}
        </h2>
        <span class={`badge status-${state.tone}`}>{state.label}</span>
      </header>
      {endpoint.description && <p class="blurb">{endpoint.description}</p>}
      <ul class="event-types" aria-label="Events sent here">
        {endpoint.events.map((type) => (
          <li key={type} class="tag">
            {type === '*' ? 'every event' : type}
          </li>
        ))}
      </ul>
      <h3>
        Latest deliveries ({endpoint.deliveries.nodes.length} of {count(endpoint.deliveries.totalCount)})
      </h3>
      {endpoint.deliveries.nodes.length === 0 ? (
        <p class="muted">No events delivered here yet.</p>
      ) : (
        <table class="deliveries-table">
          <thead>
            <tr>
              <th scope="col">Event</th>
              <th scope="col">Status</th>
              <th scope="col">Attempts</th>
              <th scope="col">Last answer</th>
              <th scope="col">Happened</th>
              <th scope="col">
                <span class="visually-hidden">Replay</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {endpoint.deliveries.nodes.map((delivery) => (
              <DeliveryRow key={delivery.id} delivery={delivery} onReplayed={onReplayed} />
            ))}
          </tbody>
        </table>
      )}
    </article>
  );
}

const DELIVERY_TONES = { delivered: 'finished', pending: 'in_progress', failed: 'failed' } as const;

function DeliveryRow({ delivery, onReplayed }: { delivery: WebhookDeliveryRow; onReplayed: () => void }) {
  const [replay, runReplay] = useMutation(documentOf(ConsoleReplayWebhookDelivery));
  const lacksReplay = useMissingScope('Mutation.replayWebhookDelivery');
  const answer = [
    delivery.lastResponseCode !== null ? `HTTP ${delivery.lastResponseCode}` : null,
    delivery.latencyMs !== null ? `${delivery.latencyMs} ms` : null,
    delivery.lastError,
  ].filter(Boolean);
  return (
    <tr class="delivery" data-delivery-id={delivery.id}>
      <td data-label="Event">
        <span class="event-type">{delivery.eventType}</span> <span class="muted small">{delivery.eventId}</span>
      </td>
      <td data-label="Status">
        <span class={`badge status-${DELIVERY_TONES[delivery.status]}`} data-status={delivery.status}>
          {delivery.status}
        </span>
        {delivery.status === 'pending' && delivery.nextAttemptAt && (
          <span class="muted small"> next {dateTime(delivery.nextAttemptAt)}</span>
        )}
      </td>
      <td data-label="Attempts">{delivery.attempts}</td>
      <td data-label="Last answer" class="answer">
        {answer.length ? answer.join(' · ') : <span class="muted">none yet</span>}
      </td>
      <td data-label="Happened">{dateTime(delivery.createdAt)}</td>
      <td data-label="Replay">
        <button
          type="button"
          class="replay"
          disabled={delivery.status === 'pending' || replay.fetching || lacksReplay !== null}
          title={lacksReplay ?? undefined}
          aria-label={`Replay ${delivery.eventType} ${delivery.eventId}`}
          onClick={async () => {
            const result = await runReplay({ id: delivery.id });
            if (!result.error) onReplayed();
          }}
        >
          Replay
        </button>
        {replay.error && (
          <span class="action-error" role="alert">
            {errorMessage(replay.error)}
          </span>
        )}
      </td>
    </tr>
  );
}
