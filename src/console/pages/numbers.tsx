// Numbers: the organization's caller ids with how each fares (answer rate,
// short calls, voicemail over its latest attempts: PhoneNumber.health), and
// the rest/restore actions of POST /phone-numbers/{id}/rest and /restore, for
// an operator who sees a number's answers fall before carriers label it.
import { useMutation, useQuery } from '@urql/preact';
import { useCallback, useState } from 'preact/hooks';
import {
  ConsolePhoneNumbers,
  ConsoleRestorePhoneNumber,
  ConsoleRestPhoneNumber,
  type PhoneNumberRow,
} from '../../console-operations/console-operations.ts';
import { documentOf } from '../client.ts';
import { count, dateTime, percent } from '../format.ts';
import { useInterval } from '../live.ts';
import { useMissingScope } from '../scopes.ts';
import { Empty, ErrorNote, errorMessage, Loading, Pager } from '../ui.tsx';

const PAGE = 50;
/** Health moves with every call ended: the page reads it again this often. */
const REFRESH_MS = 15_000;
/** A rest from the console lasts a day; longer ones go through the API (1 to 720 hours). */
const REST_HOURS = 24;

export function NumbersPage() {
  const [page, setPage] = useState<{ after?: string; offset: number }>({ offset: 0 });
  const [result, reexecute] = useQuery({
    query: documentOf(ConsolePhoneNumbers),
    variables: { first: PAGE, ...(page.after ? { after: page.after } : {}) },
  });
  const refresh = useCallback(() => reexecute({ requestPolicy: 'network-only' }), [reexecute]);
  useInterval(refresh, REFRESH_MS);
  const numbers = result.data?.phoneNumbers;
  return (
    <section class="page numbers-page" aria-labelledby="numbers-title">
      <header class="page-header">
        <div>
          <h1 id="numbers-title">Numbers</h1>
          <p class="subtitle">
            {numbers ? `${count(numbers.totalCount)} caller ids · health over each one's latest calls` : ' '}
          </p>
        </div>
      </header>
      {result.error && !numbers ? (
        <ErrorNote error={result.error} what="the phone numbers" retry={refresh} />
      ) : !numbers ? (
        <Loading what="phone numbers" />
      ) : numbers.nodes.length === 0 ? (
        <Empty>No phone numbers yet: add them to a SIP trunk (POST /org/{'{org_id}'}/phone-numbers).</Empty>
      ) : (
        <section class="card">
          <table class="numbers-table">
            <thead>
              <tr>
                <th scope="col">Number</th>
                <th scope="col">Trunk</th>
                <th scope="col">Calls (24 h)</th>
                <th scope="col">Answered</th>
                <th scope="col">Short calls</th>
                <th scope="col">Voicemail</th>
                <th scope="col">State</th>
                <th scope="col">
                  <span class="visually-hidden">Action</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {numbers.nodes.map((number) => (
                <NumberRow key={number.id} number={number} onChanged={refresh} />
              ))}
            </tbody>
          </table>
          <Pager
            label="Number pages"
            atFirst={page.offset === 0}
            hasNext={numbers.pageInfo.hasNextPage}
            first={() => setPage({ offset: 0 })}
            next={() =>
              setPage({
                after: numbers.pageInfo.endCursor ?? undefined,
                offset: page.offset + numbers.nodes.length,
              })
            }
          />
        </section>
      )}
    </section>
  );
}

function NumberRow({ number, onChanged }: { number: PhoneNumberRow; onChanged: () => void }) {
  const [rest, runRest] = useMutation(documentOf(ConsoleRestPhoneNumber));
  const [restore, runRestore] = useMutation(documentOf(ConsoleRestorePhoneNumber));
  const { health } = number;
  const resting = health.restedUntil !== null;
  const lacks = useMissingScope(resting ? 'Mutation.restorePhoneNumber' : 'Mutation.restPhoneNumber');
  const failed = rest.error ?? restore.error;
  return (
    <tr class="phone-number" data-number-id={number.id} data-resting={resting}>
      <td data-label="Number">
        <strong class="number">{number.number}</strong>
        {number.label && <span class="muted small"> {number.label}</span>}
      </td>
      <td data-label="Trunk">{number.trunkName}</td>
      <td data-label="Calls (24 h)">{count(health.attemptsToday)}</td>
      <td data-label="Answered" class="answer-rate">
        {percent(health.answerRate)}
      </td>
      <td data-label="Short calls" class="short-call-rate">
        {percent(health.shortCallRate)}
      </td>
      <td data-label="Voicemail">{percent(health.voicemailShare)}</td>
      <td data-label="State" class="number-state">
        {resting ? (
          <span class="badge status-paused">
            Resting until {dateTime(health.restedUntil)} ({health.restedReason})
          </span>
        ) : (
          <span class="badge status-finished">In use</span>
        )}
      </td>
      <td data-label="Action">
        <button
          type="button"
          disabled={rest.fetching || restore.fetching || lacks !== null}
          title={lacks ?? undefined}
          aria-label={`${resting ? 'Restore' : 'Rest'} ${number.number}`}
          onClick={async () => {
            const done = resting
              ? await runRestore({ id: number.id })
              : await runRest({ id: number.id, hours: REST_HOURS });
            if (!done.error) onChanged();
          }}
        >
          {resting ? 'Restore' : `Rest ${REST_HOURS} h`}
        </button>
        {failed && (
          <span class="action-error" role="alert">
            {errorMessage(failed)}
          </span>
        )}
      </td>
    </tr>
  );
}
