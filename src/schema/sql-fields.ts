// What PostgreSQL writes of a field when it writes a connection's subtree as
// JSON text (src/graphql/sql-subtrees/, docs/sql-rendering.md). Declared
// beside the field, in its `extensions.sql`; a field exposed from a column
// (`t.exposeString('name')`) needs no declaration: Pothos notes the column
// (`extensions.pothosExposedField`). A field with neither is answered by its
// resolver, and so is any connection whose selection holds one.
import type { SqlPart } from '../db/parts/sql-part.ts';
import type { Prisma } from '../generated/prisma/client.ts';

/** The rows a connection lists under each parent row, as child-pages.ts reads them (rows aliased `c`). */
export interface SqlChildList {
  table: string;
  /** The child's column naming its parent. */
  parent: string;
  where: SqlPart;
  orderBy: SqlPart;
  /** `totalCount`, given the alias of the parent's row; absent: the rows are counted. */
  count?: (parent: string) => Prisma.Sql;
  /** A condition on the rows `c`, given the alias of the parent's row, that only leaves out partitions (child-pages.ts's `pruning`). */
  pruning?: (parent: string) => Prisma.Sql;
}

export type SqlField =
  /** A scalar: its SQL value (trusted text), given the alias of the row (a DateTime a timestamptz, an enum its label). */
  | { value: (row: string) => string }
  /** An object read from the same row (a batch's `stats`). */
  | { sameRow: true }
  /** An object read from the row of `table` whose id is this row's `column` (a run's `prospect`). */
  | { row: { table: string; column: string } }
  /**
   * An object read from the first row, in `orderBy` (given its alias), of `table`
   * whose `parent` column is this row's id (a run's `lastRecord`); null when none.
   */
  | { first: { table: string; parent: string; orderBy: (row: string) => string } }
  /** A Float: its SQL value (a double precision), written as JavaScript writes the number. */
  | { float: (row: string) => string }
  /** An object held in this row's JSON column `column` (a record's `disposition`); null when not an object. */
  | { json: string }
  /** A member of an object held in JSON (a JSON Schema type's field), by its stored (wire) name. */
  | { member: string }
  /** A connection, given its arguments (without paging); null when they are answered by its resolver only. */
  | { children: (args: Record<string, unknown>) => SqlChildList | null };

/** The `extensions` of a field PostgreSQL can write. */
export const sqlField = (sql: SqlField) => ({ sql });
