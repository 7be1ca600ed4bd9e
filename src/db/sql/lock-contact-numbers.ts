import type { SqlClient } from '../tx.ts';

/**
 * Takes, for the rest of the transaction, the organization's lock on each
 * number that no other transaction holds, and answers those it took: a claim
 * counts a number's calls and counts one more only while it holds the number,
 * so claims on any number of instances never count past a limit together. A
 * number another claim holds is left to it this time (as FOR UPDATE SKIP
 * LOCKED leaves its runs): no claim waits, so none deadlocks on numbers.
 * The count comes in the next statement, whose snapshot is taken after the
 * lock, so it sees every call a claim that held the number committed.
 * Index: none, no table is read.
 */
export async function lockContactNumbers(tx: SqlClient, organizationId: string, numbers: string[]) {
  const rows = await tx.$queryRaw<{ number: string }[]>`
    SELECT n.number FROM unnest(${numbers}::text[]) AS n(number)
    WHERE pg_try_advisory_xact_lock(hashtext('contact ' || ${organizationId} || ' ' || n.number))`;
  return rows.map((row) => row.number);
}
