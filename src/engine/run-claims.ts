// Claiming runs: due PENDING runs of due batches move to IN_PROGRESS under
// this instance's lease, within each batch's max_concurrency and pacing
// (calls_per_second) and each organization's max_concurrent_calls, shared
// fairly between organizations and then between an organization's batches
// (fair-shares.ts); runs outside their calling window are put off until it
// opens, those on one of their organization's blackout dates until it
// ends (src/domain/blackout-dates.ts), and those over their organization's
// contact_limits until the limits allow (contact-caps.ts). FOR UPDATE SKIP LOCKED lets any number of instances share the work.

import { countClaimedRuns } from '../db/sql/count-claimed-runs.ts';
import { deferRuns } from '../db/sql/defer-runs.ts';
import { deferRunsEach } from '../db/sql/defer-runs-each.ts';
import { lockBoundedOrganizations } from '../db/sql/lock-bounded-organizations.ts';
import { type DueBatchRow, lockDueBatches } from '../db/sql/lock-due-batches.ts';
import { type DueRun, lockDueRuns } from '../db/sql/lock-due-runs.ts';
import { organizationsWithDueBatches } from '../db/sql/organizations-with-due-batches.ts';
import { runsInProgressByOrganization } from '../db/sql/runs-in-progress-by-organization.ts';
import { startRuns } from '../db/sql/start-runs.ts';
import type { Tx } from '../db/tx.ts';
import { settingsOf } from '../domain/batch-settings.ts';
import { blackoutUntil } from '../domain/blackout-dates.ts';
import { prospectZone, windowState } from '../domain/calling-window.ts';
import { Outbox } from '../domain/webhook-events.ts';
import type { BlackoutDate } from '../records/blackout-dates.ts';
import type { ContactLimit } from '../records/contact-settings.ts';
import { ContactGate, contactLimitsByOrganization } from './contact-caps.ts';
import { fairShares, type OrganizationLoad } from './fair-shares.ts';

export interface ClaimedRun extends DueRun {
  /** `attributes`: the columns of its CSV import that are not prospect fields. */
  prospect: {
    id: string;
    firstName: string;
    lastName: string;
    email: string;
    phone: string;
    /** Its own IANA zone, if it has one (a call-back's slot is in its zone). */
    timezone: string | null;
    attributes: Record<string, unknown>;
  };
  /** When a paced batch's run may place its call (calls_per_second); null: at once. */
  slotAt: Date | null;
  /** The traceparent of the request that created its batch: its attempt's trace links to it. */
  batchTraceparent: string | null;
  /** Its call needs a live consent (its batch's require_consent, else its organization's). */
  requireConsent: boolean;
}

/** The lease runs are claimed under: its owner, and its end for a claim made at `now`. */
export interface Lease {
  owner: string;
  until(now: Date): Date;
}

/** A claim reserves the pacing slots of the next second at most. */
const PACING_HORIZON_MS = 1000;
/**
 * A call is placed at its slot or a little after (timers, the event loop, the
 * database), never before. Slots `(1000 + margin) / calls_per_second` ms apart
 * keep any second of actual placements within calls_per_second as long as no
 * call is later than the margin (ordinarily at most ~50 ms here; more under
 * heavy load), for 5% of the rate at 10/s. The recorded starts are the slots.
 */
const PACING_MARGIN_MS = 50;
/** Runs of a batch with a calling window (or contact limits) looked at per claim beyond those taken, to defer those outside it. */
const WINDOW_SCAN = 500;

/** A batch's pacing at `now`: the gap between its calls' slots (0: not paced) and its first free slot. */
function pacingOf(batch: DueBatchRow, now: Date) {
  const gapMs = batch.callsPerSecond ? (1000 + PACING_MARGIN_MS) / batch.callsPerSecond : 0;
  const firstSlot = Math.max(batch.nextCallAt?.getTime() ?? 0, now.getTime());
  return { gapMs, firstSlot };
}

