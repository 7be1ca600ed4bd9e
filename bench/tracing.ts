import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import type { BenchDatabase } from './engine.ts';
import { TRIVIAL } from './queries.ts';
import { mib, ms, type Report, ratio, rps } from './report.ts';
import { insertProspects, insertWorkflow, seedInTransaction, seedOrganization } from './seed-organization.ts';
import { cpuMs, type LoadOptions, type LoadResult, rssMiB, runLoad, sleep, startGateway } from './support.ts';

const TRACING_BENCH = {
  runs: Number(process.env.BENCH_TRACING_RUNS ?? 5000),
  /** E6's filter and page here: the batch's runs are 80% FINISHED, so page 20 of 100 (offset 1,900) is full. */
  e6: { status: 'FINISHED', page: 20, limit: 100 },
  connections: [1, 32] as const,
  poolSize: 10,
};

interface Seeded {
  organizationId: string;
  apiKey: string;
  workflowId: string;
  batchId: string;
}

/** One organization, a workflow, and a batch of `runs` runs (4 in 5 FINISHED, the rest FAILED), one a second, counters set. */
export async function seedBatch(database: BenchDatabase): Promise<Seeded> {
  const { organizationId, apiKey, apiKeyId } = await seedOrganization(database.url, 'Tracing bench');
  return seedInTransaction(database.url, async (one, sql) => {
    const { workflowId, versionId } = await insertWorkflow(one, { organizationId, apiKeyId, name: 'Tracing bench' });
    await insertProspects(sql, organizationId, TRACING_BENCH.runs);
    const failed = Math.floor(TRACING_BENCH.runs / 5);
    const batchId = await one(
      `INSERT INTO "Batch" ("organizationId", "workflowId", "workflowVersionId", name, "sourceType", "createdBy", status,
                            "totalProspects", "finishedCount", "failedCount", "updatedAt")
       VALUES ($1, $2, $3, 'Tracing bench', 'prospect_ids', $4, 'FINISHED', $5::int, $5::int - $6::int, $6::int, now()) RETURNING id`,
      [organizationId, workflowId, versionId, apiKeyId, TRACING_BENCH.runs, failed],
    );
    await sql.query(
      `INSERT INTO "Run" ("organizationId", "workflowId", "workflowVersionId", "batchId", "prospectId", status, "startedAt", "endedAt", attempts, "updatedAt")
       SELECT $1, $2, $3, $4, id, (CASE WHEN n % 5 = 0 THEN 'FAILED' ELSE 'FINISHED' END)::"RunStatus",
              now() - make_interval(secs => n), now() - make_interval(secs => n - 60), 1, now()
       FROM (SELECT id, row_number() OVER (ORDER BY id) AS n FROM "Prospect" WHERE "organizationId" = $1) AS numbered`,
      [organizationId, workflowId, versionId, batchId],
    );
    return { organizationId, apiKey, workflowId, batchId };
  });
}

