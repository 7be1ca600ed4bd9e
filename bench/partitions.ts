// (o) Partitioned runs beside plain tables: the gateway's dashboard and E6
// (at 32 connections) and E4 (a batch of every seeded prospect), on the
// migrated database, where "Run" and "RunAttempt" are partitioned by month
// (docs/scaling.md), and on a copy of it where both are plain tables with
// the same columns, keys, indexes, foreign keys and triggers. Same data, same
// build, the two measured in turns in one run. Then the run engine (bench
// (g)'s gateway side) through a batch of its own, on two fresh databases: as
// migrated, and with plain tables.
import type pg from 'pg';
import { createOrganization } from '../src/domain/organizations.ts';
import { prepareDatabase } from '../src/domain/prepare-database.ts';
import { type BenchDatabase, type EngineRound, engineRound } from './engine.ts';
import { E6, GATEWAY_DASHBOARD } from './queries.ts';
import { ms, type Report, ratio, rps, verdict } from './report.ts';
import { seed } from './seed.ts';
import { cpuMs, median, postgresCpu, runLoad, type ServerProcess, startGateway, withClient } from './support.ts';

const PARTITIONED = ['RunAttempt', 'Run'];
const CONNECTIONS = 32;
const ROUNDS = 3;
const E4_ROUNDS = 4;
const ENGINE_ROUNDS = 2;
/** The sides of a round, in turns (ABBA): neither is always measured first, on a machine warmer or busier. */
const sidesOf = (round: number) =>
  round % 2 === 0 ? (['partitioned', 'plain'] as const) : (['plain', 'partitioned'] as const);

interface Side {
  dashboard: Measured[];
  e6: Measured[];
  e4: number[];
  engine: EngineRound[];
}

interface Measured {
  rps: number;
  serverCpu: number;
  postgresCpu: number;
}

export interface PartitionsMeasured {
  runs: number;
  partitioned: Side;
  plain: Side;
}

/**
 * Makes `database`'s partitioned tables plain ones: each is copied into a
 * table LIKE it (columns, defaults, keys, indexes), and the foreign keys and
 * triggers that named it are made again on the copy.
 */
function unpartition(database: BenchDatabase) {
  return withClient(database.url, async (sql) => {
    const tables = PARTITIONED.map((name) => `"${name}"`);
    const { rows: foreignKeys } = await sql.query<{ owner: string; name: string; definition: string }>(
      `SELECT conrelid::regclass::text AS owner, conname AS name, pg_get_constraintdef(oid) AS definition
       FROM pg_constraint WHERE contype = 'f' AND conparentid = 0
         AND (conrelid = ANY($1::regclass[]) OR confrelid = ANY($1::regclass[]))`,
      [tables],
    );
    const { rows: triggers } = await sql.query<{ definition: string }>(
      `SELECT pg_get_triggerdef(oid) AS definition FROM pg_trigger
       WHERE tgrelid = ANY($1::regclass[]) AND NOT tgisinternal AND tgparentid = 0`,
      [tables],
    );
    await sql.query('BEGIN');
    for (const key of foreignKeys) await sql.query(`ALTER TABLE ${key.owner} DROP CONSTRAINT "${key.name}"`);
    for (const name of PARTITIONED) {
      await sql.query(`ALTER TABLE "${name}" RENAME TO "${name}_partitioned"`);
      await sql.query(`CREATE TABLE "${name}" (LIKE "${name}_partitioned" INCLUDING ALL)`);
      await sql.query(`INSERT INTO "${name}" SELECT * FROM "${name}_partitioned"`);
      await sql.query(`DROP TABLE "${name}_partitioned"`);
    }
    for (const key of foreignKeys)
      await sql.query(`ALTER TABLE ${key.owner} ADD CONSTRAINT "${key.name}" ${key.definition}`);
    for (const trigger of triggers) await sql.query(trigger.definition);
    await sql.query('COMMIT');
    await sql.query(`VACUUM ANALYZE ${tables.join(', ')}`);
    const { rows } = await sql.query<{ name: string }>(
      `SELECT relname AS name FROM pg_class WHERE relname = ANY($1::text[]) AND relkind = 'p'`,
      [PARTITIONED],
    );
    if (rows.length > 0) throw new Error(`still partitioned: ${rows.map((row) => row.name).join(', ')}`);
  });
}

/** CPU ms of the server process and of `database`'s PostgreSQL backends. */
async function cpuOf(server: ServerProcess, sql: pg.Client) {
  return { server: cpuMs(server.pid), postgres: await postgresCpu(sql) };
}

