// Calling windows: open or closed at fixed instants, the next opening across
// weekends, day boundaries and DST changes, the zone of a prospect, and the
// validation of windows and zone names. Pure: no database, no real clock.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { describeWindowWait, prospectZone, windowState, zoneOfPhone } from '../src/domain/calling-window.ts';
import type { FieldProblem } from '../src/domain/errors.ts';
import { parseOrThrow } from '../src/domain/validation.ts';
import { type CallingWindow, callingWindow, type Weekday, weekdays } from '../src/records/campaign-settings.ts';
import { ianaTimezone } from '../src/records/time-zones.ts';

const at = (iso: string) => new Date(iso);
const windowOf = (input: Record<string, unknown>): CallingWindow =>
  parseOrThrow(callingWindow, {
    days: ['mon', 'tue', 'wed', 'thu', 'fri'],
    start: '09:00',
    end: '17:00',
    timezone: 'UTC',
    ...input,
  });
const everyDay = { days: [...weekdays] };

/** The instant the window opens after `now` (the window must be closed then). */
function opensAt(window: CallingWindow, zone: string, now: string) {
  const state = windowState(window, zone, at(now));
  if (state.open) throw new Error(`the window is open at ${now}`);
  return state.opensAt.toISOString();
}

const isOpen = (window: CallingWindow, zone: string, now: string) => windowState(window, zone, at(now)).open;

describe('windowState: open and closed', () => {
  // January 2026, Chicago on CST (UTC-6); Monday 12th to Friday 16th.
  const officeHours = windowOf({ timezone: 'America/Chicago' });
  const chicago = 'America/Chicago';

  it('opens at start (included) and closes at end (excluded)', () => {
    expect(isOpen(officeHours, chicago, '2026-01-12T14:59:59.999Z')).toBe(false); // Mon 08:59:59.999
    expect(opensAt(officeHours, chicago, '2026-01-12T14:59:59.999Z')).toBe('2026-01-12T15:00:00.000Z');
    expect(isOpen(officeHours, chicago, '2026-01-12T15:00:00.000Z')).toBe(true); // Mon 09:00
    expect(isOpen(officeHours, chicago, '2026-01-12T22:59:59.999Z')).toBe(true); // Mon 16:59:59.999
    expect(isOpen(officeHours, chicago, '2026-01-12T23:00:00.000Z')).toBe(false); // Mon 17:00
    expect(opensAt(officeHours, chicago, '2026-01-12T23:00:00.000Z')).toBe('2026-01-13T15:00:00.000Z');
  });

  it('skips the days the window does not name (the weekend)', () => {
    expect(opensAt(officeHours, chicago, '2026-01-16T23:00:00.000Z')).toBe('2026-01-19T15:00:00.000Z'); // Fri 17:00 -> Mon 09:00
    expect(isOpen(officeHours, chicago, '2026-01-17T18:00:00.000Z')).toBe(false); // Sat 12:00
    expect(opensAt(officeHours, chicago, '2026-01-17T18:00:00.000Z')).toBe('2026-01-19T15:00:00.000Z');
    const weekends = windowOf({ days: ['sat', 'sun'], timezone: chicago });
    expect(opensAt(weekends, chicago, '2026-01-12T15:00:00.000Z')).toBe('2026-01-17T15:00:00.000Z'); // Mon -> Sat 09:00
  });

  it('opens the same day when now is before start, a week later when the only day is over', () => {
    const mondays = windowOf({ days: ['mon'], timezone: chicago });
    expect(opensAt(mondays, chicago, '2026-01-12T06:00:00.000Z')).toBe('2026-01-12T15:00:00.000Z'); // Mon 00:00
    expect(opensAt(mondays, chicago, '2026-01-12T23:00:00.000Z')).toBe('2026-01-19T15:00:00.000Z'); // Mon 17:00
  });

  it('allows a window until midnight (24:00)', () => {
    const evenings = windowOf({ start: '18:00', end: '24:00' });
    expect(isOpen(evenings, 'UTC', '2026-01-12T23:59:59.999Z')).toBe(true); // Mon
    expect(isOpen(evenings, 'UTC', '2026-01-13T00:00:00.000Z')).toBe(false); // Tue 00:00
    expect(opensAt(evenings, 'UTC', '2026-01-13T00:00:00.000Z')).toBe('2026-01-13T18:00:00.000Z');
  });
});

