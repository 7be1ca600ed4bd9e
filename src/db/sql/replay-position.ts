import type { SqlQueryable } from '../database.ts';

/**
 * How far a streaming replica has replayed the primary's WAL (`pg_last_wal_replay_lsn()`): what was committed
 * at or below it is visible there. Null on a server that is not a standby (nor ever was since it started).
 * Index: none, no table is read.
 */
export async function replayPosition(sql: SqlQueryable): Promise<string | null> {
  const { rows } = await sql.query<{ lsn: string | null }>('SELECT pg_last_wal_replay_lsn()::text AS lsn');
  return rows[0]!.lsn;
}
