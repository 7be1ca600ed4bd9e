import type { SqlQueryable } from '../database.ts';

/**
 * The primary's WAL write position (`pg_current_wal_lsn()`, as PostgreSQL writes it: `16/B374D848`): every
 * transaction committed before this statement ran is at or below it.
 * Index: none, no table is read.
 */
export async function walPosition(sql: SqlQueryable): Promise<string> {
  const { rows } = await sql.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn');
  return rows[0]!.lsn;
}
