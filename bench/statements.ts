// The SQL statements one gateway request sends, seen from inside: the gateway
// app built in this process on its own Database (the one `onStatement`
// reports for), the request sent with `inject` (no socket). Each statement is
// kept with its parameters, so the report can EXPLAIN ANALYZE exactly what
// the gateway ran.
import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import type { Database } from '../src/db/database.ts';
import { SecretBox } from '../src/domain/secrets.ts';
import { buildApp } from '../src/http/app.ts';
import { createServices } from '../src/services.ts';

interface Statement {
  sql: string;
  params: unknown[];
}

export interface CapturedRequest {
  status: number;
  body: string;
  /** Counted by Database.onStatement. */
  count: number;
  statements: Statement[];
}

export interface Request {
  method: 'GET' | 'POST';
  url: string;
  headers: Record<string, string>;
  body?: string;
}

export async function captureStatements(db: Database, requests: Request[], rounds = 3): Promise<CapturedRequest[]> {
  const services = createServices({ db, secrets: new SecretBox(randomBytes(32)) });
  const app = await buildApp({ services, rateLimits: { perOrganization: 1e9, agentUpdate: 1e9, windowMs: 60_000 } });
  let seen: Statement[] = [];
  let counted = 0;
  const stopCounting = db.onStatement((sql, params) => {
    counted++;
    seen.push({ sql, params: params() });
  });
  const results: CapturedRequest[] = [];
  try {
    for (const request of requests) {
      let captured: CapturedRequest | undefined;
      // The last round is kept: the first ones warm caches (and refresh the key's last-used time).
      for (let round = 0; round < rounds; round++) {
        seen = [];
        counted = 0;
        const response = await app.inject({
          method: request.method,
          url: request.url,
          headers: request.headers,
          ...(request.body === undefined ? {} : { payload: request.body }),
        });
        captured = { status: response.statusCode, body: response.body, count: counted, statements: seen };
      }
      results.push(captured!);
    }
  } finally {
    stopCounting();
    await app.close();
    await services.close();
  }
  return results;
}

/** EXPLAIN (ANALYZE, BUFFERS) of a statement with its parameters; the plan's lines. */
export async function explain(client: pg.ClientBase, sql: string, params: unknown[]): Promise<string[]> {
  // Run once first, so the plan shown is of a warm cache, as under load.
  await client.query(sql, params);
  const { rows } = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS) ${sql}`, params);
  return rows.map((row) => row['QUERY PLAN']);
}