/** How many runs of the batch a claim with `free` places left may take. */
function runsToTake(batch: DueBatchRow, free: number, now: Date) {
  const { gapMs, firstSlot } = pacingOf(batch, now);
  const take = batch.maxConcurrency === null ? free : Math.min(free, batch.maxConcurrency - batch.inProgressCount);
  return gapMs ? Math.min(take, Math.max(0, Math.ceil((now.getTime() + PACING_HORIZON_MS - firstSlot) / gapMs))) : take;
}

/**
 * Takes up to `take` due runs of one locked batch, putting off those outside
 * its calling window, on a blackout date, or over its organization's
 * contact_limits. The row is kept up to date (its counter, its next slot,
 * its status) for a later pass of the same claim.
 */
async function claimFromBatch(
  tx: Tx,
  batch: DueBatchRow,
  take: number,
  now: Date,
  lease: Lease,
  outbox: Outbox,
  contactLimits: ContactLimit[] | undefined,
) {
  const { callingWindow } = settingsOf(batch);
  // Stored through the settings' schema (src/records/blackout-dates.ts).
  const blackouts = (batch.blackoutDates ?? []) as BlackoutDate[];
  const { gapMs, firstSlot } = pacingOf(batch, now);
  const scan = callingWindow || blackouts.length > 0 || contactLimits ? take + WINDOW_SCAN : take;
  const candidates = await lockDueRuns(tx, batch.organizationId, batch.id, now, scan);
  const taken: ClaimedRun[] = [];
  const putOff = new Map<number, string[]>();
  const capped: { id: string; until: Date }[] = [];
  // When each candidate may be called at the earliest: null now, else when its window opens or its blackout ends.
  const waits = candidates.map(({ timezone, phone }) => {
    const state = callingWindow
      ? windowState(callingWindow, prospectZone({ timezone, phone }, callingWindow), now)
      : { open: true as const };
    return state.open
      ? blackoutUntil(blackouts, { timezone, phone }, callingWindow?.timezone ?? null, now)
      : state.opensAt;
  });
  const callOf = (run: (typeof candidates)[number]) => ({
    runId: run.id,
    attempt: run.attempts + 1,
    number: run.phone,
  });
  const gate = contactLimits
    ? await ContactGate.open(
        tx,
        batch.organizationId,
        contactLimits,
        candidates.filter((_run, index) => !waits[index]).map(callOf),
        now,
      )
    : null;
  for (const [index, candidate] of candidates.entries()) {
    const { firstName, lastName, email, phone, timezone, attributes, ...run } = candidate;
    const waitUntil = waits[index];
    if (waitUntil) {
      const until = waitUntil.getTime();
      putOff.set(until, [...(putOff.get(until) ?? []), run.id]);
    } else if (taken.length < take) {
      const verdict = gate ? gate.take(callOf(candidate)) : 'go';
      if (verdict === 'held') continue; // another claim counts this number now: left due
      if (verdict !== 'go') {
        capped.push({ id: run.id, until: verdict });
        continue;
      }
      const slotAt = gapMs ? new Date(firstSlot + taken.length * gapMs) : null;
      taken.push({
        ...run,
        prospect: { id: run.prospectId, firstName, lastName, email, phone, timezone, attributes },
        slotAt,
        batchTraceparent: batch.traceparent,
        requireConsent: batch.requireConsent,
      });
    }
  }
  for (const [opensAt, ids] of putOff) await deferRuns(tx, batch.organizationId, ids, new Date(opensAt));
  if (capped.length > 0) await deferRunsEach(tx, batch.organizationId, capped);
  await gate?.record(tx);
  if (taken.length === 0) return taken;
  await startRuns(
    tx,
    batch.organizationId,
    taken.map((run) => run.id),
    lease.owner,
    now,
    lease.until(now),
  );
  const nextCallAt = gapMs ? new Date(firstSlot + taken.length * gapMs) : null;
  await countClaimedRuns(tx, batch.organizationId, batch.id, taken.length, nextCallAt);
  if (batch.status === 'PENDING') outbox.batchMoved(batch.organizationId, batch.id, 'IN_PROGRESS');
  for (const run of taken) outbox.runMoved(run.organizationId, run.id, 'IN_PROGRESS');
  Object.assign(batch, { inProgressCount: batch.inProgressCount + taken.length, nextCallAt, status: 'IN_PROGRESS' });
  return taken;
}