describe('windowState: the day and time are read in the zone', () => {
  const officeHours = windowOf({});

  it('east of UTC: Tokyo (UTC+9) is on Monday while UTC is still on Sunday', () => {
    expect(isOpen(officeHours, 'UTC', '2026-01-11T23:30:00.000Z')).toBe(false); // Sun 23:30 UTC
    expect(isOpen(officeHours, 'Asia/Tokyo', '2026-01-12T00:00:00.000Z')).toBe(true); // Mon 09:00 JST
    expect(opensAt(officeHours, 'Asia/Tokyo', '2026-01-11T23:30:00.000Z')).toBe('2026-01-12T00:00:00.000Z'); // Mon 08:30 JST
    expect(isOpen(officeHours, 'Asia/Tokyo', '2026-01-16T08:00:00.000Z')).toBe(false); // Fri 17:00 JST
    expect(opensAt(officeHours, 'Asia/Tokyo', '2026-01-16T08:00:00.000Z')).toBe('2026-01-19T00:00:00.000Z');
  });

  it('west of UTC: Los Angeles (UTC-8) is still on Friday while UTC is on Saturday', () => {
    expect(isOpen(officeHours, 'UTC', '2026-01-17T00:30:00.000Z')).toBe(false); // Sat 00:30 UTC
    expect(isOpen(officeHours, 'America/Los_Angeles', '2026-01-17T00:30:00.000Z')).toBe(true); // Fri 16:30 PST
    expect(isOpen(officeHours, 'America/Los_Angeles', '2026-01-17T01:00:00.000Z')).toBe(false); // Fri 17:00 PST
    expect(opensAt(officeHours, 'America/Los_Angeles', '2026-01-17T01:00:00.000Z')).toBe('2026-01-19T17:00:00.000Z');
  });

  it('a half-hour offset: Kolkata (UTC+5:30)', () => {
    expect(opensAt(officeHours, 'Asia/Kolkata', '2026-01-12T00:00:00.000Z')).toBe('2026-01-12T03:30:00.000Z');
    expect(isOpen(officeHours, 'Asia/Kolkata', '2026-01-12T11:29:59.000Z')).toBe(true); // 16:59:59 IST
    expect(isOpen(officeHours, 'Asia/Kolkata', '2026-01-12T11:30:00.000Z')).toBe(false); // 17:00 IST
  });
});

