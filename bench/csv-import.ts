import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { createOrganization } from '../src/domain/organizations.ts';
import { prepareDatabase } from '../src/domain/prepare-database.ts';
import type { BenchDatabase } from './engine.ts';
import { TRIVIAL } from './queries.ts';
import { mib, ms, type Report, verdict } from './report.ts';
import { cpuMs, median, percentile, sleep, startGateway } from './support.ts';

const CSV_BENCH = { rows: Number(process.env.BENCH_CSV_ROWS ?? 100_000), targetMs: 5000 };

/** The query of each round: the import alone, three times, then with a list and a tag. */
const ROUNDS = ['', '', '', 'list_name=Bench&tag_ids={tag}'];

/** How long the quiet tenant is measured alone. */
const QUIET_ALONE_MS = 3000;
/** The noisy tenant's other file: only line breaks, as many bytes as the issue's. */
const BLANK_LINES_BYTES = 3 * 1024 * 1024;

/** The quiet tenant's trivial queries during one scenario, and the noisy tenant's request (none: alone). */
interface QuietRound {
  scenario: string;
  noisy: { status: number; ms: number } | null;
  latencies: number[];
}

export interface CsvMeasured {
  bytes: number;
  rounds: { query: string; ms: number; processCpuMs: number; loadAtStart: number }[];
  quiet: QuietRound[];
}

