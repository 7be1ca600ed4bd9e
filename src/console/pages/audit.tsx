// The organization's audit trail (Query.auditEvents, `keys:admin`): who
// changed what, when and from where, newest first, by object, key, operation
// and time; an update shows its members before and after (secrets masked by
// the server).
import { useQuery } from '@urql/preact';
import { useState } from 'preact/hooks';
import {
  type AuditEventFilter,
  ConsoleAuditEvents,
  type ListedAuditEvent,
} from '../../console-operations/console-operations.ts';
import { documentOf } from '../client.ts';
import { count, dateTime } from '../format.ts';
import { Empty, ErrorNote, Loading, Pager } from '../ui.tsx';

const PAGE = 25;

/** A `datetime-local` value as RFC 3339, or nothing when empty. */
const instant = (local: string) => (local ? new Date(local).toISOString() : undefined);

interface Form {
  resourceId: string;
  keyId: string;
  operation: string;
  from: string;
  to: string;
}

const blank: Form = { resourceId: '', keyId: '', operation: '', from: '', to: '' };

/** The filter the form asks for: empty fields are left out. */
function filterOf(form: Form): AuditEventFilter {
  const filter: AuditEventFilter = {};
  for (const name of ['resourceId', 'keyId', 'operation'] as const)
    if (form[name].trim()) filter[name] = form[name].trim();
  if (form.from) filter.from = instant(form.from);
  if (form.to) filter.to = instant(form.to);
  return filter;
}

export function AuditPage() {
  const [form, setForm] = useState<Form>(blank);
  const [asked, setAsked] = useState<{ filter: AuditEventFilter; after?: string; offset: number }>({
    filter: {},
    offset: 0,
  });
  const [result, reexecute] = useQuery({
    query: documentOf(ConsoleAuditEvents),
    variables: { ...asked.filter, first: PAGE, ...(asked.after ? { after: asked.after } : {}) },
  });
  const field = (name: keyof Form) => (event: { currentTarget: { value: string } }) =>
    setForm({ ...form, [name]: event.currentTarget.value });
  const found = result.data?.auditEvents;
  return (
    <section class="page audit-page" aria-labelledby="audit-title">
      <header class="page-header">
        <div>
          <h1 id="audit-title">Audit</h1>
          <p class="subtitle">Who changed what, when, and from where (needs a key with keys:admin).</p>
        </div>
      </header>
      <form
        class="card filters audit-filters"
        aria-label="Filter audit events"
        onSubmit={(event) => {
          event.preventDefault();
          setAsked({ filter: filterOf(form), offset: 0 });
        }}
      >
        <label>
          Object id
          <input
            type="text"
            name="resourceId"
            placeholder="agt_…"
            value={form.resourceId}
            onInput={field('resourceId')}
          />
        </label>
        <label>
          Key id
          <input type="text" name="keyId" placeholder="key_…" value={form.keyId} onInput={field('keyId')} />
        </label>
        <label>
          Operation
          <input
            type="text"
            name="operation"
            placeholder="updateAgent"
            value={form.operation}
            onInput={field('operation')}
          />
        </label>
        <label>
          From
          <input type="datetime-local" name="from" value={form.from} onInput={field('from')} />
        </label>
        <label>
          To
          <input type="datetime-local" name="to" value={form.to} onInput={field('to')} />
        </label>
        <button type="submit" class="primary">
          Filter
        </button>
      </form>
      <section class="card audit-events" aria-labelledby="events-title">
        <header class="card-title spread">
          <h2 id="events-title">Latest changes</h2>
          <p class="subtitle" aria-live="polite">
            {found
              ? found.nodes.length
                ? `${count(asked.offset + 1)}–${count(asked.offset + found.nodes.length)} of ${count(found.totalCount)}`
                : `0 of ${count(found.totalCount)}`
              : ''}
          </p>
        </header>
        {result.error && !found ? (
          <ErrorNote
            error={result.error}
            what="the audit trail"
            retry={() => reexecute({ requestPolicy: 'network-only' })}
          />
        ) : !found ? (
          <Loading what="audit events" />
        ) : found.nodes.length === 0 ? (
          <Empty>No change matches.</Empty>
        ) : (
          <>
            <ol class="found-calls" aria-busy={result.fetching}>
              {found.nodes.map((event) => (
                <AuditEventItem key={event.id} event={event} />
              ))}
            </ol>
            <Pager
              label="Audit pages"
              atFirst={asked.offset === 0}
              hasNext={found.pageInfo.hasNextPage}
              first={() => setAsked({ filter: asked.filter, offset: 0 })}
              next={() =>
                setAsked({
                  filter: asked.filter,
                  after: found.pageInfo.endCursor ?? undefined,
                  offset: asked.offset + found.nodes.length,
                })
              }
            />
          </>
        )}
      </section>
    </section>
  );
}

const shown = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));

function AuditEventItem({ event }: { event: ListedAuditEvent }) {
  return (
    <li class="found-call" data-audit-event-id={event.id}>
      <strong>{event.operation}</strong> {event.resourceType && `${event.resourceType} ${event.resourceId ?? ''}`}
      <span class="muted">
        {' '}
        · {dateTime(event.at)} · {event.keyName ?? event.keyId ?? 'CLI'}
        {event.sourceIp && ` · ${event.sourceIp}`}
      </span>
      {event.changes && (
        <ul class="summary">
          {Object.entries(event.changes).map(([member, { before, after }]) => (
            <li key={member}>
              {member}: {shown(before)} → {shown(after)}
            </li>
          ))}
        </ul>
      )}
    </li>
  );
}
