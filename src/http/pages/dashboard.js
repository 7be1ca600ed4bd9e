// The live batch page: the organization's batches with progress bars, call
// outcomes, window state and paused reason kept up to date by the
// batchProgress subscription (over SSE); pause, resume, cancel and
// retry-failed buttons; a batch's name opens its runs with their call
// attempts. Text from the API is only ever set as textContent. The API key
// stays in this tab's sessionStorage.
const KEY = 'gateway.apiKey';
const FINAL = new Set(['FINISHED', 'CANCELLED', 'FAILED']);
const OUTCOMES = [
  ['answered', 'answered'],
  ['noAnswer', 'no answer'],
  ['busy', 'busy'],
  ['voicemail', 'voicemail'],
  ['failed', 'failed'],
];
const RUNS_PAGE = 50;
const statusLine = document.querySelector('#status');
const table = document.querySelector('#batches');
const rows = new Map(); // batch id -> { row, stop, runs: the drill-down row while open }
let refreshTimer = null;

const key = () => sessionStorage.getItem(KEY);

async function graphql(query, variables = {}) {
  const response = await fetch('/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key() },
    body: JSON.stringify({ query, variables }),
  });
  const body = await response.json();
  if (body.errors) throw new Error(body.errors.map((error) => error.message).join('; '));
  return body.data;
}

/** An element of `tag` with a class and text (set as text, never parsed). */
function element(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

const STATS = 'stats { pendingCount inProgressCount pausedCount finishedCount cancelledCount failedCount totalCount }';
// The list, polled for new batches, leaves out the outcomes (one count per
// batch): each row's subscription delivers them with its first event.
const BATCHES = `query Batches { organization { name } workflows(first: 50) { nodes { name batches(first: 20) { nodes {
  id name status ${STATS} } } } } }`;
const PROGRESS = `subscription BatchProgress($id: ID!) { batchProgress(batchId: $id) { status ${STATS}
  batch { outcomes { attempts answered noAnswer busy voicemail failed } windowState pausedReason } } }`;
const RUNS = `query BatchRuns($id: ID!, $after: String) { batch(id: $id) {
  runs(first: ${RUNS_PAGE}, after: $after, orderBy: STARTED_DESC) { totalCount pageInfo { endCursor hasNextPage } nodes {
    id status attempts lastOutcome reason error nextAttemptAt prospect { firstName lastName phone }
    callAttempts { number startedAt endedAt outcome reason fromNumber toNumber durationSeconds } } } } }`;

function renderProgress(row, status, stats) {
  const done = stats.finishedCount + stats.failedCount + stats.cancelledCount;
  row.querySelector('.status').textContent = status;
  row.querySelector('.status').className = `status ${status}`;
  const bar = row.querySelector('progress');
  bar.max = Math.max(stats.totalCount, 1);
  bar.value = done;
  row.querySelector('.counts').textContent =
    `${done}/${stats.totalCount} done · ${stats.inProgressCount} calling · ${stats.pendingCount} waiting · ` +
    `${stats.pausedCount} paused · ${stats.failedCount} failed`;
  row.querySelector('.pause').disabled = !['PENDING', 'IN_PROGRESS'].includes(status);
  row.querySelector('.resume').disabled = status !== 'PAUSED';
  row.querySelector('.cancel').disabled = FINAL.has(status);
  row.querySelector('.retry').disabled = stats.failedCount === 0 || status === 'CANCELLED';
}

function renderCampaign(row, { outcomes, windowState, pausedReason }) {
  row.querySelector('.paused-reason').textContent = pausedReason ?? '';
  row.querySelector('.window-state').textContent = windowState ?? '';
  row.querySelector('.attempts').textContent = `${outcomes.attempts} ${outcomes.attempts === 1 ? 'attempt' : 'attempts'}`;
  for (const [field] of OUTCOMES) {
    const item = row.querySelector(`.outcomes .${field}`);
    item.querySelector('.count').textContent = String(outcomes[field]);
    item.classList.toggle('zero', outcomes[field] === 0);
  }
}

/** Follows one batch's progress over SSE until the row goes away. */
function follow(batchId, row) {
  const controller = new AbortController();
  (async () => {
    const response = await fetch('/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'x-api-key': key() },
      body: JSON.stringify({ query: PROGRESS, variables: { id: batchId } }),
      signal: controller.signal,
    });
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let buffer = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      let end;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const event = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const data = event.split('\n').find((line) => line.startsWith('data:'));
        if (!data) continue;
        const progress = JSON.parse(data.slice(5)).data?.batchProgress;
        if (!progress) continue;
        renderProgress(row, progress.status, progress.stats);
        renderCampaign(row, progress.batch);
      }
    }
  })().catch(() => {});
  return () => controller.abort();
}

