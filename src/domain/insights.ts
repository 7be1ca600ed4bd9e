// Insights: figures about a period computed from run outcomes.
// A period is a pair of calendar dates (UTC), both days included.
import { z } from 'zod';
import { retryOnUniqueViolation } from '../db/prisma-errors.ts';
import type { TenantClient } from '../db/tenant.ts';
import type { Prisma, PrismaClient } from '../generated/prisma/client.ts';

const isoDate = () => z.iso.date({ message: 'must be a date, YYYY-MM-DD' });

const endNotBeforeStart = (period: { period_start?: string; period_end?: string }) =>
  !period.period_start || !period.period_end || period.period_end >= period.period_start;
const endOrder = { path: ['period_end'], message: 'must not be before period_start' };

export const insightPeriod = z
  .strictObject({ period_start: isoDate(), period_end: isoDate() })
  .refine(endNotBeforeStart, endOrder)
  .meta({ id: 'InsightPeriod' });
type InsightPeriod = z.output<typeof insightPeriod>;

/** The insights listing's filter: insights whose whole period lies between the dates given (either optional). */
export const insightFilter = z
  .strictObject({ period_start: isoDate().optional(), period_end: isoDate().optional() })
  .refine(endNotBeforeStart, endOrder)
  .meta({ id: 'InsightFilter' });
type InsightFilter = z.output<typeof insightFilter>;

const dayStart = (date: string) => new Date(`${date}T00:00:00.000Z`);
const DAY_MS = 24 * 60 * 60 * 1000;

/** The date as YYYY-MM-DD (a `@db.Date` column reads as UTC midnight). */
export const isoDateOf = (date: Date) => date.toISOString().slice(0, 10);

export function insightWhere(filter: InsightFilter): Prisma.InsightWhereInput {
  return {
    ...(filter.period_start ? { periodStart: { gte: dayStart(filter.period_start) } } : {}),
    ...(filter.period_end ? { periodEnd: { lte: dayStart(filter.period_end) } } : {}),
  };
}

function summaryOf(start: string, end: string, total: number, issues: number, cancelled: number) {
  const when = start === end ? `On ${start}` : `From ${start} to ${end}`;
  if (total === 0) return `${when}, no calls ended.`;
  const calls = `${total} call${total === 1 ? '' : 's'} ended`;
  const rate = ((issues / total) * 100).toFixed(1).replace(/\.0$/, '');
  const failed = issues === 0 ? 'none failed' : `${issues} failed (${rate}% issue rate)`;
  const cancelledNote = cancelled > 0 ? `, ${cancelled} cancelled` : '';
  return `${when}, ${calls}: ${total - issues - cancelled} finished${cancelledNote} and ${failed}.`;
}

/**
 * Computes the organization's insight for a period and stores it, replacing
 * an earlier one for the same period. As DECISIONS.md defines them: total
 * calls are the runs that ended in the period (every final status carries
 * `endedAt`: FINISHED, FAILED and CANCELLED), issues are the FAILED ones, and
 * the rate is issues / total (0 when nothing ended).
 *
 * Takes the plain client (a scheduler) or a tenant client (a request): the
 * organization is named in every condition, so both confine it the same way.
 */
export async function generateInsight(
  client: PrismaClient | TenantClient,
  organizationId: string,
  { period_start: start, period_end: end }: InsightPeriod,
) {
  // Both clients have this API; the tenant one only adds the same organization condition.
  const prisma = client as PrismaClient;
  const outcomes = await prisma.run.groupBy({
    by: ['status'],
    where: {
      organizationId,
      status: { in: ['FINISHED', 'FAILED', 'CANCELLED'] },
      endedAt: { gte: dayStart(start), lt: new Date(dayStart(end).getTime() + DAY_MS) },
    },
    _count: { _all: true },
  });
  const countOf = (status: string) => outcomes.find((row) => row.status === status)?._count._all ?? 0;
  const issues = countOf('FAILED');
  const total = countOf('FINISHED') + issues + countOf('CANCELLED');
  const figures = {
    executiveSummary: summaryOf(start, end, total, issues, countOf('CANCELLED')),
    totalCalls: total,
    issuesIdentified: issues,
    issueRate: total === 0 ? 0 : issues / total,
    createdAt: new Date(),
  };
  const period = { organizationId, periodStart: dayStart(start), periodEnd: dayStart(end) };
  const store = () =>
    prisma.insight.upsert({
      where: { organizationId_periodStart_periodEnd: period },
      create: { ...period, ...figures },
      update: figures,
    });
  // Two generations of one period at once: the loser's insert hits the
  // unique index after the winner committed, so updating now succeeds.
  return retryOnUniqueViolation(store);
}
