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

/** The runs a batch row aliased `row` counts: with `status`, or in all (SQL text). */
export const countedRunsSql = (row: string, status?: RunStatus) =>
  (status ? [counterColumn[status]] : Object.values(counterColumn)).map((column) => `${row}."${column}"`).join(' + ');
