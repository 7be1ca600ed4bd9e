// Run and RunAttempt are partitioned by month (docs/scaling.md#runs-partitioned-by-month).
// This job, on each instance that runs the engine, at start and then hourly:
//  - creates the partitions of this month and the next MONTHS_AHEAD, so a run
//    created lands in its month's partition; one missed lands in the default
//    partition instead of failing its insert;
//  - with RUN_RETENTION_MONTHS set, drops each month that ended more than that
//    many months ago, once what summarises it is final: every run ended (so
//    its batch's counters, on the Batch row, no longer move) and an insight
//    of each day its attempts ended in, generated after the day closed and
//    outside the days the insight scheduler still regenerates. Missing
//    insights are generated first; a month with runs still open is kept.
// The pass is the gateway's own rather than pg_partman's: PGlite (the
// embedded default) cannot load extensions, and one job keeps both databases
// alike. Instances may overlap: each month's work is under an advisory lock,
// and creating a partition that exists is a no-op.
import { setImmediate as yieldToOthers } from 'node:timers/promises';
import type { Clock } from '../clock.ts';
import { type RunMonth, runMonth, runMonthOfPartition } from '../db/parts/run-months.ts';
import { createRunPartition } from '../db/sql/create-run-partition.ts';
import { deleteCallRecordsOfMonth } from '../db/sql/delete-call-records-of-month.ts';
import { dropRunPartition } from '../db/sql/drop-run-partition.ts';
import { openSummariesOfMonth } from '../db/sql/open-summaries-of-month.ts';
import { runPartitions } from '../db/sql/run-partitions.ts';
import { tryAdvisoryLock } from '../db/sql/try-advisory-lock.ts';
import { hasSqlState } from '../db/transient.ts';
import type { SqlClient } from '../db/tx.ts';
import { generateInsight } from '../domain/insights.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import type { Logger } from '../observability/logger.ts';

const INTERVAL_MS = 3_600_000;
/** Months created ahead of this one: a quarter of hourly passes may fail before an insert needs the default partition. */
export const MONTHS_AHEAD = 3;
/** Call records of a dropped month deleted per transaction. */
const RECORDS_PER_DELETE = 1000;
/** The longest the engine's statements may queue behind a creation's or a drop's lock (src/db/sql/create-run-partition.ts). */
const LOCK_TIMEOUT_MS = 1000;
/** Tries at a month's creation or drop in one pass: the tables' lock may not be had in time while the engine is busy. */
const LOCK_TRIES = 3;
/** lock_not_available: lock_timeout passed. */
const LOCK_NOT_AVAILABLE = '55P03';
/** deadlock_detected: the drop's DROP TABLE locks the tables its month's foreign keys name, which the engine writes. */
const DEADLOCK_DETECTED = '40P01';
const DAY_MS = 86_400_000;

export interface RunPartitionOptions {
  /** RUN_RETENTION_MONTHS; null: months are kept for ever. */
  retentionMonths: number | null;
  clock: Clock;
  /** The server's pino logger: a month not created or not dropped is a warning, a failed pass an error. */
  log: Logger & { warn(object: unknown, message?: string): void };
}

/** What a pass did: the months ("2026_11") created and dropped, and those kept past retention (why). */
export interface PartitionPass {
  created: string[];
  dropped: string[];
  kept: { month: string; reason: string }[];
}

export class RunPartitions {
  private timer: NodeJS.Timeout | null = null;
  private pass: Promise<PartitionPass> | null = null;

  constructor(
    private readonly prisma: PrismaClient,
    private readonly options: RunPartitionOptions,
  ) {}

  start(): void {
    if (this.timer) return;
    const run = () =>
      void this.runOnce().catch((error) => this.options.log.error({ err: error }, 'run partitions failed'));
    run();
    this.timer = setInterval(run, INTERVAL_MS);
    this.timer.unref();
  }

  /** Stops the timer; a pass under way ends. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.pass?.catch(() => {});
  }

  /** One pass as of `now`; one at a time. */
  runOnce(now = this.options.clock.now()): Promise<PartitionPass> {
    this.pass ??= this.maintain(now).finally(() => {
      this.pass = null;
    });
    return this.pass;
  }

  private async maintain(now: Date): Promise<PartitionPass> {
    const pass: PartitionPass = { created: [], dropped: [], kept: [] };
    const existing = new Set(await runPartitions(this.prisma));
    for (let offset = 0; offset <= MONTHS_AHEAD; offset++) {
      const month = runMonth(now, offset);
      if (!existing.has(month.runs) && (await this.create(month))) pass.created.push(month.key);
    }
    const { retentionMonths } = this.options;
    if (retentionMonths === null) return pass;
    // The first month kept: every month before it ended more than retentionMonths ago.
    const firstKept = runMonth(now, -retentionMonths);
    for (const name of existing) {
      const month = runMonthOfPartition(name);
      if (!month || month.to > firstKept.from) continue;
      const reason = await this.drop(month, now);
      if (reason) pass.kept.push({ month: month.key, reason });
      else pass.dropped.push(month.key);
    }
    return pass;
  }

  private async create(month: RunMonth): Promise<boolean> {
    try {
      return await this.underPartitionLock(month, (tx) => createRunPartition(tx, month, LOCK_TIMEOUT_MS));
    } catch (error) {
      // The default partition holds runs of the month: they stay there (retention keeps that partition).
      this.options.log.warn({ err: error, month: month.key }, 'run partition not created');
      return false;
    }
  }

  /**
   * Runs a month's DDL in a transaction holding the month's advisory lock
   * (false: another instance holds it). When the tables' lock is not had in
   * time, or a deadlock with the engine chose this transaction, tried again
   * (up to LOCK_TRIES in all) once the engine's statements that queued behind
   * it have run.
   */
  private async underPartitionLock(month: RunMonth, ddl: (tx: SqlClient) => Promise<void>): Promise<boolean> {
    for (let tried = 1; ; tried++) {
      try {
        return await this.prisma.$transaction(async (tx) => {
          if (!(await tryAdvisoryLock(tx, `run partition ${month.key}`))) return false;
          await ddl(tx);
          return true;
        });
      } catch (error) {
        const waited = hasSqlState(error, LOCK_NOT_AVAILABLE) || hasSqlState(error, DEADLOCK_DETECTED);
        if (!waited || tried >= LOCK_TRIES) throw error;
      }
    }
  }

  /** Drops a month past retention once its summaries are final; answers why not, else null. */
  private async drop(month: RunMonth, now: Date): Promise<string | null> {
    const open = await openSummariesOfMonth(this.prisma, month);
    if (open.openRuns > 0) return `${open.openRuns} runs not ended`;
    // The insight scheduler regenerates today's and yesterday's: a month whose attempts ended then waits.
    const settled = new Date(Math.floor(now.getTime() / DAY_MS) * DAY_MS - DAY_MS).toISOString().slice(0, 10);
    if (open.days.some(({ day }) => day >= settled)) return 'attempts ended since yesterday';
    for (const { organizationId, day } of open.days) {
      await generateInsight(this.prisma, organizationId, { period_start: day, period_end: day });
    }
    while ((await deleteCallRecordsOfMonth(this.prisma, month, RECORDS_PER_DELETE)) > 0) await yieldToOthers();
    try {
      const dropped = await this.underPartitionLock(month, (tx) => dropRunPartition(tx, month, LOCK_TIMEOUT_MS));
      return dropped ? null : 'another instance is dropping it';
    } catch (error) {
      this.options.log.warn({ err: error, month: month.key }, 'run partition not dropped; the next pass tries again');
      return 'not dropped (lock timeout or error)';
    }
  }
}