describe('windowState across DST changes in America/New_York', () => {
  const newYork = 'America/New_York';

  // Sunday 2026-03-08: 02:00 EST (07:00Z) becomes 03:00 EDT; 02:00-02:59 do not exist.
  it('spring forward: office hours keep 09:00 local on both sides', () => {
    const officeHours = windowOf({ timezone: newYork });
    expect(opensAt(officeHours, newYork, '2026-03-06T22:00:00.000Z')).toBe('2026-03-09T13:00:00.000Z'); // Fri 17:00 EST -> Mon 09:00 EDT
  });

  it('spring forward: a start inside the gap opens at the first instant after it', () => {
    const nights = windowOf({ ...everyDay, start: '02:30', end: '05:00' });
    expect(isOpen(nights, newYork, '2026-03-08T06:59:59.000Z')).toBe(false); // 01:59:59 EST
    expect(opensAt(nights, newYork, '2026-03-08T06:00:00.000Z')).toBe('2026-03-08T07:00:00.000Z'); // 03:00 EDT
    expect(isOpen(nights, newYork, '2026-03-08T07:00:00.000Z')).toBe(true);
    expect(isOpen(nights, newYork, '2026-03-08T08:59:59.000Z')).toBe(true); // 04:59:59 EDT
    expect(isOpen(nights, newYork, '2026-03-08T09:00:00.000Z')).toBe(false); // 05:00 EDT
    expect(opensAt(nights, newYork, '2026-03-08T09:00:00.000Z')).toBe('2026-03-09T06:30:00.000Z'); // Mon 02:30 EDT
  });

  it('spring forward: a window the gap swallows whole waits for its next day', () => {
    const sundayNights = windowOf({ days: ['sun'], start: '02:00', end: '02:30' });
    expect(opensAt(sundayNights, newYork, '2026-03-08T06:00:00.000Z')).toBe('2026-03-15T06:00:00.000Z'); // next Sun 02:00 EDT
  });

  // Sunday 2026-11-01: 02:00 EDT (06:00Z) becomes 01:00 EST; 01:00-01:59 happen twice.
  it('fall back: office hours keep 09:00 local on both sides', () => {
    const officeHours = windowOf({ timezone: newYork });
    expect(opensAt(officeHours, newYork, '2026-10-30T21:00:00.000Z')).toBe('2026-11-02T14:00:00.000Z'); // Fri 17:00 EDT -> Mon 09:00 EST
  });

  it('fall back: a window in the repeated hour opens twice', () => {
    const repeated = windowOf({ ...everyDay, start: '01:30', end: '01:45' });
    expect(opensAt(repeated, newYork, '2026-11-01T05:00:00.000Z')).toBe('2026-11-01T05:30:00.000Z'); // 01:30 EDT
    expect(isOpen(repeated, newYork, '2026-11-01T05:40:00.000Z')).toBe(true); // 01:40 EDT
    expect(opensAt(repeated, newYork, '2026-11-01T05:50:00.000Z')).toBe('2026-11-01T06:30:00.000Z'); // 01:50 EDT -> 01:30 EST
    expect(isOpen(repeated, newYork, '2026-11-01T06:40:00.000Z')).toBe(true); // 01:40 EST
    expect(opensAt(repeated, newYork, '2026-11-01T06:45:00.000Z')).toBe('2026-11-02T06:30:00.000Z'); // 01:45 EST -> Mon 01:30 EST
  });

  it('fall back: the clock turned back into the window opens it', () => {
    const lateNight = windowOf({ ...everyDay, start: '00:30', end: '01:15' });
    expect(isOpen(lateNight, newYork, '2026-11-01T05:20:00.000Z')).toBe(false); // 01:20 EDT
    expect(opensAt(lateNight, newYork, '2026-11-01T05:20:00.000Z')).toBe('2026-11-01T06:00:00.000Z'); // 01:00 EST
  });
});

describe('windowState across DST changes in Europe/Berlin', () => {
  const berlin = 'Europe/Berlin';

  // Sunday 2026-03-29: 02:00 CET (01:00Z) becomes 03:00 CEST.
  it('spring forward', () => {
    const daytime = windowOf({ ...everyDay, start: '08:00', end: '20:00' });
    expect(opensAt(daytime, berlin, '2026-03-28T19:00:00.000Z')).toBe('2026-03-29T06:00:00.000Z'); // Sat 20:00 CET -> Sun 08:00 CEST
    const nights = windowOf({ ...everyDay, start: '02:15', end: '06:00' });
    expect(opensAt(nights, berlin, '2026-03-29T00:30:00.000Z')).toBe('2026-03-29T01:00:00.000Z'); // 01:30 CET -> 03:00 CEST
  });

  // Sunday 2026-10-25: 03:00 CEST (01:00Z) becomes 02:00 CET; 02:00-02:59 happen twice.
  it('fall back', () => {
    const daytime = windowOf({ ...everyDay, start: '08:00', end: '20:00' });
    expect(opensAt(daytime, berlin, '2026-10-24T18:00:00.000Z')).toBe('2026-10-25T07:00:00.000Z'); // Sat 20:00 CEST -> Sun 08:00 CET
    const repeated = windowOf({ ...everyDay, start: '02:30', end: '02:45' });
    expect(isOpen(repeated, berlin, '2026-10-25T00:35:00.000Z')).toBe(true); // 02:35 CEST
    expect(opensAt(repeated, berlin, '2026-10-25T00:50:00.000Z')).toBe('2026-10-25T01:30:00.000Z'); // 02:50 CEST -> 02:30 CET
    expect(isOpen(repeated, berlin, '2026-10-25T01:35:00.000Z')).toBe(true); // 02:35 CET
  });
});

