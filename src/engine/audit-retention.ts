// Deletes audit events past AUDIT_RETENTION_DAYS, every hour, on each
// instance that runs the engine (src/domain/audit-log.ts). Instances may
// overlap: each deletes in short transactions, and an event deleted by one is
// simply not found by the other.
import type { Clock } from '../clock.ts';
import { deleteExpiredEvents } from '../domain/audit-log.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import type { Logger } from '../observability/logger.ts';

const INTERVAL_MS = 3_600_000;

export class AuditRetention {
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly prisma: PrismaClient,
    private readonly days: number,
    private readonly clock: Clock,
    private readonly log: Logger,
  ) {}

  start(): void {
    if (this.timer) return;
    const run = () => void this.runOnce().catch((error) => this.log.error({ err: error }, 'audit retention failed'));
    run();
    this.timer = setInterval(run, INTERVAL_MS);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Deletes the events older than the period; answers how many. */
  runOnce(): Promise<number> {
    return deleteExpiredEvents(this.prisma, this.clock.now(), this.days);
  }
}
