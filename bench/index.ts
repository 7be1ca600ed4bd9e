// `npm run bench`: the gateway's speed targets, measured (never by tests).
// Runs on the machine's PostgreSQL when reachable, else the embedded database.
//   - E4: the time to create a batch of 100,000 prospects (one request),
//     beside a raw INSERT … SELECT of the same rows;
//   - the delay for one batch change to reach 1,000 WebSocket subscribers
//     (held by a second process), p50 and p99.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import path from 'node:path';
import { median, percentile, startBenchGateway } from './support.ts';

const PROSPECTS = Number(process.env.BENCH_PROSPECTS ?? 100_000);
const SUBSCRIBERS = Number(process.env.BENCH_SUBSCRIBERS ?? 1000);
const CHANGES = Number(process.env.BENCH_CHANGES ?? 20);

const gateway = await startBenchGateway();
const headers = { 'content-type': 'application/json', 'x-api-key': gateway.apiKey };
const rest = async (method: string, route: string, body?: unknown) => {
  const response = await fetch(`${gateway.url}/org/${gateway.organizationId}${route}`, { method, headers, body: JSON.stringify(body) });
  if (!response.ok) throw new Error(`${method} ${route}: ${response.status} ${await response.text()}`);
  return response.json();
};
const lines: string[] = [];
const report = (line: string) => {
  lines.push(line);
  console.log(line);
};

try {
  report(`# gateway benchmarks (${gateway.label}, ${new Date().toISOString()})`);

  // E4 at 100,000 prospects.
  await gateway.db.sql.query(
    `INSERT INTO "Prospect" ("organizationId", "firstName", "updatedAt") SELECT $1, 'P' || n, now() FROM generate_series(1, $2::int) AS n`,
    [gateway.organizationId, PROSPECTS],
  );
  const ids = (await gateway.db.sql.query<{ id: string }>('SELECT id FROM "Prospect" WHERE "organizationId" = $1', [gateway.organizationId])).rows.map(
    (row) => row.id,
  );
  const workflow = await rest('POST', '/workflows', { name: 'Bench', definition: { steps: [{ id: 'dial', type: 'call' }] } });
  const gatewayTimes: number[] = [];
  for (let round = 0; round < 3; round++) {
    const started = performance.now();
    await rest('POST', `/workflows/${workflow.id}/batches`, { name: `Bench ${round}`, prospect_ids: ids });
    gatewayTimes.push(performance.now() - started);
  }
  const rawTimes: number[] = [];
  const version = (await gateway.db.sql.query<{ id: string }>('SELECT id FROM "WorkflowVersion" WHERE "workflowId" = $1', [workflow.id])).rows[0]!.id;
  const anyBatch = (await gateway.db.sql.query<{ id: string }>('SELECT id FROM "Batch" LIMIT 1')).rows[0]!.id;
  for (let round = 0; round < 3; round++) {
    const started = performance.now();
    await gateway.db.sql.transaction(async (tx) => {
      await tx.query(
        `INSERT INTO "Run" ("organizationId", "workflowId", "workflowVersionId", "batchId", "prospectId", "updatedAt")
         SELECT $1, $2, $3, $4, id, now() FROM unnest($5::text[]) AS id`,
        [gateway.organizationId, workflow.id, version, anyBatch, ids],
      );
    });
    rawTimes.push(performance.now() - started);
  }
  report('');
  report(`## E4: a batch of ${PROSPECTS.toLocaleString('en')} prospects in one request`);
  report('| | median | worst of 3 |');
  report('|---|---|---|');
  report(`| gateway (POST …/batches) | ${median(gatewayTimes).toFixed(0)} ms | ${Math.max(...gatewayTimes).toFixed(0)} ms |`);
  report(`| raw INSERT … SELECT | ${median(rawTimes).toFixed(0)} ms | ${Math.max(...rawTimes).toFixed(0)} ms |`);
  report(`| ratio | ${(median(gatewayTimes) / median(rawTimes)).toFixed(2)}x | |`);

  // One change reaching many subscribers.
  const small = await rest('POST', '/prospects', { first_name: 'Live' });
  const live = await rest('POST', `/workflows/${workflow.id}/batches`, { name: 'Live', prospect_ids: [small.created[0].id] });
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', path.join(import.meta.dirname, 'subscribers.ts'), `${gateway.url.replace('http', 'ws')}/graphql`, gateway.apiKey, live.id, String(SUBSCRIBERS)],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const output = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  const nextLine = async () => (await output.next()).value as string;
  if ((await nextLine()) !== 'ready') throw new Error('subscribers did not start');
  const delays: number[] = [];
  for (let change = 0; change < CHANGES; change++) {
    const status = change % 2 === 0 ? 'PAUSED' : 'PENDING';
    const sentAt = performance.timeOrigin + performance.now();
    child.stdin!.write(`change ${status} ${sentAt}\n`);
    await rest('PATCH', `/batches/${live.id}`, { status });
    delays.push(...(JSON.parse(await nextLine()) as number[]));
    // Apart by more than the coalescing interval, so each change is its own event.
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
  child.stdin!.write('quit\n');
  report('');
  report(`## One batch change reaching ${SUBSCRIBERS.toLocaleString('en')} WebSocket subscribers (${CHANGES} changes)`);
  report('| p50 | p99 | max |');
  report('|---|---|---|');
  report(`| ${percentile(delays, 50).toFixed(1)} ms | ${percentile(delays, 99).toFixed(1)} ms | ${Math.max(...delays).toFixed(1)} ms |`);
} finally {
  await gateway.close();
}
process.exit(0);
