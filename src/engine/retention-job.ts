// Retention (an organization's `retention_days`, PATCH /org/{org_id}/settings):
// every interval, the personal data of each such organization's runs that
// ended more than that many days ago is scrubbed as an erasure scrubs it
// (src/db/parts/scrubbed.ts), keeping the rows, outcomes and counters, so
// batches and insights still add up. docs/security.md#retention.
//
// It runs beside the engine without holding it up: in transactions of at most
// BATCH_RUNS runs each, yielding to the event loop between them, touching only
// ended runs (which the engine no longer writes) and never a batch's row. Each
// organization's progress is a mark (the last run scrubbed, by "endedAt" and
// id) kept on its row, so a pass reads only runs not scrubbed yet; it moves in
// a short transaction after each scrub's commit (a crash between the two only
// has the next pass scrub those runs again, which changes nothing). Every
// instance that runs the engine runs the job; an advisory lock per organization
// lets one of them scrub it at a time, the others skip it.
import { setImmediate as yieldToOthers } from 'node:timers/promises';
import { type Clock, systemClock } from '../clock.ts';
import { moveRetentionMark } from '../db/sql/move-retention-mark.ts';
import { type RetentionMark, type ScrubbedRuns, scrubExpiredRuns } from '../db/sql/scrub-expired-runs.ts';
import { tryAdvisoryLock } from '../db/sql/try-advisory-lock.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import type { Logger } from '../observability/logger.ts';

/** Runs scrubbed per transaction (with their attempts, records and events): each holds its rows' locks briefly. */
const BATCH_RUNS = 1000;
const DAY_MS = 86_400_000;

export interface RetentionOptions {
  /** How often a pass runs (RETENTION_INTERVAL_MS); 0: only when asked (`runOnce`). */
  intervalMs: number;
  log: Pick<Logger, 'error'>;
  clock?: Clock;
  batchRuns?: number;
}

/** What a pass scrubbed, over every organization. */
export type RetentionPass = Omit<ScrubbedRuns, 'last'> & { batches: number };

export class RetentionJob {
  private timer: NodeJS.Timeout | null = null;
  private pass: Promise<RetentionPass> | null = null;
  private stopped = false;

  constructor(
    private readonly prisma: PrismaClient,
    private readonly options: RetentionOptions,
  ) {}

  start(): void {
    if (this.options.intervalMs <= 0 || this.timer) return;
    this.stopped = false;
    this.timer = setInterval(
      () => void this.runOnce().catch((error) => this.options.log.error({ err: error }, 'retention failed')),
      this.options.intervalMs,
    );
    this.timer.unref();
  }

  /** Stops the timer; a pass under way ends after its current transaction. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.stopped = true;
    await this.pass?.catch(() => {});
  }

  /** Scrubs every organization's runs past its retention, as of `now`; one pass at a time. */
  runOnce(now = (this.options.clock ?? systemClock).now()): Promise<RetentionPass> {
    this.pass ??= this.scrubAll(now).finally(() => {
      this.pass = null;
    });
    return this.pass;
  }

  private async scrubAll(now: Date): Promise<RetentionPass> {
    const total: RetentionPass = { runs: 0, attempts: 0, records: 0, events: 0, batches: 0 };
    const organizations = await this.prisma.organization.findMany({
      where: { retentionDays: { not: null } },
      select: { id: true, retentionDays: true },
    });
    const limit = this.options.batchRuns ?? BATCH_RUNS;
    for (const { id, retentionDays } of organizations) {
      const cutoff = new Date(now.getTime() - retentionDays! * DAY_MS);
      while (!this.stopped) {
        const scrubbed = await this.scrubBatch(id, cutoff, limit, now);
        // Another instance is scrubbing this organization: it goes on with it.
        if (!scrubbed) break;
        if (scrubbed.last) await moveRetentionMark(this.prisma, id, scrubbed.last);
        total.runs += scrubbed.runs;
        total.attempts += scrubbed.attempts;
        total.records += scrubbed.records;
        total.events += scrubbed.events;
        total.batches += 1;
        if (scrubbed.runs < limit) break;
        // Let the requests and the engine's work waiting on this process go first.
        await yieldToOthers();
      }
    }
    return total;
  }

  /** One transaction: the organization's advisory lock, its mark read, the next runs scrubbed. */
  private scrubBatch(organizationId: string, cutoff: Date, limit: number, now: Date) {
    return this.prisma.$transaction(
      async (tx) => {
        if (!(await tryAdvisoryLock(tx, `retention ${organizationId}`))) return null;
        const row = await tx.organization.findUniqueOrThrow({
          where: { id: organizationId },
          select: { retainedAfterAt: true, retainedAfterRunId: true },
        });
        const after: RetentionMark | null =
          row.retainedAfterAt && row.retainedAfterRunId !== null
            ? { endedAt: row.retainedAfterAt, runId: row.retainedAfterRunId }
            : null;
        return scrubExpiredRuns(tx, organizationId, cutoff, after, limit, now);
      },
      { maxWait: 10_000, timeout: 120_000 },
    );
  }
}
