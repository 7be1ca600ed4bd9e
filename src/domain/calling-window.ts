// Calling windows: the days and local hours in which a batch may start calls,
// applied in each prospect's own time zone (TCPA's 8:00-21:00 is the callee's
// local time). The arithmetic is Intl's (Node's ICU time-zone data): a local
// wall-clock time is found by asking Intl for the offset around it, which is
// enough for DST gaps and repeated hours without a date library.
import ct from 'countries-and-timezones';
import { parsePhoneNumberFromString } from 'libphonenumber-js/min';
import { type CallingWindow, minutesOf, type Weekday, weekdays } from '../records/campaign-settings.ts';
import { formatterOf, isKnownZone } from '../records/time-zones.ts';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/**
 * A zone for the country, when the whole country keeps one time: it has one
 * zone, or all its zones have the same standard and daylight offsets
 * (Germany's Europe/Berlin and Büsingen's Europe/Zurich, Argentina's twelve).
 * The zone the country owns (listed first for it) is preferred.
 */
function zoneOfCountry(country: string): string | null {
  const zones = ct.getTimezonesForCountry(country) ?? [];
  const [first] = zones;
  if (!first || zones.some((zone) => zone.utcOffset !== first.utcOffset || zone.dstOffset !== first.dstOffset))
    return null;
  const own = zones.find((zone) => zone.countries[0] === country) ?? first;
  return isKnownZone(own.name) ? own.name : null;
}

/**
 * The zone of an E.164 number's country when that country keeps one time
 * (+44… Europe/London, +33… Europe/Paris, +1876… America/Jamaica), else null
 * (+1 US/Canada numbers span many zones; unparsable numbers have no country).
 */
export function zoneOfPhone(phone: string): string | null {
  const country = parsePhoneNumberFromString(phone)?.country;
  return country ? zoneOfCountry(country) : null;
}

/** The zone a window applies in for a prospect: its own, else its number's country's, else the window's. */
export function prospectZone(prospect: { timezone?: string | null; phone: string }, window: CallingWindow): string {
  return prospect.timezone || zoneOfPhone(prospect.phone) || window.timezone;
}

/** The local wall-clock time at `instant` (ms), as ms since 1970 of a UTC clock showing it; whole seconds. */
function wallClock(zone: string, instant: number): number {
  const parts: Record<string, number> = {};
  for (const part of formatterOf(zone).formatToParts(instant)) {
    if (part.type !== 'literal') parts[part.type] = Number(part.value);
  }
  return Date.UTC(parts.year!, parts.month! - 1, parts.day!, parts.hour!, parts.minute!, parts.second!);
}

/** The zone's offset from UTC at `instant`, in ms. */
const offsetAt = (zone: string, instant: number) => wallClock(zone, instant) - Math.floor(instant / SECOND) * SECOND;

const weekdayOf = (wall: number) => weekdays[(new Date(wall).getUTCDay() + 6) % 7]!;
const minuteOfDay = (wall: number) => Math.floor((((wall % DAY) + DAY) % DAY) / MINUTE);
const dayOf = (wall: number) => Math.floor(wall / DAY);

function isOpenAt(window: CallingWindow, zone: string, instant: number) {
  const wall = wallClock(zone, instant);
  const minute = minuteOfDay(wall);
  return window.days.includes(weekdayOf(wall)) && minutesOf(window.start) <= minute && minute < minutesOf(window.end);
}

/**
 * The instants whose local time is `wall`: none in a DST gap, two in a
 * repeated hour, else one. The offsets a day before and after bracket any
 * transition near it (transitions are months apart).
 */
function instantsAt(zone: string, wall: number): number[] {
  const offsets = new Set([offsetAt(zone, wall - DAY), offsetAt(zone, wall + DAY)]);
  return [...offsets]
    .map((offset) => wall - offset)
    .filter((instant) => wallClock(zone, instant) === wall)
    .sort((a, b) => a - b);
}

const TRANSITION_SAMPLE = 12 * HOUR;

