import { readdir } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import type { SqlQueryable } from '../src/db/database.ts';
import { callRecordSearch } from '../src/domain/call-record-search.ts';
import { createOrganization } from '../src/domain/organizations.ts';
import { prepareDatabase } from '../src/domain/prepare-database.ts';
import { type ProfileSummary, summarizeProfile } from './cpuprofile.ts';
import { type BenchDatabase, postgresSampler } from './engine.ts';
import { type RawAnswer, RawHttpConnection } from './raw-http.ts';
import { ms, type Report, verdict } from './report.ts';
import { cpuMs, percentile, startGateway } from './support.ts';

const RECORDS_BENCH = {
  reports: Number(process.env.BENCH_RECORD_REPORTS ?? 2000),
  /** Reports sent before the measured ones, unmeasured (BENCH_RECORD_WARMUP). */
  warmup: Number(process.env.BENCH_RECORD_WARMUP ?? 1000),
  /** Turns of each report: 40 for the target; 1 shows what a report costs whatever its size. */
  turns: Number(process.env.BENCH_RECORD_TURNS ?? 40),
  concurrency: 16,
  records: Number(process.env.BENCH_SEARCH_RECORDS ?? 1_000_000),
  searches: 300,
  ingestTarget: 500,
  searchTargetMs: 50,
  /** BENCH_RECORDS_CPU_PROF=<directory>: the gateway runs with `--cpu-prof`, its ingest summarized. */
  profileDirectory: process.env.BENCH_RECORDS_CPU_PROF,
};

/** What a search looks for: a rare word, common words, a phrase, an exclusion. */
const QUERIES = ['refund', 'booked demo', 'booked or demo', 'invoice -refund', 'tuesday', 'cancel subscription'];

const WORDS = [
  'hello',
  'booked',
  'demo',
  'tuesday',
  'invoice',
  'refund',
  'call',
  'back',
  'later',
  'price',
  'plan',
  'upgrade',
  'cancel',
  'subscription',
  'support',
  'agent',
  'weekend',
  'morning',
  'evening',
  'insurance',
  'renewal',
  'premium',
  'address',
  'delivery',
  'package',
  'missing',
  'order',
  'thanks',
  'goodbye',
  'interested',
  'busy',
  'meeting',
];

/** A 40-turn transcript (BENCH_RECORD_TURNS), a summary and a disposition: what a worker reports after a long call. */
const reportedPart = {
  transcript: Array.from({ length: RECORDS_BENCH.turns }, (_, index) => ({
    role: index % 2 ? 'callee' : 'agent',
    text: `Turn ${index}: ${WORDS.slice(index % 20, (index % 20) + 12).join(' ')}, is that right?`,
    started_ms: index * 3000,
    ended_ms: index * 3000 + 2500,
  })),
  summary: 'The callee booked a demo for Tuesday morning and asked about the premium plan.',
  disposition: { label: 'demo booked', category: 'success' },
  detection: { result: 'human', confidence: 0.97, detected_ms: 800 },
};

export interface RecordsMeasured {
  reports: number;
  reportsPerSecond: number;
  reportP99Ms: number;
  /** CPU time per report (ms) of the gateway process and of the database's PostgreSQL backends, during the ingest. */
  gatewayCpuMs: number;
  postgresCpuMs: number;
  /** The same of this process, the load generator, on the same cores. */
  clientCpuMs: number;
  /** With BENCH_RECORDS_CPU_PROF: where the gateway's CPU went during the ingest. */
  profile?: ProfileSummary;
  records: number;
  seedMs: number;
  searches: { query: string; latencies: number[]; total: number }[];
  /** EXPLAIN (ANALYZE, BUFFERS) of the first query's page statement (its total counted in it). */
  plans: string[];
}

