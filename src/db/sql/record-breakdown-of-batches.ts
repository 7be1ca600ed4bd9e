import { Prisma } from '../../generated/prisma/client.ts';
import type { SqlQueryable } from '../database.ts';
import { selectRows } from '../select-rows.ts';

/** One group of a batch's call records: by disposition, by detection, or all of them. */
export interface RecordGroup {
  batchId: string;
  /** 'disposition', 'detection', or 'all' (every record of the batch). */
  kind: 'disposition' | 'detection' | 'all';
  label: string | null;
  category: string | null;
  detection: string | null;
  count: number;
}

/**
 * Each batch's call records counted by disposition (label and category), by
 * detection result, and in all, in one statement for every batch asked (one
 * scan, three grouping sets). Records with no disposition or detection count
 * only in all.
 * Index: "CallRecord_batchId_createdAt_idx", each batch's range.
 */
export function recordBreakdownOfBatches(sql: SqlQueryable, organizationId: string, batchIds: readonly string[]) {
  return selectRows<RecordGroup>(
    sql,
    Prisma.sql`
      SELECT r."batchId",
        CASE GROUPING(r."dispositionLabel", r."detectionResult")
          WHEN 1 THEN 'disposition' WHEN 2 THEN 'detection' ELSE 'all' END AS kind,
        r."dispositionLabel" AS label, r."dispositionCategory" AS category, r."detectionResult" AS detection,
        count(*)::int AS count
      FROM "CallRecord" AS r
      WHERE r."batchId" = ANY(${[...batchIds]}::text[]) AND r."organizationId" = ${organizationId}
      GROUP BY GROUPING SETS (
        (r."batchId", r."dispositionLabel", r."dispositionCategory"),
        (r."batchId", r."detectionResult"),
        (r."batchId"))
      HAVING CASE GROUPING(r."dispositionLabel", r."detectionResult")
        WHEN 1 THEN r."dispositionLabel" IS NOT NULL WHEN 2 THEN r."detectionResult" IS NOT NULL ELSE true END
      ORDER BY count(*) DESC, 3, 5`,
  );
}
