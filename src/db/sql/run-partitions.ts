import type { SqlClient } from '../tx.ts';

/**
 * The names of Run's partitions (its default one included).
 * Index: none, the catalog's pg_inherits of one table (a partition a month).
 */
export async function runPartitions(tx: SqlClient): Promise<string[]> {
  const rows = await tx.$queryRaw<{ name: string }[]>`
    SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
    WHERE i.inhparent = '"Run"'::regclass ORDER BY c.relname`;
  return rows.map((row) => row.name);
}
