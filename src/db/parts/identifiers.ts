// Names and constants spliced into SQL text (never input): table and column
// names, quoted here and only here, and enum values, taken from the generated
// Prisma enums so a renamed status fails to compile instead of matching nothing.
import { Prisma } from '../../generated/prisma/client.ts';

/** A quoted identifier: `"name"`, an embedded quote doubled. */
export const identifier = (name: string) => Prisma.raw(quoteIdentifier(name));

/** The same, as text, for SQL assembled as a string. */
export function quoteIdentifier(name: string) {
  return `"${name.replaceAll('"', '""')}"`;
}

/** The columns of the row aliased `alias` (`a."x", a."y"`); every column (`a.*`) when null. */
export const columnList = (alias: string, columns: readonly string[] | null | undefined) =>
  Prisma.raw(columns ? columns.map((column) => `${alias}.${quoteIdentifier(column)}`).join(', ') : `${alias}.*`);

/** Enum values as SQL literals, for `IN (…)`: `'PENDING', 'IN_PROGRESS'`. */
export const enumValues = <Value extends string>(...values: Value[]) =>
  Prisma.raw(values.map((value) => `'${value.replaceAll("'", "''")}'`).join(', '));
