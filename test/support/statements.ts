// The SQL statements an operation sends, as text to pin with inline snapshots
// (as Pothos' plugin-prisma tests do): a rewrite that changes a plan, or adds
// a statement, shows in review, not only in a count.
import type { Database } from '../../src/db/database.ts';

/**
 * Folds what differs between runs and databases: whitespace, and the
 * placeholders of parameter lists, whose length follows the data ($1,$2,…).
 * Values are never in the text (they are parameters).
 */
function normalizeStatement(sql: string): string {
  return sql
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/\$\d+(?:\s*,\s*\$\d+)+/g, '$…')
    .replace(/\$\d+/g, '$n');
}

/**
 * Runs `work` and returns its result with the statements it sent, normalized,
 * in text order: resolvers that run side by side send theirs in no fixed order.
 */
export async function recordStatements<T>(
  db: Database,
  work: () => Promise<T>,
): Promise<{ result: T; statements: string[] }> {
  const statements: string[] = [];
  const stop = db.onStatement((sql) => statements.push(normalizeStatement(sql)));
  try {
    return { result: await work(), statements: statements.sort() };
  } finally {
    stop();
  }
}