export async function measureRecords(database: BenchDatabase, log: (line: string) => void): Promise<RecordsMeasured> {
  const db = await prepareDatabase({ kind: 'postgres', url: database.url, poolSize: 2 });
  const { organization, apiKey } = await createOrganization(db.prisma, 'Records bench').finally(() => db.close());
  const directory = RECORDS_BENCH.profileDirectory && path.resolve(RECORDS_BENCH.profileDirectory);
  const spawnedAt = performance.now();
  const gateway = await startGateway({
    name: 'gateway (records)',
    databaseUrl: database.url,
    nodeArgs: directory ? ['--cpu-prof', `--cpu-prof-dir=${directory}`] : [],
  });
  const sql = new pg.Client({ connectionString: database.url });
  sql.on('error', () => {});
  await sql.connect();
  const ingest = { from: 0, until: 0 };
  let measured: RecordsMeasured;
  try {
    const call = async (method: string, path: string, body?: unknown) => {
      const response = await fetch(`${gateway.url}/org/${organization.id}${path}`, {
        method,
        headers: { 'x-api-key': apiKey, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const answer = (await response.json()) as Record<string, any>;
      if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(answer)}`);
      return answer;
    };
    const agent = await call('POST', '/agents', { name: 'Bench agent' });
    const workflow = await call('POST', '/workflows', {
      name: 'Bench',
      definition: { steps: [{ id: 'dial', type: 'call', agent_id: agent.id }] },
    });
    const prospects = await call('POST', '/prospects', { prospects: [{ first_name: 'P', phone: '+14155550100' }] });
    const batch = await call('POST', `/workflows/${workflow.id}/batches`, {
      prospect_ids: [prospects.created[0].id],
      scheduled_at: '2099-01-01T00:00:00Z',
    });
    const {
      rows: [run],
    } = await sql.query<{ id: string }>(`SELECT id FROM "Run" WHERE "batchId" = $1`, [batch.id]);
    const attempts = (first: number, count: number) =>
      sql.query(
        `INSERT INTO "RunAttempt" ("organizationId", "runId", "batchId", number, "stepId", "startedAt", "endedAt", outcome, "toNumber")
         SELECT $1, $2, $3, g, 'dial', now() - interval '2 minutes', now() - (g || ' seconds')::interval, 'answered', '+14155550100'
         FROM generate_series($4::int, $4::int + $5::int - 1) AS g`,
        [organization.id, run!.id, batch.id, first, count],
      );

    // Ingest: each report a new record of an attempt that ended.
    const reportCount = RECORDS_BENCH.warmup + RECORDS_BENCH.reports;
    await attempts(1, reportCount);
    // The reports go out on keep-alive connections of bench/raw-http.ts, the body serialized once: the
    // gateway reads the same requests as from any client, and the load generator, on the same two cores,
    // takes about a fifth of the CPU per report fetch took (1.2 ms of a 5 ms report on a quiet machine).
    const body = Buffer.from(JSON.stringify(reportedPart));
    const head = (number: number) =>
      `POST /org/${organization.id}/runs/${run!.id}/attempts/${number}/record HTTP/1.1\r\nhost: 127.0.0.1\r\n` +
      `x-api-key: ${apiKey}\r\ncontent-type: application/json\r\n`;
    let answered: RawAnswer | undefined;
    /** Reports `count` records from attempt `first` on, RECORDS_BENCH.concurrency at a time; each one's latency to `latencies`. */
    const ingestReports = async (first: number, count: number, latencies: number[]) => {
      const connections = Array.from({ length: RECORDS_BENCH.concurrency }, () => new RawHttpConnection(gateway.url));
      let next = first;
      try {
        await Promise.all(
          connections.map(async (connection) => {
            while (next < first + count) {
              const number = next++;
              const sent = performance.now();
              const answer = await connection.request(head(number), body);
              latencies.push(performance.now() - sent);
              if (answer.status !== 200) throw new Error(`report ${number}: ${answer.status} ${answer.body}`);
              answered ??= answer;
            }
          }),
        );
      } finally {
        for (const connection of connections) connection.close();
      }
    };
    // Unmeasured first: a fresh process runs its first reports slower (its code not yet compiled by V8, its
    // pool's connections and their prepared statement not yet made), a fixed cost that is not the ingest's rate.
    await ingestReports(1, RECORDS_BENCH.warmup, []);
    const latencies: number[] = [];
    const backends = postgresSampler(sql);
    await backends.sample();
    const sampling = setInterval(() => void backends.sample(), 200);
    const gatewayCpuAtStart = cpuMs(gateway.pid);
    const clientCpuAtStart = cpuMs(process.pid);
    const started = performance.now();
    ingest.from = started;
    await ingestReports(RECORDS_BENCH.warmup + 1, RECORDS_BENCH.reports, latencies);
    ingest.until = performance.now();
    const ingestMs = ingest.until - started;
    const gatewayCpuMs = (cpuMs(gateway.pid) - gatewayCpuAtStart) / RECORDS_BENCH.reports;
    const clientCpuMs = (cpuMs(process.pid) - clientCpuAtStart) / RECORDS_BENCH.reports;
    clearInterval(sampling);
    await backends.sample();
    const postgresCpuMs = backends.cpuMs() / RECORDS_BENCH.reports;
    const reportsPerSecond = RECORDS_BENCH.reports / (ingestMs / 1000);
    // Every report was written whole: one record per attempt, each with every turn, and the answer is the record.
    const shown = JSON.parse(answered!.body.toString()) as { transcript: unknown[] };
    const {
      rows: [written],
    } = await sql.query<{ records: number; whole: number }>(
      `SELECT count(*)::int AS records, count(*) FILTER (WHERE jsonb_array_length(transcript) = $2)::int AS whole
       FROM "CallRecord" WHERE "runId" = $1`,
      [run!.id, RECORDS_BENCH.turns],
    );
    if (shown.transcript.length !== RECORDS_BENCH.turns || written!.whole !== reportCount)
      throw new Error(
        `(l) ${written!.records} records written, ${written!.whole} with ${RECORDS_BENCH.turns} turns, the answer ${shown.transcript.length}`,
      );
    log(
      `  ${RECORDS_BENCH.reports} ${RECORDS_BENCH.turns}-turn records in ${(ingestMs / 1000).toFixed(2)} s (${reportsPerSecond.toFixed(0)}/s); ` +
        `CPU per report: gateway ${gatewayCpuMs.toFixed(2)} ms, PostgreSQL ${postgresCpuMs.toFixed(2)} ms, ` +
        `the load generator ${clientCpuMs.toFixed(2)} ms (${backends.states()})`,
    );

    // Search: the records seeded in one statement, the words' index built after them.
    const seedStarted = performance.now();
    const first = reportCount + 1;
    await attempts(first, RECORDS_BENCH.records);
    await sql.query(`DROP INDEX "CallRecord_searchVector_idx"`);
    await sql.query(
      `INSERT INTO "CallRecord" ("organizationId", "attemptId", "runId", "attemptNumber", "batchId", "agentId",
         transcript, summary, disposition, "dispositionLabel", "dispositionCategory", "detectionResult", "searchVector",
         "createdAt", "updatedAt")
       SELECT a."organizationId", a.id, a."runId", a.number, a."batchId", $2, jsonb_build_array(
           jsonb_build_object('role', 'callee', 'text', words.said, 'started_ms', 0, 'ended_ms', 4000)),
         words.summary, jsonb_build_object('label', 'demo booked', 'category', 'success'), 'demo booked', 'success',
         'human', to_tsvector('english', words.summary || ' ' || words.said), a."endedAt", a."endedAt"
       FROM "RunAttempt" AS a
       CROSS JOIN LATERAL (SELECT
         (SELECT 'hello this is the agent ' || COALESCE(string_agg(($3::text[])[1 + floor(random() * 8000)::int], ' '), '')
           FROM generate_series(1, 24) WHERE a.number > 0) AS said,
         (SELECT 'a call ' || COALESCE(string_agg(($3::text[])[1 + floor(random() * 4000)::int], ' '), '')
           FROM generate_series(1, 8) WHERE a.number > 0) AS summary) AS words
       WHERE a."runId" = $1 AND a.number >= $4`,
      [run!.id, agent.id, WORDS, first],
    );
    await sql.query(`CREATE INDEX "CallRecord_searchVector_idx" ON "CallRecord" USING GIN ("searchVector")`);
    // As autovacuum would have left them (the rows' hint bits set, the visibility map made), and no vacuum,
    // analyze or checkpoint of the seed's million rows left to run during the searches it would slow.
    await sql.query(`VACUUM (ANALYZE) "CallRecord", "RunAttempt"`);
    await sql.query('CHECKPOINT');
    const seedMs = performance.now() - seedStarted;
    log(`  ${RECORDS_BENCH.records} records seeded in ${(seedMs / 1000).toFixed(1)} s`);

    // Where a search's time goes: the page's statement (which counts the matches too) as the gateway sends it.
    const statement = await searchStatement(organization.id, QUERIES[0]!);
    await sql.query(statement.text, statement.values);
    const plan = await sql.query<{ 'QUERY PLAN': string }>(
      `EXPLAIN (ANALYZE, BUFFERS) ${statement.text}`,
      statement.values,
    );
    const plans = plan.rows.map((row) => row['QUERY PLAN']);
    const searches: RecordsMeasured['searches'] = [];
    for (const query of QUERIES) {
      const measured = { query, latencies: [] as number[], total: 0 };
      for (let round = 0; round < RECORDS_BENCH.searches / QUERIES.length + 2; round++) {
        const sent = performance.now();
        const answer = await call('GET', `/call-records?q=${encodeURIComponent(query)}&limit=20`);
        // Two rounds warm the caches; the rest are measured.
        if (round >= 2) measured.latencies.push(performance.now() - sent);
        measured.total = answer.pagination.total;
      }
      log(`  q=${query}: p99 ${ms(percentile(measured.latencies, 99))}, ${measured.total} found`);
      searches.push(measured);
    }
    measured = {
      reports: RECORDS_BENCH.reports,
      reportsPerSecond,
      reportP99Ms: percentile(latencies, 99),
      gatewayCpuMs,
      postgresCpuMs,
      clientCpuMs,
      records: RECORDS_BENCH.records,
      seedMs,
      searches,
      plans,
    };
  } finally {
    await sql.end();
    await gateway.stop();
  }
  // The profile is written when the gateway stops; its clock starts about when it was spawned.
  const window = { from: ingest.from - spawnedAt, until: ingest.until - spawnedAt };
  return { ...measured, profile: await ingestProfile(directory, window, log) };
}

/** The gateway's profile (written as it stopped) over the ingest, logged; undefined without BENCH_RECORDS_CPU_PROF. */
async function ingestProfile(
  directory: string | undefined,
  window: { from: number; until: number },
  log: (line: string) => void,
): Promise<ProfileSummary | undefined> {
  if (!directory) return undefined;
  // CPU.<date>.<time>.<pid>.<thread>.<seq>.cpuprofile: thread 0 is the main thread; the newest is this run's.
  const file = (await readdir(directory))
    .filter((name) => name.split('.')[4] === '0' && name.endsWith('.cpuprofile'))
    .sort()
    .at(-1);
  if (!file) return undefined;
  const summary = summarizeProfile(path.join(directory, file), 15, window.from, window.until);
  log(`  gateway profile (${path.join(directory, file)}), ${summary.busyMs.toFixed(0)} ms busy in the ingest:`);
  for (const area of summary.areas) log(`    ${(area.share * 100).toFixed(1)}% ${area.area}`);
  for (const entry of summary.functions) log(`    ${(entry.share * 100).toFixed(1)}% ${entry.name} ${entry.where}`);
  return summary;
}

/** The statement of a search's first page of 20 (and the one more that tells whether a next page exists). */
async function searchStatement(organizationId: string, q: string): Promise<{ text: string; values: unknown[] }> {
  let statement: { text: string; values: unknown[] } | undefined;
  const capture: SqlQueryable = {
    query: (text, values) => {
      statement = { text, values: values ?? [] };
      return Promise.resolve({ rows: [] });
    },
    exec: () => Promise.resolve(),
  };
  await callRecordSearch(capture, organizationId, { search: q }).page({ offset: 0, limit: 21 });
  return statement!;
}

export function reportRecords(report: Report, measured: RecordsMeasured) {
  report.line('');
  report.line('## (l) Call records: ingest and full-text search');
  report.line(
    `${measured.reports.toLocaleString('en')} reports of a ${RECORDS_BENCH.turns}-turn record (with a summary, a disposition and a detection), ` +
      `measured after ${RECORDS_BENCH.warmup.toLocaleString('en')} unmeasured, ` +
      `each to an attempt that ended, ${RECORDS_BENCH.concurrency} at a time, one gateway instance: ` +
      `${measured.reportsPerSecond.toFixed(0)} reports/s, p99 ${ms(measured.reportP99Ms)}; CPU per report: the gateway ` +
      `${measured.gatewayCpuMs.toFixed(2)} ms, PostgreSQL's backends ${measured.postgresCpuMs.toFixed(2)} ms, ` +
      `the load generator (on the same cores) ${measured.clientCpuMs.toFixed(2)} ms.`,
  );
  if (measured.profile) {
    report.line('');
    report.line(`Where the gateway's CPU went during the ingest (\`--cpu-prof\`, BENCH_RECORDS_CPU_PROF), self time:`);
    report.table(
      ['function', 'where', 'share'],
      measured.profile.functions.map((entry) => [entry.name, entry.where, `${(entry.share * 100).toFixed(1)}%`]),
    );
  }
  report.line('');
  report.line(
    `GET /call-records?q=…&limit=20 over ${measured.records.toLocaleString('en')} records of one organization ` +
      `(seeded in ${(measured.seedMs / 1000).toFixed(1)} s), one connection, one request at a time:`,
  );
  report.table(
    ['q', 'found', 'searches', 'p50', 'p99'],
    measured.searches.map((search) => [
      `\`${search.query}\``,
      search.total,
      search.latencies.length,
      ms(percentile(search.latencies, 50)),
      ms(percentile(search.latencies, 99)),
    ]),
  );
  report.line('');
  report.line(`The page's statement (its total counted in it) for \`q=${QUERIES[0]}\`, in PostgreSQL:`);
  report.code(measured.plans);
}

export function recordsTargets(measured: RecordsMeasured): string[][] {
  const all = measured.searches.flatMap((search) => search.latencies);
  return [
    [
      `(l) ${RECORDS_BENCH.turns}-turn record ingest >= ${RECORDS_BENCH.ingestTarget} reports/s`,
      `${measured.reportsPerSecond.toFixed(0)} reports/s`,
      verdict(measured.reportsPerSecond >= RECORDS_BENCH.ingestTarget),
    ],
    [
      `(l) search over ${measured.records.toLocaleString('en')} records, p99 < ${RECORDS_BENCH.searchTargetMs} ms`,
      ms(percentile(all, 99)),
      verdict(percentile(all, 99) < RECORDS_BENCH.searchTargetMs),
    ],
  ];
}
