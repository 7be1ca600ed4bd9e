// An organization's blackout dates (holidays): no call starts on them in the
// callee's zone, for callees of their country (and region). The schema the
// settings PATCH takes and the settings show; the run engine reads the stored
// list (src/domain/blackout-dates.ts).
import ct from 'countries-and-timezones';
import { z } from 'zod';
import { ianaTimezone } from './time-zones.ts';

/** Blackout dates an organization keeps at most (docs/limits.md). */
const BLACKOUT_DATES_MAX = 500;

const isCalendarDate = (text: string) => {
  const day = new Date(`${text}T00:00:00Z`);
  return !Number.isNaN(day.getTime()) && day.toISOString().slice(0, 10) === text;
};

export const blackoutDate = z
  .strictObject({
    date: z
      .string()
      .regex(/^\d{4}-\d{2}-\d{2}$/, { message: 'must be a date, YYYY-MM-DD' })
      .refine(isCalendarDate, { message: 'must be a calendar date' })
      .meta({ description: 'YYYY-MM-DD: the whole day, midnight to midnight in the callee’s zone' }),
    country: z
      .string()
      .refine((code) => /^[A-Z]{2}$/.test(code) && ct.getCountry(code) !== null, {
        message: 'must be an ISO 3166-1 alpha-2 country code, upper case (US, FR)',
      })
      .meta({ description: "ISO 3166-1 alpha-2: callees whose number is of this country (libphonenumber's)" }),
    region: ianaTimezone.optional().meta({
      description:
        "An IANA zone of the country (America/Chicago, Atlantic/Canary): only callees in that zone (their own timezone, else their number's country's); none: the whole country",
    }),
  })
  .refine(
    (entry) => !entry.region || (ct.getTimezone(entry.region)?.countries ?? ([] as string[])).includes(entry.country),
    {
      path: ['region'],
      message: "must be a time zone of the country's",
      when: (payload) => payload.issues.length === 0,
    },
  )
  .meta({ id: 'BlackoutDate', description: 'A day no call starts, for callees of a country (or one of its zones).' });
export type BlackoutDate = z.output<typeof blackoutDate>;

export const blackoutDates = z.array(blackoutDate).max(BLACKOUT_DATES_MAX);