export async function measurePartitions(
  newDatabase: (template?: string) => Promise<BenchDatabase>,
  log: (line: string) => void,
  timing: { duration: number; warmup: number },
): Promise<PartitionsMeasured> {
  const partitioned = await newDatabase();
  const db = await prepareDatabase({ kind: 'postgres', url: partitioned.url, poolSize: 2 });
  const { organization, apiKey } = await createOrganization(db.prisma, 'Partitions bench');
  const keyRow = await db.prisma.apiKey.findFirstOrThrow({ where: { organizationId: organization.id } });
  const seeded = await withClient(partitioned.url, (sql) => seed(sql, organization.id, keyRow.id, log));
  await db.close();
  log('copying the seeded database, then making its runs and attempts plain tables');
  const plain = await newDatabase(partitioned.name);
  await unpartition(plain);

  const sides = { partitioned: { database: partitioned }, plain: { database: plain } };
  const measured: Record<keyof typeof sides, Side> = {
    partitioned: { dashboard: [], e6: [], e4: [], engine: [] },
    plain: { dashboard: [], e6: [], e4: [], engine: [] },
  };
  const jsonHeaders = { 'content-type': 'application/json', 'x-api-key': apiKey, 'cache-control': 'no-cache' };
  const dashboardBody = JSON.stringify({ query: GATEWAY_DASHBOARD, variables: { id: seeded.dashboardWorkflowId } });
  const e6Path =
    `/org/${organization.id}/workflows/${seeded.bigWorkflowId}/runs?status=${E6.status}&batch_id=${seeded.bigBatchId}` +
    `&sort=started_desc&page=${E6.page}&limit=${E6.limit}`;
  const prospectIds = await withClient(partitioned.url, async (sql) => {
    const { rows } = await sql.query<{ id: string }>(
      'SELECT id FROM "Prospect" WHERE "organizationId" = $1 ORDER BY id',
      [organization.id],
    );
    return rows.map((row) => row.id);
  });

  const onSide = async <T>(name: keyof typeof sides, work: (gateway: ServerProcess, sql: pg.Client) => Promise<T>) => {
    const gateway = await startGateway({
      name: `gateway (${name})`,
      databaseUrl: sides[name].database.url,
      env: { DATABASE_POOL_SIZE: '10' },
    });
    try {
      return await withClient(sides[name].database.url, (sql) => work(gateway, sql));
    } finally {
      await gateway.stop();
    }
  };
  const load = async (
    gateway: ServerProcess,
    sql: pg.Client,
    label: string,
    request: { url: string; method?: 'GET' | 'POST'; body?: string },
  ): Promise<Measured> => {
    let before = { server: 0, postgres: new Map<number, number>() };
    const result = await runLoad(
      { ...request, headers: jsonHeaders, connections: CONNECTIONS, ...timing },
      async () => {
        before = await cpuOf(gateway, sql);
      },
    );
    const after = await cpuOf(gateway, sql);
    let postgres = 0;
    for (const [pid, used] of after.postgres) postgres += used - (before.postgres.get(pid) ?? 0);
    const requests = Math.max(1, result.requests);
    const one = {
      rps: result.rps,
      serverCpu: (after.server - before.server) / requests,
      postgresCpu: postgres / requests,
    };
    log(
      `  ${label}: ${rps(one.rps)} req/s; CPU per request: server ${ms(one.serverCpu)}, PostgreSQL ${ms(one.postgresCpu)}`,
    );
    return one;
  };

  for (let round = 0; round < ROUNDS; round++) {
    for (const name of sidesOf(round)) {
      await onSide(name, async (gateway, sql) => {
        measured[name].dashboard.push(
          await load(gateway, sql, `dashboard, ${name}`, {
            url: `${gateway.url}/graphql`,
            method: 'POST',
            body: dashboardBody,
          }),
        );
        measured[name].e6.push(await load(gateway, sql, `E6, ${name}`, { url: `${gateway.url}${e6Path}` }));
      });
    }
  }
  for (let round = 0; round < E4_ROUNDS; round++) {
    for (const name of sidesOf(round)) {
      await onSide(name, async (gateway) => {
        const started = performance.now();
        const response = await fetch(`${gateway.url}/org/${organization.id}/workflows/${seeded.e4WorkflowId}/batches`, {
          method: 'POST',
          headers: jsonHeaders,
          body: JSON.stringify({ name: `E4 ${name} ${round}`, prospect_ids: prospectIds }),
        });
        const answer = (await response.json()) as { total_prospects?: number };
        if (response.status !== 201 || answer.total_prospects !== prospectIds.length)
          throw new Error(`E4 on ${name}: ${response.status} ${JSON.stringify(answer).slice(0, 300)}`);
        measured[name].e4.push(performance.now() - started);
        log(`  E4, ${name}: ${ms(measured[name].e4.at(-1)!)}`);
      });
    }
  }
  // The engine on databases of its own (the seeded one's pending runs would be dialled too): as migrated, and plain.
  const engineDatabases = { partitioned: await newDatabase(), plain: await newDatabase() };
  for (const database of Object.values(engineDatabases))
    await (await prepareDatabase({ kind: 'postgres', url: database.url, poolSize: 2 })).close();
  await unpartition(engineDatabases.plain);
  for (let round = 0; round < ENGINE_ROUNDS; round++) {
    for (const name of sidesOf(round)) {
      const one = await engineRound(engineDatabases[name], log);
      if (!one.consistent) throw new Error(`the engine on ${name} tables: stats and counts differ`);
      measured[name].engine.push(one);
      log(
        `  engine, ${name}: ${rps(one.steadyPerSecond)} attempts/s; CPU per attempt: server ${ms(one.serverCpu)}, PostgreSQL ${ms(one.postgresCpu)}`,
      );
    }
  }
  return { runs: seeded.counts.runs!, ...measured };
}

