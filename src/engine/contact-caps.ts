// contact_limits at claim time: a run whose number was called as often as the
// organization's limits allow waits (its next attempt put off until they
// allow one more call); one that may call is counted as it is claimed, before
// its call is placed, so claims on other instances see it. A claim counts a
// number only while holding the organization's lock on it
// (lock-contact-numbers.ts): claims never count past a limit together.
import { contactAttemptsOfNumbers } from '../db/sql/contact-attempts-of-numbers.ts';
import { contactLimitsOfOrganizations } from '../db/sql/contact-limits-of-organizations.ts';
import { type ContactAttemptInsert, insertContactAttempts } from '../db/sql/insert-contact-attempts.ts';
import { lockContactNumbers } from '../db/sql/lock-contact-numbers.ts';
import type { Tx } from '../db/tx.ts';
import { contactWait, longestWindowHours } from '../domain/contact-limits.ts';
import { contactLimitsOf } from '../domain/organization-settings.ts';
import type { ContactLimit } from '../records/contact-settings.ts';

const HOUR_MS = 3_600_000;

/** The limits of those of the organizations that set some. */
export async function contactLimitsByOrganization(tx: Tx, organizationIds: string[]) {
  const rows = await contactLimitsOfOrganizations(tx, organizationIds);
  return new Map(rows.map((row) => [row.id, contactLimitsOf(row.contactLimits)]));
}

/** A run a claim would take: the call it would count. */
interface Call {
  runId: string;
  /** The run's next attempt. */
  attempt: number;
  number: string;
}

/** What the limits say of a call now: go, wait until then, or held by another claim (left due). */
export type ContactVerdict = 'go' | 'held' | Date;

/** The limits of one organization over one claim's runs of one batch. */
export class ContactGate {
  private readonly counted: ContactAttemptInsert[] = [];

  private constructor(
    private readonly organizationId: string,
    private readonly limits: ContactLimit[],
    private readonly locked: Set<string>,
    /** Each locked number's calls in the longest window, oldest first. */
    private readonly calls: Map<string, Date[]>,
    private readonly now: Date,
  ) {}

  /** Locks the numbers of `calls` no other claim holds and reads their calls in the longest window. */
  static async open(tx: Tx, organizationId: string, limits: ContactLimit[], calls: Call[], now: Date) {
    const numbers = [...new Set(calls.map((call) => call.number))];
    const locked = numbers.length > 0 ? await lockContactNumbers(tx, organizationId, numbers) : [];
    const since = new Date(now.getTime() - longestWindowHours(limits) * HOUR_MS);
    const rows = locked.length > 0 ? await contactAttemptsOfNumbers(tx, organizationId, locked, since) : [];
    // A run handed back before its call and claimed again is already counted: not against itself.
    const again = new Set(calls.map((call) => `${call.runId} ${call.attempt}`));
    const counted = new Map<string, Date[]>(locked.map((number) => [number, []]));
    for (const row of rows) if (!again.has(`${row.runId} ${row.attempt}`)) counted.get(row.number)?.push(row.at);
    return new ContactGate(organizationId, limits, new Set(locked), counted, now);
  }

  /** Whether the call may be placed now; a call that may is counted (`record` writes it). */
  take(call: Call): ContactVerdict {
    const calls = this.calls.get(call.number);
    if (!calls || !this.locked.has(call.number)) return 'held';
    const wait = contactWait(this.limits, calls, this.now);
    if (wait) return wait;
    calls.push(this.now);
    this.counted.push(call);
    return 'go';
  }

  /** Writes the calls taken, in the claim's transaction. */
  async record(tx: Tx) {
    if (this.counted.length > 0) await insertContactAttempts(tx, this.organizationId, this.counted, this.now);
  }
}
