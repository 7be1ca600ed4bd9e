// The raw baseline: plain node:http and `pg`, one hand-written SQL statement
// per request that builds the whole JSON answer inside PostgreSQL (the answer
// is sent as the text PostgreSQL made, never parsed in Node). No GraphQL, no
// authentication, no validation beyond what the SQL needs: the ceiling a
// gateway over the same tables can approach.
//
//   GET /dashboard?id=<workflow>       the dashboard query's answer (&records=1:
//       with each run's latest call record, as the dashboard with records asks)
//   GET /runs?workflow_id=…&status=…&batch_id=…&page=…&limit=…&sort=…   E6's
//       answer (sort: the listing's, started_desc when absent), the total from
//       the batch's counters (&count=rows: count(*) of the rows)
//   GET /health
//
// Usage: node --import tsx bench/baseline-raw.ts <port>, with DATABASE_URL and
// BENCH_ORGANIZATION_ID (the organization every query is confined to).
import http from 'node:http';
import pg from 'pg';
import { DASHBOARD_SQL, dashboardSql, RAW_RUN_ORDERS, type RawRunOrder, runsSql } from './sql.ts';

const port = Number(process.argv[2]);
const organizationId = process.env.BENCH_ORGANIZATION_ID!;
const pool = new pg.Pool({
  connectionString: process.env.DATABASE_URL,
  max: Number(process.env.DATABASE_POOL_SIZE ?? 10),
});
pool.on('error', () => {});

async function answer(sql: string, params: unknown[], response: http.ServerResponse) {
  const { rows } = await pool.query<{ body: string | null }>(sql, params);
  const body = rows[0]?.body ?? '{"data":null}';
  response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  response.end(body);
}

const DASHBOARD_WITH_RECORDS_SQL = dashboardSql(true);

/** Each sort's statement, total from the counters [0] and by count(*) [1]. */
const statements = Object.fromEntries(
  Object.keys(RAW_RUN_ORDERS).map((sort) => [
    sort,
    [runsSql(sort as RawRunOrder, false), runsSql(sort as RawRunOrder, true)],
  ]),
) as Record<RawRunOrder, [string, string]>;

const server = http.createServer((request, response) => {
  const url = new URL(request.url ?? '/', 'http://localhost');
  const query = url.searchParams;
  const failed = (error: Error) => {
    response.writeHead(500, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ error: error.message }));
  };
  if (url.pathname === '/dashboard') {
    answer(
      query.get('records') === '1' ? DASHBOARD_WITH_RECORDS_SQL : DASHBOARD_SQL,
      [query.get('id'), organizationId],
      response,
    ).catch(failed);
  } else if (url.pathname === '/runs') {
    const params = [
      query.get('workflow_id'),
      query.get('batch_id'),
      query.get('status'),
      Number(query.get('page') ?? 1),
      Number(query.get('limit') ?? 20),
      organizationId,
    ];
    const sort = query.get('sort') ?? 'started_desc';
    if (!(sort in RAW_RUN_ORDERS)) return failed(new Error(`sort: one of ${Object.keys(RAW_RUN_ORDERS).join(', ')}`));
    answer(statements[sort as RawRunOrder][query.get('count') === 'rows' ? 1 : 0], params, response).catch(failed);
  } else if (url.pathname === '/health') {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end('{"status":"ok"}');
  } else {
    response.writeHead(404);
    response.end();
  }
});
server.keepAliveTimeout = 60_000;
server.listen(port, '127.0.0.1');

process.on('SIGTERM', () => {
  server.close();
  server.closeAllConnections();
  void pool.end().then(() => process.exit(0));
});