export function reportPartitions(report: Report, { runs, partitioned, plain }: PartitionsMeasured) {
  const best = (values: Measured[], key: keyof Measured) =>
    key === 'rps' ? Math.max(...values.map((value) => value[key])) : median(values.map((value) => value[key]));
  const rows: string[][] = [];
  const within = (a: number, b: number) => a <= 1.1 * b;
  let met = true;
  for (const [label, key] of [
    ['dashboard', 'dashboard'],
    ['E6', 'e6'],
  ] as const) {
    const [p, q] = [partitioned[key], plain[key]];
    const throughput = best(p, 'rps') / best(q, 'rps');
    const cpu = best(p, 'serverCpu') / best(q, 'serverCpu');
    met &&= throughput >= 1 / 1.1 && within(best(p, 'serverCpu'), best(q, 'serverCpu'));
    rows.push([`${label}, req/s`, rps(best(p, 'rps')), rps(best(q, 'rps')), ratio(throughput)]);
    rows.push([`${label}, server CPU / request`, ms(best(p, 'serverCpu')), ms(best(q, 'serverCpu')), ratio(cpu)]);
    rows.push([
      `${label}, PostgreSQL CPU / request`,
      ms(best(p, 'postgresCpu')),
      ms(best(q, 'postgresCpu')),
      ratio(best(p, 'postgresCpu') / best(q, 'postgresCpu')),
    ]);
  }
  const engine = (side: Side, key: keyof Omit<EngineRound, 'consistent'>) =>
    key === 'steadyPerSecond'
      ? Math.max(...side.engine.map((round) => round[key]))
      : median(side.engine.map((round) => round[key]));
  const engineThroughput = engine(partitioned, 'steadyPerSecond') / engine(plain, 'steadyPerSecond');
  // The engine is judged as bench (g) judges it, by attempts/s; its CPU per attempt shows where the time went
  // (a side held back by PostgreSQL claims more runs at once, and spends less of the gateway's CPU on each).
  met &&= engineThroughput >= 1 / 1.1;
  rows.push([
    'engine, attempts/s (1,000 lines, calls of 1 s)',
    rps(engine(partitioned, 'steadyPerSecond')),
    rps(engine(plain, 'steadyPerSecond')),
    ratio(engineThroughput),
  ]);
  for (const [label, key] of [
    ['engine, server CPU / attempt', 'serverCpu'],
    ['engine, PostgreSQL CPU / attempt', 'postgresCpu'],
  ] as const)
    rows.push([
      label,
      ms(engine(partitioned, key)),
      ms(engine(plain, key)),
      ratio(engine(partitioned, key) / engine(plain, key)),
    ]);
  const e4 = median(partitioned.e4) / median(plain.e4);
  met &&= within(median(partitioned.e4), median(plain.e4));
  rows.push(['E4, a batch of every prospect (median)', ms(median(partitioned.e4)), ms(median(plain.e4)), ratio(e4)]);
  report.line('');
  report.line(`## (o) Partitioned runs beside plain tables (${runs.toLocaleString('en')} runs)`);
  report.line('');
  report.line(
    `The same seeded database twice: as migrated ("Run" and "RunAttempt" partitioned by month) and a copy where both are plain tables with the same keys, indexes, foreign keys and triggers. The same build of the gateway on each, in turns, each side first in every other round (${ROUNDS} rounds of the reads at ${CONNECTIONS} connections, \`Cache-Control: no-cache\`; ${E4_ROUNDS} of E4; ${ENGINE_ROUNDS} of the engine, each through a batch of its own on a fresh database of each kind). Throughput is each side's best round, CPU its median.`,
  );
  report.line('');
  report.table(['', 'partitioned', 'plain', 'partitioned ÷ plain'], rows);
  report.line('');
  report.line(`Target: within 10% of the plain tables: ${verdict(met)}.`);
}
