// Listing runs: the runs listing's filters and sort orders, as one definition used by the
// GraphQL arguments, the REST query parameters and the SQL that serves them.
import { z } from 'zod';
import { runConditions } from '../db/parts/run-conditions.ts';
import { type RunOrder, runOrder } from '../db/parts/run-orders.ts';
import type { SqlPart } from '../db/parts/sql-part.ts';

const runStatuses = ['PENDING', 'IN_PROGRESS', 'PAUSED', 'FINISHED', 'CANCELLED', 'FAILED'] as const;
export type RunStatusName = (typeof runStatuses)[number];

export const runSorts = ['started_asc', 'started_desc', 'status_asc', 'status_desc'] as const satisfies RunOrder[];
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

/** The filter's conditions on a run aliased `c`, AND-ed after the caller's own. */
export function runFilterSql(filter: RunFilter): SqlPart {
  const { status, prospect_id, batch_id, workflow_version_id, started_after, started_before } = filter;
  return runConditions(
    {
      status,
      prospectId: prospect_id,
      batchId: batch_id,
      workflowVersionId: workflow_version_id,
      startedAfter: started_after ? new Date(started_after) : undefined,
      startedBefore: started_before ? new Date(started_before) : undefined,
    },
    JSON.stringify(filter),
  );
}

/** The columns the orders read (a list that reads only some columns reads these too). */
export { RUN_ORDER_COLUMNS } from '../db/parts/run-orders.ts';

const DEFAULT_RUN_SORT: RunSort = 'started_desc';

export const runOrderSql = (sort: RunSort = DEFAULT_RUN_SORT): SqlPart => runOrder(sort);
