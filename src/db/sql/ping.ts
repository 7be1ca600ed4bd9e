import type { SqlQueryable } from '../database.ts';

/**
 * Rejects when the database does not answer.
 * Index: none, no table is read.
 */
export async function ping(sql: SqlQueryable): Promise<void> {
  await sql.query('SELECT 1');
}
