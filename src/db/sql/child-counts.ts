import { Prisma } from '../../generated/prisma/client.ts';
import type { SqlQueryable } from '../database.ts';
import { identifier } from '../parts/identifiers.ts';
import type { SqlPart } from '../parts/sql-part.ts';
import { selectRows } from '../select-rows.ts';

/**
 * How many rows of a child table each parent has (with `where`, AND-ed, on
 * the child `c`); parents with none are absent.
 * Index: the list's (parent, order) index, its parent prefix (child-pages.ts names them).
 */
export function childCounts(
  sql: SqlQueryable,
  list: { table: string; parent: string; where: SqlPart },
  organizationId: string,
  parentIds: string[],
) {
  const parent = identifier(list.parent);
  return selectRows<{ parent: string; count: string | number | bigint }>(
    sql,
    Prisma.sql`
      SELECT c.${parent} AS parent, count(*) AS count FROM ${identifier(list.table)} AS c
      WHERE c.${parent} = ANY(${parentIds}::text[]) AND c."organizationId" = ${organizationId}
        ${list.where.sql}
      GROUP BY 1`,
  );
}