/** Runs a mutation; its effect arrives through the subscription, a refusal shows in the status line. */
async function act(query, variables) {
  try {
    await graphql(query, variables);
  } catch (error) {
    statusLine.textContent = error.message;
  }
}

const setStatus = (batchId, status) =>
  act('mutation SetBatchStatus($id: ID!, $status: BatchStatus!) { updateBatchStatus(id: $id, status: $status) { id } }', { id: batchId, status });
const retryFailed = (batchId) => act('mutation RetryFailedRuns($id: ID!) { retryFailedRuns(id: $id) { id } }', { id: batchId });

const outcomeLabel = (outcome) => outcome.replaceAll('_', ' ');
const time = (iso) => (iso ? new Date(iso).toLocaleTimeString() : '');

function attemptItem(attempt) {
  const parts = [
    attempt.outcome ? outcomeLabel(attempt.outcome) : 'in flight',
    `${time(attempt.startedAt)}${attempt.endedAt ? ` → ${time(attempt.endedAt)}` : ''}`,
  ];
  if (attempt.durationSeconds !== null) parts.push(`${attempt.durationSeconds} s`);
  parts.push(`to ${attempt.toNumber}${attempt.fromNumber ? ` from ${attempt.fromNumber}` : ''}`);
  if (attempt.reason) parts.push(attempt.reason);
  const item = element('li', 'attempt');
  item.append(element('span', 'number', `#${attempt.number}`), ' ', element('span', `outcome ${attempt.outcome ?? ''}`, parts.join(' · ')));
  return item;
}

function runItem(run) {
  const item = element('li', 'run');
  item.dataset.runId = run.id;
  const name = `${run.prospect.firstName} ${run.prospect.lastName}`.trim() || '(no name)';
  const notes = [`${run.attempts} ${run.attempts === 1 ? 'attempt' : 'attempts'}`];
  if (run.lastOutcome) notes.push(`last ${outcomeLabel(run.lastOutcome)}`);
  if (run.reason) notes.push(run.reason);
  if (run.error) notes.push(run.error);
  if (run.nextAttemptAt && ['PENDING', 'PAUSED'].includes(run.status)) notes.push(`next attempt ${new Date(run.nextAttemptAt).toLocaleString()}`);
  const head = element('div', 'run-head');
  head.append(
    element('span', 'prospect', name),
    ' ',
    element('span', 'phone', run.prospect.phone),
    ' ',
    element('span', `status ${run.status}`, run.status),
    ' ',
    element('span', 'note', notes.join(' · ')),
  );
  const attempts = element('ol', 'call-attempts');
  attempts.append(...run.callAttempts.map(attemptItem));
  item.append(head, attempts);
  return item;
}