/** The file, written a thousand rows at a time: names, an e-mail, a phone, a time zone, two attributes. */
async function writeFile(file: string) {
  const out = createWriteStream(file);
  out.write('First Name,Last Name,E-mail,Phone Number,Time Zone,Account Number,Plan\n');
  for (let start = 0; start < CSV_BENCH.rows; start += 1000) {
    let piece = '';
    for (let index = start; index < Math.min(CSV_BENCH.rows, start + 1000); index++) {
      piece += `P${index},"Doe, ${index}",p${index}@example.com,+1212${String(index).padStart(7, '0')},America/New_York,A-${index},${index % 2 ? 'Gold' : 'Silver'}\n`;
    }
    if (!out.write(piece)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
  }
  out.end();
  await finished(out);
}

export async function measureCsvImport(database: BenchDatabase, log: (line: string) => void): Promise<CsvMeasured> {
  const directory = await mkdtemp(path.join(os.tmpdir(), 'gateway-csv-bench-'));
  const file = path.join(directory, 'prospects.csv');
  await writeFile(file);
  const db = await prepareDatabase({ kind: 'postgres', url: database.url, poolSize: 2 });
  const organizations: { id: string; apiKey: string; tagId: string }[] = [];
  let quietTenant: { id: string; apiKey: string };
  const noisyTenants: { id: string; apiKey: string }[] = [];
  try {
    const quiet = await createOrganization(db.prisma, 'CSV bench quiet');
    quietTenant = { id: quiet.organization.id, apiKey: quiet.apiKey };
    for (const name of ['CSV bench noisy import', 'CSV bench noisy blank lines']) {
      const noisy = await createOrganization(db.prisma, name);
      noisyTenants.push({ id: noisy.organization.id, apiKey: noisy.apiKey });
    }
    for (let round = 0; round < ROUNDS.length; round++) {
      const { organization, apiKey } = await createOrganization(db.prisma, `CSV bench ${round}`);
      const tag = await db.prisma.tag.create({ data: { organizationId: organization.id, name: 'Imported' } });
      organizations.push({ id: organization.id, apiKey, tagId: tag.id });
    }
  } finally {
    await db.close();
  }
  const gateway = await startGateway({ name: 'gateway (csv)', databaseUrl: database.url });
  try {
    const rounds: CsvMeasured['rounds'] = [];
    for (const [index, organization] of organizations.entries()) {
      const query = ROUNDS[index]!.replace('{tag}', organization.tagId);
      const loadAtStart = os.loadavg()[0]!;
      const cpuAtStart = cpuMs(gateway.pid);
      const started = performance.now();
      const response = await fetch(`${gateway.url}/org/${organization.id}/prospects/import?${query}`, {
        method: 'POST',
        headers: { 'content-type': 'text/csv', 'x-api-key': organization.apiKey },
        body: Readable.toWeb(createReadStream(file)) as ReadableStream,
        duplex: 'half',
      } as RequestInit);
      const body = (await response.json()) as { count?: number };
      const elapsed = performance.now() - started;
      if (response.status !== 201 || body.count !== CSV_BENCH.rows)
        throw new Error(`the import answered ${response.status} ${JSON.stringify(body).slice(0, 300)}`);
      rounds.push({ query, ms: elapsed, processCpuMs: cpuMs(gateway.pid) - cpuAtStart, loadAtStart });
      log(`  ${CSV_BENCH.rows} rows${query ? ' with a list and a tag' : ''} in ${(elapsed / 1000).toFixed(2)} s`);
    }
    const post = async (tenant: { id: string; apiKey: string }, body: ReadableStream | string) => {
      const started = performance.now();
      const response = await fetch(`${gateway.url}/org/${tenant.id}/prospects/import`, {
        method: 'POST',
        headers: { 'content-type': 'text/csv', 'x-api-key': tenant.apiKey },
        body,
        duplex: 'half',
      } as RequestInit);
      await response.arrayBuffer();
      return { status: response.status, ms: performance.now() - started };
    };
    const quiet: QuietRound[] = [
      {
        scenario: 'alone',
        noisy: null,
        latencies: await trivialQueries(gateway.url, quietTenant!.apiKey, sleep(QUIET_ALONE_MS)),
      },
    ];
    for (const [scenario, body] of [
      [
        `during another tenant's ${CSV_BENCH.rows.toLocaleString('en')}-row import`,
        () => Readable.toWeb(createReadStream(file)) as ReadableStream,
      ],
      [
        `during another tenant's ${mib(BLANK_LINES_BYTES / 2 ** 20)} of blank lines`,
        () => '\n'.repeat(BLANK_LINES_BYTES),
      ],
    ] as const) {
      const tenant = noisyTenants[quiet.length - 1]!;
      const noisy = post(tenant, body());
      quiet.push({
        scenario,
        latencies: await trivialQueries(gateway.url, quietTenant!.apiKey, noisy),
        noisy: await noisy,
      });
      const last = quiet.at(-1)!;
      log(
        `  quiet tenant ${scenario}: p99 ${ms(percentile(last.latencies, 99))} (the noisy request: ${last.noisy!.status} in ${ms(last.noisy!.ms)})`,
      );
    }
    return { bytes: (await stat(file)).size, rounds, quiet };
  } finally {
    await gateway.stop();
    await rm(directory, { recursive: true, force: true });
  }
}

/** The quiet tenant's trivial query, one at a time, until `until` settles: each one's latency. */
async function trivialQueries(url: string, apiKey: string, until: Promise<unknown>) {
  let done = false;
  void until.finally(() => {
    done = true;
  });
  const latencies: number[] = [];
  while (!done) {
    const started = performance.now();
    const response = await fetch(`${url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
      body: JSON.stringify({ query: TRIVIAL }),
    });
    await response.arrayBuffer();
    if (response.status !== 200) throw new Error(`the quiet tenant's query answered ${response.status}`);
    latencies.push(performance.now() - started);
  }
  return latencies;
}

export function reportCsvImport(report: Report, { bytes, rounds, quiet }: CsvMeasured) {
  report.line('');
  report.line(`## (h) CSV import: ${CSV_BENCH.rows.toLocaleString('en')} prospects in one request`);
  report.line(
    `A ${mib(bytes / 2 ** 20)} file (names, e-mail, E.164 phone, time zone, two attribute columns) streamed from disk to ` +
      '`POST /prospects/import` of the gateway as `npm start` runs it (ENGINE=off), on a fresh database; ' +
      'each round into an organization of its own (every row new). Timed at the client, from the first byte sent to the 201 read: ' +
      'reading and checking the whole file, then one transaction writing the prospects (and, with `list_name` and `tag_ids`, ' +
      'their list membership and their tag).',
  );
  report.table(
    ['round', 'query', 'time', 'rows/s', 'gateway process CPU', 'load average (1 min) at the start'],
    rounds.map((round, index) => [
      index + 1,
      round.query ? `\`${round.query.replace(/=tag_\w+/, '=tag_…')}\`` : '(none)',
      ms(round.ms),
      String(Math.round(CSV_BENCH.rows / (round.ms / 1000))),
      ms(round.processCpuMs),
      round.loadAtStart.toFixed(2),
    ]),
  );
  report.line('');
  report.line(
    `Another tenant's trivial query (\`${TRIVIAL}\`, one at a time, keep-alive), alone for ${QUIET_ALONE_MS / 1000} s, ` +
      `then while a noisy tenant imports the same ${CSV_BENCH.rows.toLocaleString('en')}-row file into an organization of its own, ` +
      `then while it posts ${mib(BLANK_LINES_BYTES / 2 ** 20)} of blank lines:`,
  );
  report.table(
    ['the quiet tenant', 'queries', 'p50', 'p99', 'max', "the noisy tenant's request"],
    quiet.map(({ scenario, noisy, latencies }) => [
      scenario,
      latencies.length,
      ms(percentile(latencies, 50)),
      ms(percentile(latencies, 99)),
      ms(Math.max(...latencies)),
      noisy ? `${noisy.status} in ${ms(noisy.ms)}` : '–',
    ]),
  );
}

export function csvImportTargets({ rounds }: CsvMeasured): string[][] {
  const typical = median(rounds.filter((round) => !round.query).map((round) => round.ms));
  return [
    [
      `(h) ${CSV_BENCH.rows.toLocaleString('en')}-row CSV import < ${CSV_BENCH.targetMs / 1000} s`,
      `${ms(typical)} (median of ${rounds.filter((round) => !round.query).length})`,
      verdict(typical < CSV_BENCH.targetMs),
    ],
  ];
}
