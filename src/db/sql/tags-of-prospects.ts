import type { Tag } from '../../generated/prisma/client.ts';
import { Prisma } from '../../generated/prisma/client.ts';
import type { SqlQueryable } from '../database.ts';
import { selectRows } from '../select-rows.ts';

/**
 * The organization's tags of each prospect, in the order they were given.
 * Index: "ProspectTag_pkey" ("prospectId", "tagId"), each prospect's range;
 * the tags on "Tag_pkey".
 */
export function tagsOfProspects(sql: SqlQueryable, organizationId: string, prospectIds: readonly string[]) {
  return selectRows<Tag & { prospectId: string }>(
    sql,
    Prisma.sql`
      SELECT link."prospectId", tag.* FROM "ProspectTag" AS link JOIN "Tag" AS tag ON tag.id = link."tagId" AND tag."organizationId" = link."organizationId"
      WHERE link."prospectId" = ANY(${[...prospectIds]}::text[]) AND link."organizationId" = ${organizationId}
      ORDER BY link."createdAt", tag.name`,
  );
}