/** Opens the batch's runs under its row, or closes them when open. */
function toggleRuns(batchId) {
  const entry = rows.get(batchId);
  const nameButton = entry.row.querySelector('.name button');
  if (entry.runs) {
    entry.runs.remove();
    entry.runs = null;
    nameButton.setAttribute('aria-expanded', 'false');
    return;
  }
  const detail = element('tr', 'runs-row');
  detail.dataset.runsOf = batchId;
  const cell = element('td');
  cell.colSpan = entry.row.cells.length;
  const summary = element('p', 'runs-summary', 'Loading runs…');
  const list = element('ol', 'runs');
  const more = element('button', 'more', 'More runs');
  more.type = 'button';
  more.hidden = true;
  cell.append(summary, list, more);
  detail.append(cell);
  entry.row.after(detail);
  entry.runs = detail;
  nameButton.setAttribute('aria-expanded', 'true');

  let after = null;
  const load = async () => {
    more.disabled = true;
    try {
      const { batch } = await graphql(RUNS, { id: batchId, after });
      const page = batch.runs;
      list.append(...page.nodes.map(runItem));
      after = page.pageInfo.endCursor;
      more.hidden = !page.pageInfo.hasNextPage;
      summary.textContent = `${list.children.length} of ${page.totalCount} runs, not started first, then the latest started (as of ${new Date().toLocaleTimeString()}; reopen to refresh)`;
    } catch (error) {
      summary.textContent = `Could not load runs: ${error.message}`;
    } finally {
      more.disabled = false;
    }
  };
  more.addEventListener('click', load);
  load();
}

function addRow(batch, workflowName) {
  const row = document.createElement('tr');
  row.dataset.batchId = batch.id;
  // A fixed template: the data goes in below, as text.
  row.innerHTML = `<td class="name"><button type="button" aria-expanded="false" title="Show its runs"></button></td>
    <td class="workflow"></td>
    <td><span class="status"></span><div class="note paused-reason"></div><div class="note window-state"></div></td>
    <td><progress value="0" max="1"></progress></td><td class="counts"></td>
    <td class="calls"><div class="attempts">…</div><ul class="outcomes"></ul></td>
    <td class="actions"><button class="pause">Pause</button> <button class="resume">Resume</button>
      <button class="cancel">Cancel</button> <button class="retry">Retry failed</button></td>`;
  row.querySelector('.name button').textContent = batch.name;
  row.querySelector('.workflow').textContent = workflowName;
  const outcomes = row.querySelector('.outcomes');
  for (const [field, label] of OUTCOMES) {
    const item = element('li', field);
    item.append(element('span', 'count', '–'), ` ${label}`);
    outcomes.append(item);
  }
  row.querySelector('.name button').addEventListener('click', () => toggleRuns(batch.id));
  row.querySelector('.pause').addEventListener('click', () => setStatus(batch.id, 'PAUSED'));
  row.querySelector('.resume').addEventListener('click', () => setStatus(batch.id, 'PENDING'));
  row.querySelector('.cancel').addEventListener('click', () => setStatus(batch.id, 'CANCELLED'));
  row.querySelector('.retry').addEventListener('click', () => retryFailed(batch.id));
  table.tBodies[0].append(row);
  renderProgress(row, batch.status, batch.stats);
  rows.set(batch.id, { row, stop: follow(batch.id, row), runs: null });
}

async function refresh() {
  try {
    const data = await graphql(BATCHES);
    statusLine.textContent = `Connected to ${data.organization.name}.`;
    table.hidden = false;
    for (const workflow of data.workflows.nodes) {
      for (const batch of workflow.batches.nodes) if (!rows.has(batch.id)) addRow(batch, workflow.name);
    }
  } catch (error) {
    statusLine.textContent = `Could not load batches: ${error.message}`;
  }
}

function connect() {
  for (const { row, stop, runs } of rows.values()) {
    stop();
    row.remove();
    runs?.remove();
  }
  rows.clear();
  clearInterval(refreshTimer);
  if (!key()) {
    statusLine.textContent = 'Enter an API key.';
    table.hidden = true;
    return;
  }
  refresh();
  // New batches appear on their own; existing ones are live already.
  refreshTimer = setInterval(refresh, 5000);
}

document.querySelector('#key-form').addEventListener('submit', (event) => {
  event.preventDefault();
  sessionStorage.setItem(KEY, document.querySelector('#api-key').value.trim());
  connect();
});
document.querySelector('#forget').addEventListener('click', () => {
  sessionStorage.removeItem(KEY);
  document.querySelector('#api-key').value = '';
  connect();
});
connect();
