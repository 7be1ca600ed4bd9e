// How numbers, times and names read on the console's pages.
import type { CallOutcome } from '../console-operations/console-operations.ts';
import type { Eta } from './pace.ts';

const integer = new Intl.NumberFormat('en');

export const count = (value: number) => integer.format(value);

/** 0.292 → "29.2%", 0.75 → "75%". */
export const percent = (share: number | null) => (share === null ? '—' : `${Math.round(share * 1000) / 10}%`);

export const plural = (value: number, one: string, many = `${one}s`) => `${count(value)} ${value === 1 ? one : many}`;

export const time = (iso: string | null) =>
  iso ? new Date(iso).toLocaleTimeString('en-GB', { hour: '2-digit', minute: '2-digit', second: '2-digit' }) : '';

export const clock = (date: Date) => date.toLocaleTimeString('en-GB', { hour: '2-digit', minute: '2-digit' });

export const dateTime = (iso: string | null) =>
  iso
    ? new Date(iso).toLocaleString('en-GB', { day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit' })
    : '';

export const day = (isoDate: string) =>
  new Date(`${isoDate}T00:00:00Z`).toLocaleDateString('en-GB', { day: 'numeric', month: 'short', timeZone: 'UTC' });

/** "45 s", "12 min", "2 h 5 min", "3 d 4 h". */
export function duration(ms: number): string {
  const minutes = Math.round(ms / 60_000);
  if (ms < 60_000) return `${Math.max(1, Math.round(ms / 1000))} s`;
  if (minutes < 60) return `${minutes} min`;
  if (minutes < 48 * 60) return `${Math.floor(minutes / 60)} h${minutes % 60 ? ` ${minutes % 60} min` : ''}`;
  return `${Math.floor(minutes / 1440)} d${Math.floor((minutes % 1440) / 60) ? ` ${Math.floor((minutes % 1440) / 60)} h` : ''}`;
}

export const outcomeLabel = (outcome: CallOutcome) => (outcome === 'ivr' ? 'IVR' : outcome.replace('_', ' '));

/** A configuration member's wire name as words: `max_tokens` → "Max tokens". */
export const words = (name: string) => {
  const spaced = name.replace(/_/g, ' ');
  return spaced.charAt(0).toUpperCase() + spaced.slice(1);
};

/** The ETA as a value and a note under it. */
export function etaText(value: Eta): { value: string; note?: string } {
  switch (value.kind) {
    case 'done':
      return { value: 'Done' };
    case 'stopped':
    case 'unknown':
      return { value: '—', note: value.why };
    case 'at':
      return { value: `≈ ${duration(value.ms)}`, note: 'at this pace' };
  }
}
