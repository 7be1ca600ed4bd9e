// An organization's blackout dates (settings `blackout_dates`): no call starts
// on them, midnight to midnight in the callee's zone, for callees whose
// number is of the entry's country (libphonenumber's) and, when the entry
// names a region (an IANA zone of the country), in that zone. The callee's
// zone is the calling window's: its own timezone, else its number's
// country's when that keeps one time, else the window's; with none of these
// (a +1 number, no window) the date holds in every zone of the country. A
// run claimed on such a date waits for the next day there, like a closed
// window (src/engine/run-claims.ts).
import ct from 'countries-and-timezones';
import { parsePhoneNumberFromString } from 'libphonenumber-js/min';
import type { BlackoutDate } from '../records/blackout-dates.ts';
import { localDate, nextLocalDay, zoneOfPhone } from './calling-window.ts';

/** The zones a callee may be in: its known zone, else every zone of its number's country. */
function calleeZones(prospect: { timezone: string | null; phone: string }, country: string, fallback: string | null) {
  const zone = prospect.timezone || zoneOfPhone(prospect.phone) || fallback;
  if (zone) return [zone];
  return (ct.getTimezonesForCountry(country as Parameters<typeof ct.getTimezonesForCountry>[0]) ?? []).map(
    (entry) => entry.name,
  );
}

/**
 * When a callee's blackout date ends, if `now` is on one (the latest end over
 * the zones it may be in); null when a call may start now. `fallbackZone`:
 * the calling window's timezone, if the batch has one.
 */
export function blackoutUntil(
  dates: readonly BlackoutDate[],
  prospect: { timezone: string | null; phone: string },
  fallbackZone: string | null,
  now: Date,
): Date | null {
  if (dates.length === 0) return null;
  const country = parsePhoneNumberFromString(prospect.phone)?.country;
  const ofCountry = country ? dates.filter((entry) => entry.country === country) : [];
  if (!country || ofCountry.length === 0) return null;
  let until: Date | null = null;
  for (const zone of calleeZones(prospect, country, fallbackZone)) {
    const today = localDate(zone, now);
    if (!ofCountry.some((entry) => entry.date === today && (!entry.region || entry.region === zone))) continue;
    const next = nextLocalDay(zone, now);
    if (!until || next > until) until = next;
  }
  return until;
}