/** An OTLP/HTTP receiver that keeps nothing: 200 to every POST /v1/traces, the spans counted by name. */
async function startSink() {
  const counts = { requests: 0, bytes: 0, spans: 0, byName: new Map<string, number>() };
  const server = http.createServer((request, response) => {
    if (request.method !== 'POST' || request.url !== '/v1/traces') {
      response.writeHead(404).end();
      return;
    }
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks);
      counts.requests++;
      counts.bytes += body.length;
      type Export = { resourceSpans?: { scopeSpans?: { spans?: { name: string }[] }[] }[] };
      for (const resource of (JSON.parse(body.toString()) as Export).resourceSpans ?? []) {
        for (const scope of resource.scopeSpans ?? []) {
          for (const span of scope.spans ?? []) {
            counts.spans++;
            counts.byName.set(span.name, (counts.byName.get(span.name) ?? 0) + 1);
          }
        }
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    counts,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

interface TracingLoad extends LoadResult {
  /** CPU ms the gateway process used per answered request. */
  serverCpuPerRequest: number;
  /** Spans the sink received while the load was measured, per answered request (on only). */
  spansPerRequest?: number;
}

type Query = 'trivial' | 'e6';
type Loads = Record<Query, Record<(typeof TRACING_BENCH.connections)[number], TracingLoad>>;

interface TracingSide {
  loads: Loads;
  idleRss: number;
  /** The machine's 1-minute load average when the side started (the machine is shared). */
  loadAtStart: number;
}

export interface TracingMeasured {
  off: TracingSide;
  on: TracingSide;
  e6Path: string;
  e6Total: number;
  sink: { requests: number; bytes: number; spans: number; byName: [string, number][] };
}

export async function measureTracing(
  database: BenchDatabase,
  log: (line: string) => void,
  timing: { duration: number; warmup: number },
): Promise<TracingMeasured> {
  log(`  seeding a batch of ${TRACING_BENCH.runs.toLocaleString('en')} runs`);
  const seeded = await seedBatch(database);
  const { status, page, limit } = TRACING_BENCH.e6;
  const e6Path = `/org/${seeded.organizationId}/workflows/${seeded.workflowId}/runs?status=${status}&batch_id=${seeded.batchId}&sort=started_desc&page=${page}&limit=${limit}`;
  const sink = await startSink();
  try {
    const side = async (label: string, otel: Record<string, string>): Promise<TracingSide & { e6Total: number }> => {
      const gateway = await startGateway({
        name: `gateway (tracing ${label})`,
        databaseUrl: database.url,
        env: {
          DATABASE_POOL_SIZE: String(TRACING_BENCH.poolSize),
          // Empty is unset: whatever this shell exports does not leak in.
          OTEL_EXPORTER_OTLP_ENDPOINT: '',
          OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: '',
          OTEL_TRACES_EXPORTER: '',
          ...otel,
        },
      });
      try {
        const loadAtStart = os.loadavg()[0]!;
        await sleep(2000);
        const idleRss = rssMiB(gateway.pid);
        const targets: Record<Query, Omit<LoadOptions, 'connections'>> = {
          trivial: {
            url: `${gateway.url}/graphql`,
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-api-key': seeded.apiKey },
            body: JSON.stringify({ query: TRIVIAL }),
            ...timing,
          },
          e6: { url: `${gateway.url}${e6Path}`, headers: { 'x-api-key': seeded.apiKey }, ...timing },
        };
        const answer = await fetch(targets.e6.url, { headers: targets.e6.headers });
        const body = (await answer.json()) as { data?: unknown[]; pagination?: { total: number } };
        if (!answer.ok || body.data?.length !== limit)
          throw new Error(`(i) E6 should answer ${limit} runs: ${answer.status} ${JSON.stringify(body).slice(0, 300)}`);
        const loads = {} as Loads;
        for (const query of ['trivial', 'e6'] as const) {
          loads[query] = {} as Loads[Query];
          for (const connections of TRACING_BENCH.connections) {
            log(`  tracing ${label}: ${query}, ${connections} connection(s)`);
            let cpuAtStart = 0;
            let spansAtStart = 0;
            const result = await runLoad({ ...targets[query], connections }, () => {
              cpuAtStart = cpuMs(gateway.pid);
              spansAtStart = sink.counts.spans;
            });
            const requests = Math.max(1, result.requests);
            const measured: TracingLoad = {
              ...result,
              serverCpuPerRequest: (cpuMs(gateway.pid) - cpuAtStart) / requests,
            };
            if (label === 'on') measured.spansPerRequest = (sink.counts.spans - spansAtStart) / requests;
            log(
              `    ${rps(result.rps)} req/s, p50 ${ms(result.p50)}, p99 ${ms(result.p99)}; server CPU per request ${ms(measured.serverCpuPerRequest)}`,
            );
            loads[query][connections] = measured;
          }
        }
        return { loads, idleRss, loadAtStart, e6Total: body.pagination!.total };
      } finally {
        // Stopping flushes the spans still queued to the sink.
        await gateway.stop();
      }
    };
    const off = await side('off', {});
    if (sink.counts.spans > 0) throw new Error(`(i) the sink received ${sink.counts.spans} spans with tracing off`);
    const on = await side('on', { OTEL_EXPORTER_OTLP_ENDPOINT: sink.url });
    if (sink.counts.spans === 0) throw new Error('(i) the sink received no span with tracing on');
    return {
      off,
      on,
      e6Path,
      e6Total: on.e6Total,
      sink: { ...sink.counts, byName: [...sink.counts.byName].sort((a, b) => b[1] - a[1]) },
    };
  } finally {
    await sink.close();
  }
}

export function reportTracing(report: Report, { off, on, e6Path, e6Total, sink }: TracingMeasured) {
  const { status, page, limit } = TRACING_BENCH.e6;
  report.line('');
  report.line('## (i) The cost of tracing: the trivial query and E6, tracing off and on');
  report.line(
    `The gateway as \`npm start\` runs it (ENGINE=off, a pool of ${TRACING_BENCH.poolSize} connections) on a fresh database holding one batch of ` +
      `${TRACING_BENCH.runs.toLocaleString('en')} runs, started twice one after the other: without the OTEL_* variables (off: the SDK is not loaded), ` +
      'then with `OTEL_EXPORTER_OTLP_ENDPOINT` pointing at a sink served by the benchmark process (OTLP/HTTP JSON, every export answered 200, its spans counted), ' +
      'the SDK at its defaults (batch span processor: 2,048 spans queued at most, exports of 512 or every 5 s). ' +
      `E6 here: \`GET ${e6Path.replace(/\/org\/[^/]+\/workflows\/[^/]+/, '/org/{org}/workflows/{workflow}').replace(/batch_id=[^&]+/, 'batch_id={batch}')}\` ` +
      `(${status} page ${page} of ${limit}, offset ${(page - 1) * limit}, ${e6Total.toLocaleString('en')} matching runs). ` +
      'Spans per request: those the sink received during the measured seconds, over the requests answered; fewer at 32 connections than at 1 means the SDK dropped spans its queue had no room for.',
  );
  const rows: (string | number)[][] = [];
  for (const [query, name] of [
    ['trivial', '`{ __typename }`'],
    ['e6', 'E6'],
  ] as const) {
    for (const connections of TRACING_BENCH.connections) {
      const a = off.loads[query][connections];
      const b = on.loads[query][connections];
      rows.push([
        name,
        connections,
        `${rps(a.rps)} / ${rps(b.rps)}`,
        ratio(b.rps / a.rps),
        `${ms(a.p50)} / ${ms(b.p50)}`,
        ratio(b.p50 / a.p50),
        `${ms(a.p99)} / ${ms(b.p99)}`,
        ratio(b.p99 / a.p99),
        `${ms(a.serverCpuPerRequest)} / ${ms(b.serverCpuPerRequest)}`,
        ratio(b.serverCpuPerRequest / a.serverCpuPerRequest),
        (b.spansPerRequest ?? NaN).toFixed(1),
      ]);
    }
  }
  report.table(
    [
      'query',
      'connections',
      'req/s off / on',
      'on ÷ off',
      'median off / on',
      'on ÷ off',
      'p99 off / on',
      'on ÷ off',
      'server CPU / req off / on',
      'on ÷ off',
      'spans / req',
    ],
    rows,
  );
  report.line('');
  report.table(
    ['', 'off', 'on'],
    [
      ['gateway RSS, idle 2 s after start', mib(off.idleRss), mib(on.idleRss)],
      ['load average (1 min) at the start', off.loadAtStart.toFixed(2), on.loadAtStart.toFixed(2)],
    ],
  );
  report.line('');
  report.line(
    `The sink received ${sink.spans.toLocaleString('en')} spans in ${sink.requests.toLocaleString('en')} exports (${(sink.bytes / 2 ** 20).toFixed(1)} MiB of JSON, ` +
      `${(sink.bytes / Math.max(1, sink.spans)).toFixed(0)} bytes a span), warm-ups and the flush at stop included. By name: ` +
      sink.byName.map(([name, count]) => `\`${name}\` ${count.toLocaleString('en')}`).join(', ') +
      '.',
  );
}
