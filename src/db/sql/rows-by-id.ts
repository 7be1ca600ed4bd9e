import { Prisma } from '../../generated/prisma/client.ts';
import type { SqlQueryable } from '../database.ts';
import { identifier } from '../parts/identifiers.ts';
import { selectRows } from '../select-rows.ts';

/**
 * The organization's rows of `table` with these ids (others' are not returned).
 * Index: the table's primary key ("<table>_pkey"), one probe per id: the ids
 * are one array joined on it, where `IN (…1,000 parameters)` makes PostgreSQL
 * scan the whole table.
 */
export function rowsById<Row>(sql: SqlQueryable, table: string, organizationId: string, ids: readonly string[]) {
  return selectRows<Row>(
    sql,
    Prisma.sql`SELECT t.* FROM unnest(${[...ids]}::text[]) AS given(id) JOIN ${identifier(table)} AS t ON t.id = given.id
               WHERE t."organizationId" = ${organizationId}`,
  );
}
