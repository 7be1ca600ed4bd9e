// Named (prepared) statements on PostgreSQL (src/db/database.ts): a
// GraphQL selection's subtree statement is prepared, and clients' selections
// can make any number of texts, so they take at most 48 of the process's 64
// names; the statements the code writes (POST …/record's) always find one.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Database } from '../src/db/database.ts';

describe.runIf(process.env.TEST_DATABASE_URL)('named statements', () => {
  let db: Database;
  beforeAll(async () => {
    // The names are the process's: a fresh copy of the module starts with none taken (this project's files
    // share their worker's modules, and earlier files' statements took names).
    vi.resetModules();
    const { openDatabase } = await import('../src/db/database.ts');
    // One connection: every statement below is prepared on it, and pg_prepared_statements lists that session's.
    db = await openDatabase({ kind: 'postgres', url: process.env.TEST_DATABASE_URL!, poolSize: 1 });
  });
  afterAll(() => db?.close());

  const named = async () =>
    (
      await db.sql.query<{ statement: string }>(
        `SELECT statement FROM pg_prepared_statements WHERE name LIKE 'gateway\\_%' ORDER BY prepare_time`,
      )
    ).rows.map((row) => row.statement);

  it("leaves the fixed statements a name however many shapes clients' selections make", async () => {
    // 60 selections' texts, each asked twice: the second finds the name the first took, or none.
    for (let shape = 0; shape < 60; shape++)
      for (let time = 0; time < 2; time++) {
        const { rows } = await db.sql.query<{ n: number }>(`SELECT $1::int + ${shape} AS n`, [1], {
          prepared: 'shaped',
        });
        expect(rows).toEqual([{ n: 1 + shape }]);
      }
    const fixed = await db.sql.query<{ n: number }>('SELECT $1::int * 2 AS n', [21], { prepared: 'fixed' });
    expect(fixed.rows).toEqual([{ n: 42 }]);
    const statements = await named();
    expect(statements.filter((text) => text.startsWith('SELECT $1::int +'))).toHaveLength(48);
    expect(statements).toContain('SELECT $1::int * 2 AS n');
    // The 49th shape onwards ran unnamed, and still answered (above).
    expect(statements).not.toContain('SELECT $1::int + 48 AS n');
  });
});
