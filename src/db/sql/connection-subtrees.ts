import { Prisma } from '../../generated/prisma/client.ts';
import type { SqlQueryable } from '../database.ts';
import { identifier } from '../parts/identifiers.ts';
import { selectRows } from '../select-rows.ts';

/**
 * The JSON text of one connection under each of many parents (the rows of
 * `parentTable` with these ids, in the organization), written by PostgreSQL:
 * `text` is that text under the parent row aliased `p` (src/graphql/sql-subtrees/render.ts
 * builds it), so Node.js splices it into the answer without parsing it.
 * Index: the parents on their primary key; each page on its list's
 * (parent, order) index, as child-pages.ts reads it (it names them), related
 * rows on their primary keys.
 * Prepared (a named statement): a selection's text is the same on every
 * request, and planning it costs a dashboard's statement a fifth of its
 * execution; PostgreSQL plans it once per connection, then generically.
 */
export function connectionSubtrees(
  sql: SqlQueryable,
  parentTable: string,
  organizationId: string,
  parentIds: readonly string[],
  text: Prisma.Sql,
) {
  return selectRows<{ parent: string; text: string }>(
    sql,
    Prisma.sql`
      SELECT p.id AS parent, ${text} AS text FROM ${identifier(parentTable)} AS p
      WHERE p.id = ANY(${parentIds}::text[]) AND p."organizationId" = ${organizationId}`,
    { prepared: 'shaped' },
  );
}
