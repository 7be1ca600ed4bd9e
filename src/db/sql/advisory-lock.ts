import type { SqlClient } from '../tx.ts';

/**
 * Takes a transaction-scoped advisory lock on `key` (held until the
 * transaction ends), across instances: one holder at a time per key.
 * Index: none, no table is read.
 */
export function advisoryLock(tx: SqlClient, key: string) {
  return tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${key}))`;
}
