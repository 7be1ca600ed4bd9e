// Prisma's error codes that callers act on (https://www.prisma.io/docs/orm/reference/error-reference).
const codeOf = (error: unknown) => (error as { code?: unknown } | null)?.code;

/** P2002: a unique constraint refused the write. */
export const isUniqueViolation = (error: unknown) => codeOf(error) === 'P2002';

/** P2003: a foreign key refused the write (the row it points to is missing). */
export const isForeignKeyViolation = (error: unknown) => codeOf(error) === 'P2003';

/**
 * Runs `write` (an upsert), once more when it hits a unique index: two first
 * writes of one key at once, the loser's insert fails after the winner
 * committed, so running it again updates the winner's row.
 */
export async function retryOnUniqueViolation<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    return write();
  }
}
