// Calls found by the words said (Query.callRecords: PostgreSQL's full-text
// search over transcripts and summaries, in the organization's language,
// best match first) and by disposition, category, detection and time; each
// opens its run's page.
import { useQuery } from '@urql/preact';
import { useState } from 'preact/hooks';
import {
  type CallRecordFilter,
  ConsoleCallRecords,
  type FoundCallRecord,
} from '../../console-operations/console-operations.ts';
import { documentOf } from '../client.ts';
import { count, dateTime } from '../format.ts';
import { hrefOf } from '../route.ts';
import { Choice, Empty, ErrorNote, Loading, Pager } from '../ui.tsx';

const PAGE = 25;
const CATEGORIES = ['success', 'neutral', 'issue'];
const DETECTIONS = ['human', 'voicemail', 'ivr', 'call_screening', 'unavailable'];

/** A `datetime-local` value as RFC 3339, or nothing when empty. */
const instant = (local: string) => (local ? new Date(local).toISOString() : undefined);

interface Form {
  search: string;
  disposition: string;
  category: string;
  detection: string;
  from: string;
  to: string;
}

const blank: Form = { search: '', disposition: '', category: '', detection: '', from: '', to: '' };

/** The filter the form asks for: empty fields are left out. */
function filterOf(form: Form): CallRecordFilter {
  const filter: CallRecordFilter = {};
  if (form.search.trim()) filter.search = form.search.trim();
  if (form.disposition.trim()) filter.disposition = form.disposition.trim();
  if (form.category) filter.category = form.category;
  if (form.detection) filter.detection = form.detection;
  if (form.from) filter.from = instant(form.from);
  if (form.to) filter.to = instant(form.to);
  return filter;
}

export function CallsPage() {
  const [form, setForm] = useState<Form>(blank);
  // What was searched: the form is sent when submitted, not at each key.
  const [asked, setAsked] = useState<{ filter: CallRecordFilter; after?: string; offset: number }>({
    filter: {},
    offset: 0,
  });
  const [result, reexecute] = useQuery({
    query: documentOf(ConsoleCallRecords),
    variables: { ...asked.filter, first: PAGE, ...(asked.after ? { after: asked.after } : {}) },
  });
  const field = (name: keyof Form) => (event: { currentTarget: { value: string } }) =>
    setForm({ ...form, [name]: event.currentTarget.value });
  const found = result.data?.callRecords;
  return (
    <section class="page calls-page" aria-labelledby="calls-title">
      <header class="page-header">
        <div>
          <h1 id="calls-title">Calls</h1>
          <p class="subtitle">Find calls by what was said, and by how they ended.</p>
        </div>
      </header>
      <form
        class="card filters calls-filters"
        aria-label="Search calls"
        onSubmit={(event) => {
          event.preventDefault();
          setAsked({ filter: filterOf(form), offset: 0 });
        }}
      >
        <label class="words">
          Words said
          <input
            type="search"
            name="search"
            placeholder='demo, "call me back", -voicemail'
            value={form.search}
            onInput={field('search')}
          />
        </label>
        <label>
          Disposition
          <input type="text" name="disposition" value={form.disposition} onInput={field('disposition')} />
        </label>
        <Choice
          label="Category"
          name="category"
          value={form.category}
          options={CATEGORIES}
          any="Any"
          onChange={(category) => setForm({ ...form, category })}
        />
        <Choice
          label="Detection"
          name="detection"
          value={form.detection}
          options={DETECTIONS.map((value) => [value, value.replace('_', ' ')] as const)}
          any="Any"
          onChange={(detection) => setForm({ ...form, detection })}
        />
        <label>
          From
          <input type="datetime-local" name="from" value={form.from} onInput={field('from')} />
        </label>
        <label>
          To
          <input type="datetime-local" name="to" value={form.to} onInput={field('to')} />
        </label>
        <button type="submit" class="primary">
          Search
        </button>
      </form>
      <section class="card calls" aria-labelledby="found-title">
        <header class="card-title spread">
          <h2 id="found-title">{asked.filter.search ? `Calls mentioning “${asked.filter.search}”` : 'Latest calls'}</h2>
          <p class="subtitle calls-summary" aria-live="polite">
            {found
              ? found.nodes.length
                ? `${count(asked.offset + 1)}–${count(asked.offset + found.nodes.length)} of ${count(found.totalCount)}`
                : `0 of ${count(found.totalCount)}`
              : ''}
          </p>
        </header>
        {result.error && !found ? (
          <ErrorNote error={result.error} what="the calls" retry={() => reexecute({ requestPolicy: 'network-only' })} />
        ) : !found ? (
          <Loading what="calls" />
        ) : found.nodes.length === 0 ? (
          <Empty>No call matches.</Empty>
        ) : (
          <>
            <ol class="found-calls" aria-busy={result.fetching}>
              {found.nodes.map((record) => (
                <FoundCall key={record.id} record={record} />
              ))}
            </ol>
            <Pager
              label="Calls pages"
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

function FoundCall({ record }: { record: FoundCallRecord }) {
  return (
    <li class="found-call" data-record-id={record.id} data-run-id={record.runId}>
      <a class="open" href={hrefOf({ page: 'run', id: record.runId })}>
        {dateTime(record.createdAt)} · attempt {record.attemptNumber}
      </a>
      {record.disposition && (
        <span class={`category category-${record.disposition.category}`}> · {record.disposition.label}</span>
      )}
      {record.detection && <span class="muted"> · {record.detection.result.replace('_', ' ')}</span>}
      {record.summary && <p class="summary">{record.summary}</p>}
    </li>
  );
}
