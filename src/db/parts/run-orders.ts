import { Prisma } from '../../generated/prisma/client.ts';
import type { SqlPart } from './sql-part.ts';

// Orders follow the indexes ("Run_workflowId_startedAt_id_idx" and the others
// child-pages.ts names, and their status variants): NULL started_at (runs not
// started yet) sorts as PostgreSQL sorts NULL, after every instant; statuses
// sort in lifecycle order (the enum's: PENDING, IN_PROGRESS, PAUSED, FINISHED,
// CANCELLED, FAILED). The id breaks ties so pages never overlap.
const orders = {
  started_asc: 'c."startedAt" ASC, c.id ASC',
  started_desc: 'c."startedAt" DESC, c.id DESC',
  status_asc: 'c.status ASC, c."startedAt" DESC, c.id DESC',
  status_desc: 'c.status DESC, c."startedAt" DESC, c.id DESC',
} as const;

export type RunOrder = keyof typeof orders;

/** The columns the orders read: a list that reads only some columns reads these too. */
export const RUN_ORDER_COLUMNS = ['startedAt', 'id', 'status'] as const;

/** The ORDER BY of a list of runs aliased `c`. */
export const runOrder = (order: RunOrder): SqlPart => ({ sql: Prisma.raw(orders[order]), key: order });
