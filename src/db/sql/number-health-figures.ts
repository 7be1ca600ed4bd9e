import { Prisma } from '../../generated/prisma/client.ts';
import type { SqlClient } from '../tx.ts';

/** A caller id's row and its figures over its latest ended attempts since its health started. */
export interface NumberHealthRow {
  id: string;
  number: string;
  restedUntil: Date | null;
  restedReason: string | null;
  ended: number;
  answered: number;
  short: number;
  voicemail: number;
  today: number;
}

/**
 * The organization's numbers among `numbers`, each with its figures: of its
 * latest `window` ended attempts since its health started ("healthSince": a
 * rest's end, a restore), how many were answered, answered and shorter than
 * 10 s, or reached voicemail; and its attempts in the 24 hours before `now`
 * (since its health started too).
 * Index: "PhoneNumber_organizationId_number_key" for the numbers;
 * "RunAttempt_organizationId_fromNumber_startedAt_idx", a backward range per
 * number (its latest attempts first, the walk stops at the window) and a range
 * for the last day.
 */
export function numberHealthFigures(
  tx: SqlClient,
  organizationId: string,
  numbers: string[],
  now: Date,
  window: number,
) {
  const dayAgo = new Date(now.getTime() - 86_400_000);
  // Its figures start at a restore ("healthSince") or at the end of its last rest, whichever came last.
  const since = Prisma.sql`GREATEST(COALESCE(p."healthSince", '-infinity'),
    CASE WHEN p."restedUntil" <= ${now}::timestamptz THEN p."restedUntil" ELSE '-infinity' END)`;
  return tx.$queryRaw<NumberHealthRow[]>`
    SELECT p.id, p.number, p."restedUntil", p."restedReason", f.ended, f.answered, f.short, f.voicemail,
      (SELECT count(*)::int FROM "RunAttempt" t
        WHERE t."organizationId" = p."organizationId" AND t."fromNumber" = p.number
          AND t."startedAt" > GREATEST(${dayAgo}::timestamptz, ${since})) AS today
    FROM "PhoneNumber" p
    CROSS JOIN LATERAL (
      SELECT count(*)::int AS ended,
        count(*) FILTER (WHERE l.outcome = 'answered')::int AS answered,
        count(*) FILTER (WHERE l.outcome = 'answered' AND l."durationSeconds" < 10)::int AS short,
        count(*) FILTER (WHERE l.outcome = 'voicemail')::int AS voicemail
      FROM (
        SELECT a.outcome, a."durationSeconds" FROM "RunAttempt" a
        WHERE a."organizationId" = p."organizationId" AND a."fromNumber" = p.number
          AND a."startedAt" >= ${since} AND a."endedAt" IS NOT NULL
        ORDER BY a."startedAt" DESC LIMIT ${window}) l) f
    WHERE p."organizationId" = ${organizationId} AND p.number = ANY(${numbers}::text[])`;
}
