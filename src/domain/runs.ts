// Listing runs: E6's filters and sort orders, as one definition used by the
// GraphQL arguments, the REST query parameters and the SQL that serves them.
import { z } from 'zod';
import type { SqlPart } from '../db/sql-part.ts';
import { Prisma } from '../generated/prisma/client.ts';
import { parseOrThrow } from './validation.ts';

export const runStatuses = ['PENDING', 'IN_PROGRESS', 'PAUSED', 'FINISHED', 'CANCELLED', 'FAILED'] as const;
export type RunStatusName = (typeof runStatuses)[number];

export const runSorts = ['started_asc', 'started_desc', 'status_asc', 'status_desc'] as const;
export type RunSort = (typeof runSorts)[number];

const rfc3339 = () => z.iso.datetime({ offset: true, local: false });

export const runFilter = z
  .strictObject({
    status: z.enum(runStatuses).optional().meta({ description: 'runs in this status;' }),
    prospect_id: z.string().optional().meta({ description: 'runs calling this prospect (`prs_…`)' }),
    batch_id: z.string().optional().meta({ description: 'runs of this batch (`bat_…`)' }),
    workflow_version_id: z.string().optional().meta({ description: 'runs of this workflow version (`wfv_…`)' }),
    started_after: rfc3339().optional().meta({ description: 'runs started at or after this instant (RFC 3339)' }),
    started_before: rfc3339().optional().meta({ description: 'runs started before this instant (RFC 3339)' }),
  })
  .meta({ id: 'RunFilter', description: 'Conditions a run must meet, all of them.' });

export type RunFilter = z.output<typeof runFilter>;

export const parseRunFilter = (input: unknown): RunFilter => parseOrThrow(runFilter, input ?? {}, ['filter']);

/** The filter's conditions on a run aliased `c`, AND-ed after the caller's own. */
export function runFilterSql(filter: RunFilter): SqlPart {
  const conditions: Prisma.Sql[] = [];
  if (filter.status) conditions.push(Prisma.sql`c.status = ${filter.status}::"RunStatus"`);
  if (filter.prospect_id) conditions.push(Prisma.sql`c."prospectId" = ${filter.prospect_id}`);
  if (filter.batch_id) conditions.push(Prisma.sql`c."batchId" = ${filter.batch_id}`);
  if (filter.workflow_version_id) conditions.push(Prisma.sql`c."workflowVersionId" = ${filter.workflow_version_id}`);
  if (filter.started_after) conditions.push(Prisma.sql`c."startedAt" >= ${new Date(filter.started_after)}`);
  if (filter.started_before) conditions.push(Prisma.sql`c."startedAt" < ${new Date(filter.started_before)}`);
  return {
    sql: conditions.length ? Prisma.sql`AND ${Prisma.join(conditions, ' AND ')}` : Prisma.empty,
    key: JSON.stringify(filter),
  };
}

// Orders follow the indexes: NULL started_at (runs not started yet) sorts
// as PostgreSQL sorts NULL, after every instant; statuses sort in lifecycle
// order (PENDING, IN_PROGRESS, PAUSED, FINISHED, CANCELLED, FAILED). The id
// breaks ties so pages never overlap.
const runOrders: Record<RunSort, string> = {
  started_asc: 'c."startedAt" ASC, c.id ASC',
  started_desc: 'c."startedAt" DESC, c.id DESC',
  status_asc: 'c.status ASC, c."startedAt" DESC, c.id DESC',
  status_desc: 'c.status DESC, c."startedAt" DESC, c.id DESC',
};

/** The columns the orders above read: a list that reads only some columns reads these too. */
export const RUN_ORDER_COLUMNS = ['startedAt', 'id', 'status'] as const;

export const DEFAULT_RUN_SORT: RunSort = 'started_desc';

export function runOrderSql(sort: RunSort = DEFAULT_RUN_SORT): SqlPart {
  return { sql: Prisma.raw(runOrders[sort]), key: sort };
}
