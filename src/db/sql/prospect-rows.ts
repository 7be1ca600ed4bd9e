// What insert-prospects.ts and update-prospects.ts share: the rows of a CSV
// import as a relation, and the statement that writes them with their list
// membership and tags.
import { Prisma } from '../../generated/prisma/client.ts';
import type { SqlClient } from '../tx.ts';

/** Rows as one array per column (unnested together); `attributes` as JSON text. */
export interface ProspectColumns {
  firstNames: string[];
  lastNames: string[];
  emails: string[];
  phones: string[];
  timezones: (string | null)[];
  attributes: string[];
}

/** Where the prospects written go besides: a list (or none) and tags (or none). */
export interface ProspectMemberships {
  listId: string | null;
  tagIds: string[];
}

/** The rows as a relation `r` (first_name, last_name, email, phone, timezone, attributes). */
export const unnestedProspects = (columns: ProspectColumns) => Prisma.sql`unnest(
      ${columns.firstNames}::text[], ${columns.lastNames}::text[], ${columns.emails}::text[],
      ${columns.phones}::text[], ${columns.timezones}::text[], ${columns.attributes}::text[]
    ) AS r(first_name, last_name, email, phone, timezone, attributes)`;

/**
 * One statement: `written` (a data-modifying query returning the prospects'
 * ids and organization), their list membership and tags, and how many it wrote.
 * Index: "ProspectListMember_pkey" and "ProspectTag_pkey" (ON CONFLICT DO NOTHING).
 */
export async function writeProspects(tx: SqlClient, written: Prisma.Sql, { listId, tagIds }: ProspectMemberships) {
  const listed = listId
    ? Prisma.sql`, listed AS (INSERT INTO "ProspectListMember" ("organizationId", "listId", "prospectId")
        SELECT "organizationId", ${listId}, id FROM written ON CONFLICT DO NOTHING)`
    : Prisma.empty;
  const tagged =
    tagIds.length > 0
      ? Prisma.sql`, tagged AS (INSERT INTO "ProspectTag" ("organizationId", "prospectId", "tagId")
          SELECT written."organizationId", written.id, tag.id FROM written CROSS JOIN unnest(${tagIds}::text[]) AS tag(id) ON CONFLICT DO NOTHING)`
      : Prisma.empty;
  const [result] = await tx.$queryRaw<{ count: number }[]>`
    WITH written AS (${written}) ${listed} ${tagged} SELECT count(*)::int AS count FROM written`;
  return result!.count;
}
