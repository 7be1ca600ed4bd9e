import { Prisma } from '../../generated/prisma/client.ts';
import type { SqlPart } from './sql-part.ts';

/** What a list of runs may be narrowed to (src/domain/runs.ts's filter, its instants parsed). */
export interface RunConditions {
  status?: string;
  prospectId?: string;
  batchId?: string;
  workflowVersionId?: string;
  startedAfter?: Date;
  startedBefore?: Date;
}

/**
 * The conditions on a run aliased `c`, AND-ed after a list's own (child-pages.ts,
 * child-counts.ts), named by `key` for requests that share a statement.
 * Index: a status is served by the status variants of the lists' indexes
 * ("Run_workflowId_status_startedAt_id_idx", "Run_batchId_status_startedAt_id_idx").
 */
export function runConditions(conditions: RunConditions, key: string): SqlPart {
  const parts: Prisma.Sql[] = [];
  if (conditions.status) parts.push(Prisma.sql`c.status = ${conditions.status}::"RunStatus"`);
  if (conditions.prospectId) parts.push(Prisma.sql`c."prospectId" = ${conditions.prospectId}`);
  if (conditions.batchId) parts.push(Prisma.sql`c."batchId" = ${conditions.batchId}`);
  if (conditions.workflowVersionId) parts.push(Prisma.sql`c."workflowVersionId" = ${conditions.workflowVersionId}`);
  if (conditions.startedAfter) parts.push(Prisma.sql`c."startedAt" >= ${conditions.startedAfter}`);
  if (conditions.startedBefore) parts.push(Prisma.sql`c."startedAt" < ${conditions.startedBefore}`);
  return { sql: parts.length ? Prisma.sql`AND ${Prisma.join(parts, ' AND ')}` : Prisma.empty, key };
}
