// IANA time zone names, as every interface takes them (a prospect's timezone,
// a calling window's), and their wall-clock formatters. Intl accepts any case
// ("america/chicago") and maps some names to others (Asia/Kolkata reads back
// as Asia/Calcutta), so a name is checked against the spellings of ICU
// (Intl.supportedValuesOf) and of the tz database, aliases included (the
// library's table, as PostgreSQL's pg_timezone_names has them).
import ct from 'countries-and-timezones';
import { z } from 'zod';

const zoneNames = new Set([
  ...Intl.supportedValuesOf('timeZone'),
  ...Object.keys(ct.getAllTimezones({ deprecated: true })),
]);
const zoneNamesByLowerCase = new Map([...zoneNames].map((name) => [name.toLowerCase(), name]));

const formatters = new Map<string, Intl.DateTimeFormat>();

/** The zone's formatter of wall-clock parts; throws a RangeError for a zone Intl does not know. */
export function formatterOf(zone: string) {
  let formatter = formatters.get(zone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(zone, formatter);
  }
  return formatter;
}

export function isKnownZone(name: string) {
  if (!zoneNames.has(name)) return false;
  try {
    formatterOf(name);
    return true;
  } catch {
    return false; // in the tz table but not in this runtime's ICU data (e.g. "Factory")
  }
}

export const ianaTimezone = z
  .string()
  .superRefine((name, context) => {
    if (isKnownZone(name)) return;
    const spelled = zoneNamesByLowerCase.get(name.toLowerCase());
    context.addIssue({
      code: 'invalid_format',
      format: 'iana_timezone',
      input: name,
      message:
        spelled && isKnownZone(spelled)
          ? `must be spelled ${spelled}`
          : 'must be an IANA time zone name, e.g. America/Chicago or Europe/Paris',
    });
  })
  .meta({ description: 'IANA time zone name, e.g. America/Chicago' });
