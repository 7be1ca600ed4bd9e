import type { SqlClient } from '../tx.ts';

/**
 * Takes a transaction-scoped advisory lock on `key` if no other transaction
 * holds it (held until this one ends); answers whether it was taken. Work
 * that one instance at a time should do (the retention job) skips instead of
 * waiting.
 * Index: none, no table is read.
 */
export async function tryAdvisoryLock(tx: SqlClient, key: string): Promise<boolean> {
  const [row] = await tx.$queryRaw<{ held: boolean }[]>`SELECT pg_try_advisory_xact_lock(hashtext(${key})) AS held`;
  return row?.held ?? false;
}
