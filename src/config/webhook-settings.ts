// How webhooks are delivered: where they (and every request made on a
// tenant's behalf) may go (src/domain/outbound-urls.ts),
// how often a failed delivery is tried again, how long one may take, and when
// an endpoint that keeps failing is disabled. Read from the environment by
// src/config.ts.

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

// The first three members are src/outbound/request.ts's OutboundPolicy, which these settings satisfy:
// they govern every request made on a tenant's behalf, not only webhook deliveries.
export interface WebhookSettings {
  /** `http:` URLs allowed besides `https:` (WEBHOOK_ALLOW_HTTP). */
  allowHttp: boolean;
  /** Addresses inside private networks allowed (WEBHOOK_ALLOW_PRIVATE). */
  allowPrivate: boolean;
  /** How host names are resolved: the system resolver unless a test stands in for DNS. */
  resolve?: (host: string) => Promise<{ address: string; family: number }[]>;
  /** The waits before the 2nd, 3rd … attempt; a delivery still failing after the last is `failed`. */
  retryScheduleMs: number[];
  /** An endpoint failing without a success for this long is disabled. */
  disableAfterMs: number;
  /** One attempt, from the lookup to the last byte read. */
  timeoutMs: number;
}

export const defaultWebhookSettings: WebhookSettings = {
  allowHttp: false,
  allowPrivate: false,
  retryScheduleMs: [5 * SECOND, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 10 * HOUR],
  disableAfterMs: 5 * DAY,
  timeoutMs: 10 * SECOND,
};

/** `WEBHOOK_RETRY_SCHEDULE_MS`: milliseconds, comma-separated (`5000,300000`); empty: no retry. */
export function parseRetrySchedule(text: string): number[] {
  if (text.trim() === '') return [];
  return text.split(',').map((part) => {
    const ms = Number(part.trim());
    if (!Number.isInteger(ms) || ms < 0) throw new Error(`"${part.trim()}" is not a number of milliseconds`);
    return ms;
  });
}

const UNITS: Record<string, number> = { ms: 1, s: SECOND, m: MINUTE, h: HOUR, d: DAY };

/** `WEBHOOK_DISABLE_AFTER`: a number and a unit (`5d`, `12h`, `30m`, `45s`, `500ms`); a bare number is milliseconds. */
export function parseDuration(text: string): number {
  const match = /^\s*(\d+)\s*(ms|s|m|h|d)?\s*$/.exec(text);
  if (!match) throw new Error(`"${text}" is not a duration such as 5d, 12h, 30m, 45s or 500ms`);
  return Number(match[1]) * UNITS[match[2] ?? 'ms']!;
}
