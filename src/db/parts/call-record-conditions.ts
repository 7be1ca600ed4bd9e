import { Prisma } from '../../generated/prisma/client.ts';

/** What a list of call records may be narrowed to (src/domain/call-record-search.ts's filter, parsed). */
export interface CallRecordConditions {
  /** Words to find, as a web search engine reads them (websearch_to_tsquery). */
  search?: string;
  agentId?: string;
  batchId?: string;
  dispositionLabel?: string;
  dispositionCategory?: string;
  detectionResult?: string;
  /** Records made at or after this instant. */
  from?: Date;
  /** Records made before this instant. */
  to?: Date;
}

/**
 * The query of `search` in the organization's text search configuration (its
 * `transcript_language`, checked to be one of pg_catalog's when set): a
 * subquery PostgreSQL runs once (an InitPlan), so `searchVector @@ …` can be
 * served by "CallRecord_searchVector_idx", and ranking does not parse the
 * words again for every record it ranks.
 */
export const searchQuery = (organizationId: string, search: string) =>
  Prisma.sql`(SELECT websearch_to_tsquery(o."transcriptLanguage"::regconfig, ${search})
    FROM "Organization" AS o WHERE o.id = ${organizationId})`;

/**
 * The organization's call records aliased `c` that `conditions` keep, as a
 * WHERE clause. Index: the words by "CallRecord_searchVector_idx" (GIN);
 * otherwise a batch's by "CallRecord_batchId_createdAt_idx", the
 * organization's by "CallRecord_organizationId_createdAt_id_idx", newest first.
 */
export function callRecordWhere(organizationId: string, conditions: CallRecordConditions): Prisma.Sql {
  const parts = [Prisma.sql`c."organizationId" = ${organizationId}`];
  if (conditions.search !== undefined)
    parts.push(Prisma.sql`c."searchVector" @@ ${searchQuery(organizationId, conditions.search)}`);
  if (conditions.agentId) parts.push(Prisma.sql`c."agentId" = ${conditions.agentId}`);
  if (conditions.batchId) parts.push(Prisma.sql`c."batchId" = ${conditions.batchId}`);
  if (conditions.dispositionLabel) parts.push(Prisma.sql`c."dispositionLabel" = ${conditions.dispositionLabel}`);
  if (conditions.dispositionCategory)
    parts.push(Prisma.sql`c."dispositionCategory" = ${conditions.dispositionCategory}`);
  if (conditions.detectionResult) parts.push(Prisma.sql`c."detectionResult" = ${conditions.detectionResult}`);
  if (conditions.from) parts.push(Prisma.sql`c."createdAt" >= ${conditions.from}`);
  if (conditions.to) parts.push(Prisma.sql`c."createdAt" < ${conditions.to}`);
  return Prisma.sql`WHERE ${Prisma.join(parts, ' AND ')}`;
}
