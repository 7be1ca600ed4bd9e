// Number health: how each caller id fares over its latest attempts (answer
// rate, short calls, voicemail, attempts in a day), and a breaker per number:
// when the organization's number_health thresholds are crossed, the number is
// rested for rest_hours (a trunk's rested numbers are not used for new calls
// while it has others, src/engine/run-store.ts) and `phone_number.rested` is
// sent. An operator rests or restores a number by hand (POST
// /phone-numbers/{id}/rest, /restore). A number's figures start afresh when a
// rest ends or it is restored, so old attempts do not rest it again.
import { z } from 'zod';
import { type NumberHealthRow, numberHealthFigures } from '../db/sql/number-health-figures.ts';
import { restPhoneNumbers } from '../db/sql/rest-phone-numbers.ts';
import { rowKey } from '../db/tenant.ts';
import type { Tx } from '../db/tx.ts';
import type { PhoneNumber } from '../generated/prisma/client.ts';
import type { NumberHealthSettings, PhoneNumberHealth } from '../records/contact-settings.ts';
import { int } from '../records/values.ts';
import { notFound } from './errors.ts';
import { numberHealthOf } from './organization-settings.ts';
import type { Scope } from './scope.ts';
import { Outbox } from './webhook-events.ts';

const HOUR_MS = 3_600_000;
/** Attempts the figures shown are taken over when the organization sets no window. */
const DEFAULT_WINDOW = 100;
/** The longest rest by hand, in hours (30 days), as number_health's rest_hours. */
const MAX_REST_HOURS = 720;

export const phoneNumberRest = z
  .strictObject({
    hours: int(1, MAX_REST_HOURS).meta({ description: 'How long the number rests, in hours;' }),
  })
  .meta({ id: 'PhoneNumberRest', description: 'Rest a number by hand: not used for new calls until then.' });

const share = (part: number, whole: number) => (whole > 0 ? part / whole : null);

/** The figures of a row as the wire shows them. */
function healthOf(row: NumberHealthRow): PhoneNumberHealth {
  return {
    answer_rate: share(row.answered, row.ended),
    short_call_rate: share(row.short, row.answered),
    voicemail_share: share(row.voicemail, row.ended),
    attempts: row.ended,
    attempts_today: row.today,
    rested_until: row.restedUntil?.toISOString() ?? null,
    rested_reason: row.restedReason,
  };
}

/** The first threshold the figures cross (the reason a number is rested), or null. */
function crossed(settings: NumberHealthSettings, row: NumberHealthRow): string | null {
  if (settings.max_attempts_per_day !== undefined && row.today > settings.max_attempts_per_day)
    return 'max_attempts_per_day';
  if (row.ended < settings.min_attempts) return null;
  const health = healthOf(row);
  if (settings.min_answer_rate !== undefined && health.answer_rate! < settings.min_answer_rate)
    return 'min_answer_rate';
  if (
    settings.max_short_call_rate !== undefined &&
    health.short_call_rate !== null &&
    health.short_call_rate > settings.max_short_call_rate
  )
    return 'max_short_call_rate';
  if (settings.max_voicemail_share !== undefined && health.voicemail_share! > settings.max_voicemail_share)
    return 'max_voicemail_share';
  return null;
}

/**
 * After calls from these caller ids ended: rests those of the organization's
 * numbers whose figures cross its thresholds (none when it sets none), with
 * a `phone_number.rested` event each. Answers the ids rested.
 */
export async function reviewCallerIds(tx: Tx, organizationId: string, numbers: string[], now: Date) {
  const organization = await tx.organization.findUnique({
    where: { id: organizationId },
    select: { numberHealth: true },
  });
  const settings = numberHealthOf(organization?.numberHealth);
  if (!settings) return [];
  const rows = await numberHealthFigures(tx, organizationId, numbers, now, settings.window);
  const outbox = new Outbox();
  const rested: string[] = [];
  const until = new Date(now.getTime() + settings.rest_hours * HOUR_MS);
  for (const row of rows) {
    if (row.restedUntil && row.restedUntil > now) continue;
    const reason = crossed(settings, row);
    if (!reason) continue;
    for (const id of await restPhoneNumbers(tx, organizationId, [row.id], until, reason, now)) {
      rested.push(id);
      outbox.add('phone_number.rested', organizationId, { kind: 'restedNumber', id });
    }
  }
  await outbox.write(tx, now);
  return rested;
}

/** A number's health (GET /phone-numbers/{id}, GraphQL `PhoneNumber.health`). */
export async function phoneNumberHealth(scope: Scope, number: PhoneNumber, now = new Date()) {
  const organization = await scope.prisma.organization.findFirst({ select: { numberHealth: true } });
  const window = numberHealthOf(organization?.numberHealth)?.window ?? DEFAULT_WINDOW;
  const [row] = await numberHealthFigures(scope.prisma, number.organizationId, [number.number], now, window);
  if (!row) throw notFound('phone number');
  return healthOf(row);
}

/** POST /phone-numbers/{id}/rest: rests the number for `hours` from now, by hand. */
export async function restPhoneNumber(scope: Scope, id: string, hours: number, now = new Date()) {
  const until = new Date(now.getTime() + hours * HOUR_MS);
  return scope.prisma.$transaction(async (tx) => {
    const [rested] = await restPhoneNumbers(tx, scope.viewer.organizationId, [id], until, 'manual', null);
    if (!rested) throw notFound('phone number');
    await new Outbox()
      .add('phone_number.rested', scope.viewer.organizationId, { kind: 'restedNumber', id })
      .write(tx, now);
    return tx.phoneNumber.findUniqueOrThrow({ where: rowKey(scope.viewer.organizationId, id) });
  });
}

/** POST /phone-numbers/{id}/restore: ends the number's rest now; its figures start afresh. */
export async function restorePhoneNumber(scope: Scope, id: string, now = new Date()) {
  const [restored] = await scope.prisma.phoneNumber.updateManyAndReturn({
    where: { id },
    data: { restedUntil: null, restedReason: null, healthSince: now },
  });
  if (!restored) throw notFound('phone number');
  return restored;
}
