import type { RunStatus } from '../../generated/prisma/enums.ts';

/** The batch counter column for each run status: a batch's `stats` are these columns, moved with its runs. */
export const counterColumn = {
  PENDING: 'pendingCount',
  IN_PROGRESS: 'inProgressCount',
  PAUSED: 'pausedCount',
  FINISHED: 'finishedCount',
  CANCELLED: 'cancelledCount',
  FAILED: 'failedCount',
} as const satisfies Record<RunStatus, string>;

/** How many runs are in each status: a batch's counters, or their sums over a workflow's batches. */
export type RunCounters = Record<(typeof counterColumn)[RunStatus], number>;

/** A batch as its runs are listed under it: its id, its workflow, its counters. */
export type ListedBatch = RunCounters & { id: string; workflowId: string };

/** The runs a batch row aliased `row` counts: with `status`, or in all (SQL text). */
export const countedRunsSql = (row: string, status?: RunStatus) =>
  (status ? [counterColumn[status]] : Object.values(counterColumn)).map((column) => `${row}."${column}"`).join(' + ');
