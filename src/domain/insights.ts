// Insights: figures about a period computed from the calls that ended
// in it and their records.
// A period is a pair of calendar dates (UTC), both days included.
import { z } from 'zod';
import { retryOnUniqueViolation } from '../db/prisma-errors.ts';
import { type Counted, type EndedCalls, endedCallsOfPeriod } from '../db/sql/ended-calls-of-period.ts';
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

const percent = (part: number, whole: number) => `${((part / whole) * 100).toFixed(1).replace(/\.0$/, '')}%`;
const plural = (count: number, noun: string) => `${count} ${noun}${count === 1 ? '' : 's'}`;
const quoted = (items: Counted[]) => items.map((item) => `"${item.name}" ${item.count}`).join(', ');

/**
 * The executive summary: the period's figures, then what the records say, in
 * words made only from them (labels verbatim), so a period written twice reads
 * the same.
 */
function summaryOf(start: string, end: string, calls: EndedCalls) {
  const when = start === end ? `On ${start}` : `From ${start} to ${end}`;
  const { total, issues } = calls;
  if (total === 0) return `${when}, no calls ended.`;
  const sentences = [
    `${when}, ${plural(total, 'call')} ended: ${
      issues === 0 ? 'none with an issue' : `${issues} with an issue (${percent(issues, total)} issue rate)`
    }.`,
  ];
  if (calls.dispositions.length > 0) sentences.push(`Top dispositions: ${quoted(calls.dispositions)}.`);
  const issueParts = [
    ...(calls.issueLabels.length > 0 ? [quoted(calls.issueLabels)] : []),
    ...(calls.failed > 0 ? [`${calls.failed} ended failed`] : []),
    ...(calls.failedEvaluation > 0 ? [`${calls.failedEvaluation} failed an evaluation`] : []),
  ];
  if (issueParts.length > 0) sentences.push(`Issues: ${issueParts.join('; ')}.`);
  const detected = calls.detections.reduce((sum, item) => sum + item.count, 0);
  if (detected > 0)
    sentences.push(
      `Answered by (${detected} detected): ${calls.detections
        .map((item) => `${item.name} ${percent(item.count, detected)}`)
        .join(', ')}.`,
    );
  if (calls.evaluations.length > 0)
    sentences.push(
      `Weakest evaluations: ${calls.evaluations
        .map(
          (item) =>
            `"${item.title || `evl_${item.evaluationId}`}" passed ${item.passed} of ${item.count}, mean score ${
              Math.round(item.meanScore * 10) / 10
            }`,
        )
        .join('; ')}.`,
    );
  return sentences.join(' ');
}

/**
 * Computes the organization's insight for a period and stores it, replacing
 * an earlier one for the same period. As DECISIONS.md defines them: total
 * calls are the call attempts that ended in the period; issues are those
 * whose record's disposition category is `issue` or that failed an
 * evaluation, or that ended `failed` (no answer, busy and voicemail are not
 * issues); the rate is issues / total (0 when nothing ended); the summary is
 * written from the records.
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
  const calls = await endedCallsOfPeriod(
    prisma,
    organizationId,
    dayStart(start),
    new Date(dayStart(end).getTime() + DAY_MS),
  );
  const figures = {
    executiveSummary: summaryOf(start, end, calls),
    totalCalls: calls.total,
    issuesIdentified: calls.issues,
    issueRate: calls.total === 0 ? 0 : calls.issues / calls.total,
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