/**
 * The organizations of the due batches: their runs in progress and their
 * bound. Organizations with a bound are locked first (their bound then holds
 * over instances claiming at once); with one organization and no bound there
 * is nothing to share and nothing is read.
 */
async function organizationLoads(tx: Tx, batches: DueBatchRow[]): Promise<Map<string, OrganizationLoad>> {
  const ids = [...new Set(batches.map((batch) => batch.organizationId))];
  const boundedIds = [
    ...new Set(batches.filter((batch) => batch.organizationBound !== null).map((batch) => batch.organizationId)),
  ];
  const loads = new Map<string, OrganizationLoad>();
  if (ids.length === 1 && boundedIds.length === 0) return loads;
  const bounded = boundedIds.length > 0 ? await lockBoundedOrganizations(tx, boundedIds) : [];
  const bounds = new Map(bounded.map((row) => [row.id, row.maxConcurrentCalls]));
  const inProgress = new Map(
    (await runsInProgressByOrganization(tx, ids)).map((row) => [row.organizationId, row.inProgress]),
  );
  for (const id of ids) loads.set(id, { inProgress: inProgress.get(id) ?? 0, bound: bounds.get(id) ?? null });
  return loads;
}

/**
 * Takes up to `limit` due PENDING runs of due batches (PENDING or
 * IN_PROGRESS, scheduled_at passed), within each batch's max_concurrency
 * and calls_per_second and each organization's max_concurrent_calls, shared
 * fairly (fair-shares.ts), moving them to IN_PROGRESS under the lease.
 * `rotation` turns the order in which equally loaded organizations are served.
 */
export async function claimRuns(tx: Tx, now: Date, limit: number, lease: Lease, rotation = 0): Promise<ClaimedRun[]> {
  // The batches first (the lock order: by organization, then by id); one another instance holds is
  // left to it this time. Each organization's are locked by a statement of their own, which a sharded
  // database routes to that organization's shard (docs/scaling.md#ready-for-citus).
  const batches: DueBatchRow[] = [];
  for (const organizationId of await organizationsWithDueBatches(tx, now)) {
    batches.push(...(await lockDueBatches(tx, organizationId, now)));
  }
  if (batches.length === 0) return [];
  const organizations = await organizationLoads(tx, batches);
  const contactLimits = await contactLimitsByOrganization(tx, [
    ...new Set(batches.map((batch) => batch.organizationId)),
  ]);
  const claimed: ClaimedRun[] = [];
  const outbox = new Outbox();
  // A batch that gives fewer runs than its share (not due yet, outside its window) has no more:
  // its places go to the others in another pass.
  let open = batches;
  while (open.length > 0 && claimed.length < limit) {
    const free = limit - claimed.length;
    const due = open.map((batch) => ({
      id: batch.id,
      organizationId: batch.organizationId,
      inProgress: batch.inProgressCount,
      room: runsToTake(batch, free, now),
    }));
    const shares = fairShares(due, organizations, free, rotation);
    if (shares.size === 0) break;
    const exhausted = new Set<string>();
    for (const batch of open) {
      const share = shares.get(batch.id);
      if (!share) continue;
      const taken = await claimFromBatch(tx, batch, share, now, lease, outbox, contactLimits.get(batch.organizationId));
      claimed.push(...taken);
      const load = organizations.get(batch.organizationId);
      if (load) load.inProgress += taken.length;
      if (taken.length < share) exhausted.add(batch.id);
    }
    open = open.filter((batch) => !exhausted.has(batch.id));
  }
  await outbox.write(tx, now);
  return claimed;
}
