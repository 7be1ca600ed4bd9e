// Regenerates insights on a schedule: every interval, today's and yesterday's
// (UTC) for each organization with runs that ended in them. Each instance may
// run it; regenerating a period replaces its insight, so overlaps are harmless.
import { generateInsight } from '../domain/insights.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import type { Logger } from '../observability/logger.ts';

const isoDay = (date: Date) => date.toISOString().slice(0, 10);

export class InsightScheduler {
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly prisma: PrismaClient,
    private readonly intervalMs: number,
    private readonly log: Logger,
  ) {}

  start(): void {
    if (this.intervalMs <= 0 || this.timer) return;
    this.timer = setInterval(
      () => void this.runOnce().catch((error) => this.log.error({ err: error }, 'insights failed')),
      this.intervalMs,
    );
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Generates the recent periods' insights; returns how many it wrote. */
  async runOnce(now = new Date()): Promise<number> {
    const today = isoDay(now);
    const yesterday = isoDay(new Date(now.getTime() - 86_400_000));
    const active = await this.prisma.run.groupBy({
      by: ['organizationId'],
      where: { endedAt: { gte: new Date(`${yesterday}T00:00:00.000Z`) } },
    });
    for (const { organizationId } of active) {
      for (const day of [yesterday, today]) {
        await generateInsight(this.prisma, organizationId, { period_start: day, period_end: day });
      }
    }
    return active.length * 2;
  }
}