describe('windowState against a brute-force scan', () => {
  // An independent reading of the window: Intl's weekday and time in the zone.
  const readers = new Map<string, Intl.DateTimeFormat>();
  function openByReading(window: CallingWindow, zone: string, instant: number) {
    let reader = readers.get(zone);
    if (!reader) {
      const fields = { weekday: 'short', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' } as const;
      reader = new Intl.DateTimeFormat('en-US', { timeZone: zone, ...fields });
      readers.set(zone, reader);
    }
    const parts = Object.fromEntries(reader.formatToParts(instant).map((part) => [part.type, part.value]));
    const time = `${parts.hour}:${parts.minute}`;
    return window.days.includes(parts.weekday!.toLowerCase() as Weekday) && window.start <= time && time < window.end;
  }

  // Zones whose offsets are whole quarter hours, with DST (both hemispheres, Lord Howe's half-hour one) or
  // without; windows on quarter hours: every opening falls on a quarter hour of UTC, so a scan by quarter
  // hours finds the first one.
  const zones = [
    ...['America/New_York', 'Europe/Berlin', 'Australia/Sydney', 'Australia/Lord_Howe', 'Pacific/Chatham'],
    ...['Asia/Kathmandu', 'Asia/Tokyo', 'America/Sao_Paulo'],
  ];
  const QUARTER = 15 * 60_000;
  const twoDigits = (value: number) => String(value).padStart(2, '0');
  const timeOf = (quarters: number) => `${twoDigits(Math.floor(quarters / 4))}:${twoDigits((quarters % 4) * 15)}`;
  const anyTimes = fc.tuple(fc.integer({ min: 0, max: 95 }), fc.integer({ min: 1, max: 96 }));
  // Short windows at night, where the DST changes are: gaps and repeated hours cut them.
  const nightTimes = fc
    .tuple(fc.integer({ min: 0, max: 16 }), fc.integer({ min: 1, max: 8 }))
    .map(([start, length]) => [start, start + length]);
  const windows = fc
    .record({
      days: fc.uniqueArray(fc.constantFrom(...weekdays), { minLength: 1, maxLength: 7 }),
      times: fc.oneof(anyTimes, nightTimes),
    })
    .filter(({ times: [start, end] }) => start! < end!)
    .map(({ days, times: [start, end] }) => ({ days, start: timeOf(start!), end: timeOf(end!) }));
  // Within a day and a half of one of the zone's 2026 DST changes, or anywhere in the year.
  const changes: [string, string][] = [
    ['America/New_York', '2026-03-08T07:00Z'],
    ['America/New_York', '2026-11-01T06:00Z'],
    ['Europe/Berlin', '2026-03-29T01:00Z'],
    ['Europe/Berlin', '2026-10-25T01:00Z'],
    ['Australia/Sydney', '2026-04-04T16:00Z'],
    ['Australia/Sydney', '2026-10-03T16:00Z'],
    ['Australia/Lord_Howe', '2026-04-04T15:00Z'],
    ['Australia/Lord_Howe', '2026-10-03T15:30Z'],
    ['Pacific/Chatham', '2026-04-04T14:00Z'],
    ['Pacific/Chatham', '2026-09-26T14:00Z'],
  ];
  const nearChange = fc
    .tuple(fc.constantFrom(...changes), fc.integer({ min: -36 * 3_600_000, max: 36 * 3_600_000 }))
    .map(([[zone, change], shift]) => ({ zone, now: Date.parse(change) + shift }));
  const anywhere = fc.record({
    zone: fc.constantFrom(...zones),
    now: fc.integer({ min: Date.parse('2026-01-01T00:00Z'), max: Date.parse('2027-01-01T00:00Z') }),
  });

  it('is open exactly when the zone reads inside the window, and opens at the first such instant', () => {
    fc.assert(
      fc.property(windows, fc.oneof(nearChange, anywhere), (input, { zone, now }) => {
        const window = { ...input, timezone: zone };
        const state = windowState(window, zone, new Date(now));
        expect(state.open).toBe(openByReading(window, zone, now));
        if (state.open) return;
        const opening = state.opensAt.getTime();
        expect(opening).toBeGreaterThan(now);
        expect(openByReading(window, zone, opening)).toBe(true);
        expect(openByReading(window, zone, opening - 1)).toBe(false);
        for (let instant = Math.ceil(now / QUARTER) * QUARTER; instant < opening; instant += QUARTER) {
          expect(openByReading(window, zone, instant), new Date(instant).toISOString()).toBe(false);
        }
      }),
      { numRuns: 300, seed: 12 },
    );
  });
});

describe('describeWindowWait', () => {
  it('names the local time and zone, with the weekday when it is not today there', () => {
    const monday = at('2026-01-12T14:00:00.000Z'); // Mon 08:00 CST
    expect(describeWindowWait(at('2026-01-12T15:00:00.000Z'), 'America/Chicago', monday)).toBe(
      'waiting for 09:00 America/Chicago',
    );
    const friday = at('2026-01-16T23:00:00.000Z'); // Fri 17:00 CST
    expect(describeWindowWait(at('2026-01-19T15:00:00.000Z'), 'America/Chicago', friday)).toBe(
      'waiting for Mon 09:00 America/Chicago',
    );
  });

  it('compares days in the zone, not in UTC', () => {
    // Sun 23:30 UTC is Mon 08:30 in Tokyo: 09:00 JST is today there.
    expect(describeWindowWait(at('2026-01-12T00:00:00.000Z'), 'Asia/Tokyo', at('2026-01-11T23:30:00.000Z'))).toBe(
      'waiting for 09:00 Asia/Tokyo',
    );
    // Mon 12:00 UTC is Mon 21:00 in Tokyo: Tuesday 09:00 JST is another day there, though the same UTC day.
    expect(describeWindowWait(at('2026-01-13T00:00:00.000Z'), 'Asia/Tokyo', at('2026-01-12T12:00:00.000Z'))).toBe(
      'waiting for Tue 09:00 Asia/Tokyo',
    );
  });

  it('names the time the clock shows when a DST gap moved the opening', () => {
    const nights = windowOf({ ...everyDay, start: '02:30', end: '05:00' });
    const now = at('2026-03-08T06:00:00.000Z');
    const state = windowState(nights, 'America/New_York', now);
    expect(state.open).toBe(false);
    if (!state.open)
      expect(describeWindowWait(state.opensAt, 'America/New_York', now)).toBe('waiting for 03:00 America/New_York');
  });
});

describe('zoneOfPhone', () => {
  it('gives the zone of a country that keeps one time', () => {
    expect(zoneOfPhone('+442079460958')).toBe('Europe/London');
    expect(zoneOfPhone('+33142685300')).toBe('Europe/Paris');
    expect(zoneOfPhone('+81312345678')).toBe('Asia/Tokyo');
    expect(zoneOfPhone('+18765551234')).toBe('America/Jamaica'); // +1, but Jamaica's area code
    // Germany's zones are Europe/Berlin and Büsingen's Europe/Zurich: one time, Germany's own zone.
    expect(zoneOfPhone('+4930123456')).toBe('Europe/Berlin');
    // Viet Nam's zones are Asia/Bangkok (Thailand's, listed first) and Asia/Ho_Chi_Minh: its own is preferred.
    expect(zoneOfPhone('+842438253456')).toBe('Asia/Ho_Chi_Minh');
    expect(zoneOfPhone('+541143215678')).toBe('America/Argentina/Buenos_Aires'); // twelve zones, one time
  });

  it('gives null for countries with several times', () => {
    expect(zoneOfPhone('+12125550123')).toBeNull(); // US
    expect(zoneOfPhone('+14165550123')).toBeNull(); // Canada
    expect(zoneOfPhone('+61291234567')).toBeNull(); // Australia
    expect(zoneOfPhone('+34911234567')).toBeNull(); // Spain (the Canaries are an hour behind)
    expect(zoneOfPhone('+79161234567')).toBeNull(); // Russia
  });

  it('gives null for numbers without a country', () => {
    for (const phone of ['', 'garbage', '+', '+1', '+999999999999', '+80012345678', '0044 20 7946 0958']) {
      expect(zoneOfPhone(phone), phone).toBeNull();
    }
  });
});

describe('prospectZone', () => {
  const window = windowOf({ timezone: 'America/Chicago' });
  it("is the prospect's own zone, else its number's country's, else the window's", () => {
    expect(prospectZone({ timezone: 'Asia/Tokyo', phone: '+442079460958' }, window)).toBe('Asia/Tokyo');
    expect(prospectZone({ timezone: null, phone: '+442079460958' }, window)).toBe('Europe/London');
    expect(prospectZone({ phone: '+442079460958' }, window)).toBe('Europe/London');
    expect(prospectZone({ timezone: null, phone: '+12125550123' }, window)).toBe('America/Chicago');
    expect(prospectZone({ phone: '' }, window)).toBe('America/Chicago');
  });
});

describe('validation', () => {
  const valid = { days: ['mon', 'fri'], start: '08:00', end: '21:00', timezone: 'America/New_York' };

  function problemsOf(input: unknown): FieldProblem[] {
    try {
      parseOrThrow(callingWindow, input);
    } catch (error) {
      expect(error).toMatchObject({ kind: 'BAD_INPUT' });
      return (error as { detail: FieldProblem[] }).detail;
    }
    throw new Error('the input was accepted');
  }

  it('accepts a valid window as given', () => {
    expect(parseOrThrow(callingWindow, valid)).toEqual(valid);
    for (const timezone of [
      'UTC',
      'Etc/UTC',
      'Asia/Kolkata',
      'Asia/Calcutta',
      'Europe/Kyiv',
      'America/Argentina/Buenos_Aires',
    ]) {
      expect(parseOrThrow(callingWindow, { ...valid, timezone }).timezone).toBe(timezone);
    }
  });

  it('refuses bad days', () => {
    expect(problemsOf({ ...valid, days: [] })).toEqual([expect.objectContaining({ path: 'days', rule: 'minimum 1' })]);
    expect(problemsOf({ ...valid, days: ['mon', 'mon'] })).toEqual([
      expect.objectContaining({ path: 'days', message: 'must not name a day twice' }),
    ]);
    expect(problemsOf({ ...valid, days: ['monday'] })).toEqual([
      expect.objectContaining({ path: 'days.0', rule: 'enum' }),
    ]);
    expect(problemsOf({ ...valid, days: 'mon' })).toEqual([
      expect.objectContaining({ path: 'days', rule: 'type array' }),
    ]);
  });

  it('refuses bad times', () => {
    for (const start of ['8:00', '24:00', '08:60', '08:00:00', '0800', '']) {
      expect(problemsOf({ ...valid, start }), start).toEqual([
        expect.objectContaining({ path: 'start', message: 'must be a 24-hour time, HH:MM' }),
      ]);
    }
    for (const end of ['24:01', '25:00', '9pm']) {
      expect(problemsOf({ ...valid, end }), end).toEqual([
        expect.objectContaining({ path: 'end', rule: 'format regex' }),
      ]);
    }
    expect(problemsOf({ ...valid, start: undefined })).toEqual([
      expect.objectContaining({ path: 'start', rule: 'required' }),
    ]);
  });

  it('refuses a start not before the end', () => {
    expect(problemsOf({ ...valid, start: '17:00', end: '17:00' })).toEqual([
      expect.objectContaining({ path: 'end', message: 'must be after start' }),
    ]);
    expect(problemsOf({ ...valid, start: '21:00', end: '08:00' })).toEqual([
      expect.objectContaining({ path: 'end', message: 'must be after start' }),
    ]);
  });

  it('refuses unknown zones, and names the spelling of a mis-cased one', () => {
    for (const timezone of ['Mars/Olympus_Mons', 'Factory', '+05:00', 'GMT+5', '', 'America/Chicago ']) {
      expect(problemsOf({ ...valid, timezone }), timezone).toEqual([
        {
          path: 'timezone',
          rule: 'format iana_timezone',
          message: 'must be an IANA time zone name, e.g. America/Chicago or Europe/Paris',
        },
      ]);
    }
    expect(problemsOf({ ...valid, timezone: 'america/chicago' })).toEqual([
      { path: 'timezone', rule: 'format iana_timezone', message: 'must be spelled America/Chicago' },
    ]);
    expect(ianaTimezone.safeParse(42).success).toBe(false);
  });

  it('refuses unknown members', () => {
    expect(problemsOf({ ...valid, hours: '9-5' })).toEqual([
      expect.objectContaining({ path: 'hours', rule: 'unknown member' }),
    ]);
  });
});
