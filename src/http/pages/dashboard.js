// The live batch page: the organization's batches with progress bars kept up
// to date by the batchProgress subscription (over SSE), and pause, resume and
// cancel buttons. The API key stays in this tab's sessionStorage.
const KEY = 'gateway.apiKey';
const FINAL = new Set(['FINISHED', 'CANCELLED', 'FAILED']);
const statusLine = document.querySelector('#status');
const table = document.querySelector('#batches');
const rows = new Map(); // batch id -> { row, stop }
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

const BATCHES = `query Batches { organization { name } workflows(first: 50) { nodes { name batches(first: 20) { nodes {
  id name status stats { pendingCount inProgressCount pausedCount finishedCount cancelledCount failedCount totalCount } } } } } }`;

function render(row, batch) {
  const { stats } = batch;
  const done = stats.finishedCount + stats.failedCount + stats.cancelledCount;
  row.querySelector('.status').textContent = batch.status;
  row.querySelector('.status').className = `status ${batch.status}`;
  const bar = row.querySelector('progress');
  bar.max = Math.max(stats.totalCount, 1);
  bar.value = done;
  row.querySelector('.counts').textContent =
    `${done}/${stats.totalCount} done · ${stats.inProgressCount} calling · ${stats.pendingCount} waiting · ` +
    `${stats.pausedCount} paused · ${stats.failedCount} failed`;
  row.querySelector('.pause').disabled = !['PENDING', 'IN_PROGRESS'].includes(batch.status);
  row.querySelector('.resume').disabled = batch.status !== 'PAUSED';
  row.querySelector('.cancel').disabled = FINAL.has(batch.status);
}

/** Follows one batch's progress over SSE until the row goes away. */
function follow(batchId, row) {
  const controller = new AbortController();
  (async () => {
    const response = await fetch('/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'x-api-key': key() },
      body: JSON.stringify({
        query: `subscription($id: ID!) { batchProgress(batchId: $id) { status stats {
          pendingCount inProgressCount pausedCount finishedCount cancelledCount failedCount totalCount } } }`,
        variables: { id: batchId },
      }),
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
        const message = JSON.parse(data.slice(5));
        if (message.data?.batchProgress) render(row, message.data.batchProgress);
      }
    }
  })().catch(() => {});
  return () => controller.abort();
}

async function setStatus(batchId, status) {
  try {
    await graphql('mutation($id: ID!, $status: BatchStatus!) { updateBatchStatus(id: $id, status: $status) { id } }', { id: batchId, status });
  } catch (error) {
    statusLine.textContent = error.message;
  }
}

function addRow(batch, workflowName) {
  const row = document.createElement('tr');
  row.dataset.batchId = batch.id;
  row.innerHTML = `<td class="name"></td><td class="workflow"></td><td class="status"></td>
    <td><progress value="0" max="1"></progress></td><td class="counts"></td>
    <td><button class="pause">Pause</button> <button class="resume">Resume</button> <button class="cancel">Cancel</button></td>`;
  row.querySelector('.name').textContent = batch.name;
  row.querySelector('.workflow').textContent = workflowName;
  row.querySelector('.pause').addEventListener('click', () => setStatus(batch.id, 'PAUSED'));
  row.querySelector('.resume').addEventListener('click', () => setStatus(batch.id, 'PENDING'));
  row.querySelector('.cancel').addEventListener('click', () => setStatus(batch.id, 'CANCELLED'));
  table.tBodies[0].append(row);
  render(row, batch);
  rows.set(batch.id, { row, stop: follow(batch.id, row) });
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
  for (const { row, stop } of rows.values()) {
    stop();
    row.remove();
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
