import type { Prisma } from '../generated/prisma/client.ts';
import type { QueryOptions, SqlQueryable } from './database.ts';

/** Runs a statement on the driver directly, not through Prisma's query pipeline (src/schema/loaders.ts says why). */
export async function selectRows<Row>(
  sql: SqlQueryable,
  statement: Prisma.Sql,
  options?: QueryOptions,
): Promise<Row[]> {
  return (await sql.query<Row>(statement.text, statement.values, options)).rows;
}