/** The instants in (from, to] where the zone's offset changes (to the second). */
function offsetChanges(zone: string, from: number, to: number): number[] {
  const changes: number[] = [];
  for (let before = from; before < to; before += TRANSITION_SAMPLE) {
    const after = Math.min(before + TRANSITION_SAMPLE, to);
    const offset = offsetAt(zone, before);
    if (offsetAt(zone, after) === offset) continue;
    let low = Math.floor(before / SECOND); // seconds; the offset is still `offset` here
    let high = Math.floor(after / SECOND); // and no longer here
    while (high - low > 1) {
      const middle = Math.floor((low + high) / 2);
      if (offsetAt(zone, middle * SECOND) === offset) low = middle;
      else high = middle;
    }
    changes.push(high * SECOND);
  }
  return changes;
}

// A window opens at least once a week; a DST gap can swallow one day's window
// (or Samoa's skipped day a whole day), never two weeks' worth.
const HORIZON = 15 * DAY;

export type WindowState = { open: true } | { open: false; opensAt: Date };

/**
 * Whether `now` is inside the window in `zone` (day and time of day read in
 * the zone) and, when not, the next instant it opens. A window opens either
 * when the local clock reaches `start` (both times in a repeated hour) or when
 * a DST change makes the clock jump into it: so a `start` that does not exist
 * that day (02:30 on a spring-forward night) opens at the first instant after
 * it, 03:00, and a window the gap swallows whole waits for its next day.
 */
export function windowState(window: CallingWindow, zone: string, now: Date): WindowState {
  const at = now.getTime();
  if (isOpenAt(window, zone, at)) return { open: true };
  const opensAt = (instant: number) => instant > at && isOpenAt(window, zone, instant);
  const firstStart = nextStart(window, zone, at, opensAt);
  const opening = offsetChanges(zone, at, firstStart ?? at + HORIZON).find(opensAt) ?? firstStart;
  // Unreachable for a valid window (see HORIZON); a bug should not leave runs waiting unseen.
  if (opening === undefined) throw new Error(`calling window does not open within 15 days in ${zone}`);
  return { open: false, opensAt: new Date(opening) };
}

/** When a call-back asked for at `at` is made: then, or the window's next opening in the prospect's zone when it is closed then. */
export function callbackSlot(
  window: CallingWindow | null,
  prospect: { timezone?: string | null; phone: string },
  at: Date,
): Date {
  if (!window) return at;
  const state = windowState(window, prospectZone(prospect, window), at);
  return state.open ? at : state.opensAt;
}

/** The first instant after `at` at which the local clock reads the window's start and `opens` holds. */
function nextStart(window: CallingWindow, zone: string, at: number, opens: (instant: number) => boolean) {
  const today = dayOf(wallClock(zone, at));
  for (let day = today; day <= today + HORIZON / DAY; day++) {
    const wall = day * DAY + minutesOf(window.start) * MINUTE;
    if (!window.days.includes(weekdayOf(wall))) continue;
    const start = instantsAt(zone, wall).find(opens);
    if (start !== undefined) return start;
  }
  return undefined;
}

const twoDigits = (value: number) => String(value).padStart(2, '0');
const weekdayLabel = (day: Weekday) => day[0]!.toUpperCase() + day.slice(1);

/** "waiting for 09:00 America/Chicago", with the weekday when that is not today in the zone ("Mon 09:00"). */
export function describeWindowWait(opensAt: Date, zone: string, now: Date): string {
  const wall = wallClock(zone, opensAt.getTime());
  const minute = minuteOfDay(wall);
  const time = `${twoDigits(Math.floor(minute / 60))}:${twoDigits(minute % 60)}`;
  const day = dayOf(wall) === dayOf(wallClock(zone, now.getTime())) ? '' : `${weekdayLabel(weekdayOf(wall))} `;
  return `waiting for ${day}${time} ${zone}`;
}

/** The calendar date (YYYY-MM-DD) the zone's clock shows at `at`. */
export function localDate(zone: string, at: Date): string {
  return new Date(dayOf(wallClock(zone, at.getTime())) * DAY).toISOString().slice(0, 10);
}

/** The first instant of the zone's next calendar day after `at` (its first existing minute when midnight is skipped). */
export function nextLocalDay(zone: string, at: Date): Date {
  const midnight = (dayOf(wallClock(zone, at.getTime())) + 1) * DAY;
  for (let wall = midnight; wall < midnight + DAY; wall += MINUTE) {
    const [first] = instantsAt(zone, wall);
    if (first !== undefined) return new Date(first);
  }
  // Unreachable: no zone skips a whole day after midnight but Samoa's, whose next day then starts.
  return new Date(at.getTime() + DAY);
}
