// The months Run and RunAttempt are partitioned by (prisma/migrations/…_partitioned_runs):
// a month's partitions hold the runs whose id (run_ + the creation's
// milliseconds in 12 hex digits) falls in it, and those runs' attempts.

/** A calendar month (UTC) of runs: its partitions' names and its bounds on the run ids. */
export interface RunMonth {
  /** "2026_11". */
  key: string;
  runs: string;
  attempts: string;
  /** The first run id of the month, and the first of the next (excluded). */
  from: string;
  to: string;
}

const idAt = (ms: number) => `run_${ms.toString(16).padStart(12, '0')}`;

/** The month `offset` months after the one `at` is in (UTC). */
export function runMonth(at: Date, offset = 0): RunMonth {
  const start = Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + offset, 1);
  const month = new Date(start);
  const key = `${month.getUTCFullYear()}_${String(month.getUTCMonth() + 1).padStart(2, '0')}`;
  return {
    key,
    runs: `Run_${key}`,
    attempts: `RunAttempt_${key}`,
    from: idAt(start),
    to: idAt(Date.UTC(month.getUTCFullYear(), month.getUTCMonth() + 1, 1)),
  };
}

/** The month of a partition named `Run_2026_11`; null for another name (the default partition). */
export function runMonthOfPartition(name: string): RunMonth | null {
  const match = /^Run_(\d{4})_(\d{2})$/.exec(name);
  return match ? runMonth(new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, 1))) : null;
}
