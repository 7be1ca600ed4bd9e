import { Prisma } from '../../generated/prisma/client.ts';
import type { SqlPart } from './sql-part.ts';

/** No condition on a child list (child-pages.ts, child-counts.ts): every row of the parent. */
export const noCondition: SqlPart = { sql: Prisma.empty, key: '' };

/**
 * Rows in the order they were created, the newest first (a child list's ORDER BY, rows aliased `c`).
 * Index: the parent's `(parentId, "createdAt" DESC, id)` index, e.g. "Batch_workflowId_createdAt_id_idx" or
 * "Evaluation_agentId_createdAt_idx", read in order: a page stops after its rows.
 */
export const newestFirst: SqlPart = { sql: Prisma.raw('c."createdAt" DESC, c.id DESC'), key: 'created_desc' };

/** A workflow's versions, the newest first. Index: "WorkflowVersion_workflowId_version_organizationId_key", read backwards. */
export const newestVersionFirst: SqlPart = { sql: Prisma.raw('c.version DESC'), key: 'version_desc' };
