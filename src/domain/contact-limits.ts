// The organization's contact_limits (GET/PATCH /settings): at most `max_calls`
// calls to one number in any `per_hours` hours, over all its batches, answered
// or not. The run engine counts a call when it claims its run (src/engine/contact-caps.ts);
// this decides, from the calls already counted, whether one more may go now,
// and if not, from when.
import type { ContactLimit } from '../records/contact-settings.ts';

const HOUR_MS = 3_600_000;

/** The longest window of the limits, in hours (0: no limit). */
export const longestWindowHours = (limits: ContactLimit[]) => Math.max(0, ...limits.map((limit) => limit.per_hours));

/**
 * When one more call to a number may be placed, given the instants of its
 * calls counted in the longest window (oldest first): null when it may go at
 * `now`, else the first instant every window allows it (the window's oldest
 * call it must outlast, plus the window).
 */
export function contactWait(limits: ContactLimit[], calls: Date[], now: Date): Date | null {
  let until = 0;
  for (const { max_calls: max, per_hours: hours } of limits) {
    const since = now.getTime() - hours * HOUR_MS;
    const inWindow = calls.filter((call) => call.getTime() > since);
    if (inWindow.length < max) continue;
    // Once the window has passed this call, fewer than `max` remain in it.
    until = Math.max(until, inWindow[inWindow.length - max]!.getTime() + hours * HOUR_MS);
  }
  return until > 0 ? new Date(until) : null;
}
