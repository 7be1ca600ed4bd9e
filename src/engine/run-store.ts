// The run engine's moves, each one transaction that changes runs and the
// counters of their batches together, so `stats` always equals the runs'
// statuses, whatever else runs concurrently.
//
// Lock order, on every path that touches a batch and its runs (here, and the
// client's moves in src/domain/batches.ts): the batch rows first, in id order,
// then their runs. A transaction never waits for a run while holding nothing
// of its batch, so the engine and status changes cannot deadlock.
//
// Runs are claimed with FOR UPDATE SKIP LOCKED, so any number of instances
// share the work and none takes a run another holds. Every move of a run out
// of IN_PROGRESS is guarded by the lease (status and owner), and an attempt is
// closed only while still open, so a write retried after a commit whose answer
// was lost changes nothing the second time. Every transaction is retried on
// transient errors (connection loss, deadlock, serialization).
//
// Each move writes its webhook events (src/domain/webhook-events.ts) in its
// own transaction: one statement at its end, after the locks above were taken
// (it adds none that matter to their order: it inserts new rows only).
import type { PrismaClient } from '../generated/prisma/client.ts';
import { Prisma } from '../generated/prisma/client.ts';
import { type CallOutcomeName, type RetryPolicy, settingsOf } from '../domain/batch-settings.ts';
import { counterColumn } from '../domain/batch-state.ts';
import { autoPauseBatch } from '../domain/batches.ts';
import { prospectZone, windowState } from '../domain/calling-window.ts';
import type { RunStatusName } from '../domain/runs.ts';
import { Outbox } from '../domain/webhook-events.ts';
import { retryTransient } from '../db/transient.ts';
import type { Clock } from './clock.ts';
import type { CallResult } from './dialer.ts';

type Tx = Parameters<Parameters<PrismaClient['$transaction']>[0]>[0];

export interface ClaimedRun {
  id: string;
  organizationId: string;
  batchId: string;
  workflowVersionId: string;
  prospectId: string;
  /** Call attempts made so far. */
  attempts: number;
  /** The step to resume at (a retried call), or null to start at the first. */
  currentStepId: string | null;
  /** `attributes`: the columns of its CSV import that are not prospect fields. */
  prospect: { id: string; firstName: string; lastName: string; email: string; phone: string; attributes: Record<string, unknown> };
  /** When a paced batch's run may place its call (calls_per_second); null: at once. */
  slotAt: Date | null;
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
/** Runs of a batch with a calling window looked at per claim beyond those taken, to defer those outside it. */
const WINDOW_SCAN = 500;

const column = (status: RunStatusName) => Prisma.raw(`"${counterColumn[status]}"`);

/** Moves `count` runs of a batch from one status counter to another. */
function moveCounters(tx: Tx, batchId: string, from: RunStatusName, to: RunStatusName, count: number) {
  return tx.$executeRaw`
    UPDATE "Batch" SET ${column(from)} = ${column(from)} - ${count}, ${column(to)} = ${column(to)} + ${count}, "updatedAt" = now()
    WHERE id = ${batchId}`;
}

/**
 * Batches whose every run is final move to FINISHED, or FAILED when every
 * run failed; a client's CANCELLED stays. Their events go to `outbox`.
 * Returns the batches that moved.
 */
async function completeBatches(tx: Tx, batchIds: string[], outbox: Outbox): Promise<string[]> {
  if (batchIds.length === 0) return [];
  const rows = await tx.$queryRaw<{ id: string; organizationId: string; status: string }[]>`
    UPDATE "Batch" SET status = (CASE WHEN "failedCount" = "totalProspects" THEN 'FAILED' ELSE 'FINISHED' END)::"BatchStatus",
      "updatedAt" = now()
    WHERE id = ANY(${batchIds}::text[]) AND status IN ('PENDING', 'IN_PROGRESS', 'PAUSED')
      AND "pendingCount" + "inProgressCount" + "pausedCount" = 0
    RETURNING id, "organizationId", status::text AS status`;
  for (const row of rows) outbox.batchMoved(row.organizationId, row.id, row.status);
  return rows.map((row) => row.id);
}

interface LockedBatch {
  id: string;
  organizationId: string;
  status: string;
  retry: RetryPolicy;
  autoPause: { failure_rate: number; window: number } | null;
}

/** Locks batches (in id order: the lock order) and reads what deciding a run's next move needs. */
async function lockBatches(tx: Tx, batchIds: string[]): Promise<Map<string, LockedBatch>> {
  const rows = await tx.$queryRaw<{ id: string; organizationId: string; status: string; callingWindow: unknown; retry: unknown; autoPause: unknown }[]>`
    SELECT id, "organizationId", status::text AS status, "callingWindow", retry, "autoPause" FROM "Batch"
    WHERE id = ANY(${[...new Set(batchIds)]}::text[]) ORDER BY id FOR NO KEY UPDATE`;
  return new Map(rows.map((row) => [row.id, { id: row.id, organizationId: row.organizationId, status: row.status, ...settingsOf(row) }]));
}

/** What follows an attempt: the run goes on with its next step, is tried again later, or fails. */
export function afterAttempt(outcome: CallOutcomeName, retry: RetryPolicy, attemptsAtStep: number): 'continue' | 'retry' | 'fail' {
  const retried = retry.on.includes(outcome) && attemptsAtStep < retry.max_attempts;
  if (retried) return 'retry';
  if (outcome === 'answered' || outcome === 'voicemail') return 'continue';
  return 'fail';
}

/** A run whose attempt reached nobody: tried again after the delay (held while its batch is paused), or failed. */
interface AttemptSettlement {
  runId: string;
  decision: 'retry' | 'fail';
  outcome: CallOutcomeName;
  error: string;
}

/** Where a run that waits for another attempt goes, by its batch's status. */
const waitingStatus = (batchStatus: string): RunStatusName =>
  batchStatus === 'PAUSED' ? 'PAUSED' : batchStatus === 'CANCELLED' ? 'CANCELLED' : 'PENDING';

export class RunStore {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly owner: string,
    private readonly leaseMs: number,
    private readonly clock: Clock,
  ) {}

  private transaction<T>(work: (tx: Tx, now: Date) => Promise<T>): Promise<T> {
    return retryTransient(() => this.prisma.$transaction((tx) => work(tx, this.clock.now())));
  }

  private leaseUntil(now: Date) {
    return new Date(now.getTime() + this.leaseMs);
  }

  /**
   * Takes up to `limit` due PENDING runs of due batches (PENDING or
   * IN_PROGRESS, scheduled_at passed), within each batch's max_concurrency
   * and calls_per_second, moving them to IN_PROGRESS under this instance's
   * lease. Runs outside their calling window are put off until it opens.
   */
  claim(limit: number): Promise<ClaimedRun[]> {
    return this.transaction(async (tx, now) => {
      // The batches first (the lock order); one another instance holds is left to it this time.
      const batches = await tx.$queryRaw<
        {
          id: string;
          organizationId: string;
          status: string;
          callingWindow: unknown;
          retry: unknown;
          autoPause: unknown;
          maxConcurrency: number | null;
          callsPerSecond: number | null;
          nextCallAt: Date | null;
          inProgressCount: number;
        }[]
      >`
        SELECT id, "organizationId", status::text AS status, "callingWindow", retry, "autoPause", "maxConcurrency", "callsPerSecond",
          "nextCallAt", "inProgressCount"
        FROM "Batch"
        WHERE status IN ('PENDING', 'IN_PROGRESS') AND "pendingCount" > 0 AND ("scheduledAt" IS NULL OR "scheduledAt" <= ${now})
        ORDER BY id FOR NO KEY UPDATE SKIP LOCKED`;
      const claimed: ClaimedRun[] = [];
      const outbox = new Outbox();
      for (const batch of batches) {
        const free = limit - claimed.length;
        if (free <= 0) break;
        let take = batch.maxConcurrency === null ? free : Math.min(free, batch.maxConcurrency - batch.inProgressCount);
        const gapMs = batch.callsPerSecond ? (1000 + PACING_MARGIN_MS) / batch.callsPerSecond : 0;
        const firstSlot = Math.max(batch.nextCallAt?.getTime() ?? 0, now.getTime());
        if (gapMs) take = Math.min(take, Math.max(0, Math.ceil((now.getTime() + PACING_HORIZON_MS - firstSlot) / gapMs)));
        if (take <= 0) continue;
        const { callingWindow } = settingsOf(batch);
        // An ordered walk of "Run_batchId_nextAttemptAt_id_idx", partial WHERE status = 'PENDING'
        // (prisma/migrations/…_campaign_batches): the walk stops at the limit or at the first run not yet due.
        const candidates = await tx.$queryRaw<(Omit<ClaimedRun, 'prospect' | 'slotAt'> & ClaimedRun['prospect'] & { timezone: string | null })[]>`
          SELECT r.id, r."organizationId", r."batchId", r."workflowVersionId", r."prospectId", r.attempts, r."currentStepId",
            p."firstName", p."lastName", p.email, p.phone, p.timezone, p.attributes
          FROM "Run" r JOIN "Prospect" p ON p.id = r."prospectId"
          WHERE r."batchId" = ${batch.id} AND r.status = 'PENDING' AND r."nextAttemptAt" <= ${now}
          ORDER BY r."nextAttemptAt", r.id
          LIMIT ${callingWindow ? take + WINDOW_SCAN : take}
          FOR UPDATE OF r SKIP LOCKED`;
        const taken: ClaimedRun[] = [];
        const putOff = new Map<number, string[]>();
        for (const { firstName, lastName, email, phone, timezone, attributes, ...run } of candidates) {
          const state = callingWindow ? windowState(callingWindow, prospectZone({ timezone, phone }, callingWindow), now) : { open: true as const };
          if (!state.open) {
            const opensAt = state.opensAt.getTime();
            putOff.set(opensAt, [...(putOff.get(opensAt) ?? []), run.id]);
          } else if (taken.length < take) {
            const slotAt = gapMs ? new Date(firstSlot + taken.length * gapMs) : null;
            taken.push({ ...run, prospect: { id: run.prospectId, firstName, lastName, email, phone, attributes }, slotAt });
          }
        }
        for (const [opensAt, ids] of putOff) {
          await tx.$executeRaw`UPDATE "Run" SET "nextAttemptAt" = ${new Date(opensAt)} WHERE id = ANY(${ids}::text[])`;
        }
        if (taken.length === 0) continue;
        await tx.$executeRaw`
          UPDATE "Run" SET status = 'IN_PROGRESS', "startedAt" = coalesce("startedAt", ${now}), "updatedAt" = ${now},
            "leaseOwner" = ${this.owner}, "leaseExpiresAt" = ${this.leaseUntil(now)}
          WHERE id = ANY(${taken.map((run) => run.id)}::text[])`;
        await tx.$executeRaw`
          UPDATE "Batch" SET "pendingCount" = "pendingCount" - ${taken.length}, "inProgressCount" = "inProgressCount" + ${taken.length},
            status = (CASE WHEN status = 'PENDING' THEN 'IN_PROGRESS' ELSE status::text END)::"BatchStatus", "updatedAt" = now(),
            "nextCallAt" = ${gapMs ? new Date(firstSlot + taken.length * gapMs) : null}::timestamptz
          WHERE id = ${batch.id}`;
        if (batch.status === 'PENDING') outbox.batchMoved(batch.organizationId, batch.id, 'IN_PROGRESS');
        for (const run of taken) outbox.runMoved(run.organizationId, run.id, 'IN_PROGRESS');
        claimed.push(...taken);
      }
      await outbox.write(tx, now);
      return claimed;
    });
  }

  /** Records the step a run is at; false when the run is no longer this instance's. */
  async atStep(runId: string, stepId: string): Promise<boolean> {
    const count = await retryTransient(
      () => this.prisma.$executeRaw`
        UPDATE "Run" SET "currentStepId" = ${stepId}, "updatedAt" = ${this.clock.now()}
        WHERE id = ${runId} AND status = 'IN_PROGRESS' AND "leaseOwner" = ${this.owner}`,
    );
    return count === 1;
  }

  /** Extends this instance's leases on the runs it holds. */
  renewLeases(runIds: string[]) {
    if (runIds.length === 0) return Promise.resolve(0);
    return retryTransient(
      () => this.prisma.$executeRaw`
        UPDATE "Run" SET "leaseExpiresAt" = ${this.leaseUntil(this.clock.now())}
        WHERE id = ANY(${runIds}::text[]) AND status = 'IN_PROGRESS' AND "leaseOwner" = ${this.owner}`,
    );
  }

  /** True when the organization's do-not-call list holds the number (its primary key). */
  async onDoNotCallList(organizationId: string, number: string): Promise<boolean> {
    const rows = await retryTransient(
      () => this.prisma.$queryRaw<unknown[]>`
        SELECT 1 FROM "DoNotCallNumber" WHERE "organizationId" = ${organizationId} AND number = ${number}`,
    );
    return rows.length > 0;
  }

  /** The organization's agent's pre-call webhook (null when it has none); undefined when the agent is gone. */
  async precallWebhookOf(organizationId: string, agentId: string): Promise<unknown | null | undefined> {
    const agent = await retryTransient(() =>
      this.prisma.agent.findFirst({ where: { id: agentId, organizationId }, select: { precallWebhook: true } }),
    );
    return agent ? agent.precallWebhook : undefined;
  }

  /** The organization's sealed signing secret, or null when it has none yet. */
  async signingSecretOf(organizationId: string): Promise<string | null> {
    const organization = await retryTransient(() =>
      this.prisma.organization.findUnique({ where: { id: organizationId }, select: { signingSecretEncrypted: true } }),
    );
    return organization?.signingSecretEncrypted ?? null;
  }

  /** The caller ids of an outbound trunk, in a stable order (used in turn). */
  async numbersOfTrunk(trunkId: string): Promise<string[]> {
    const rows = await retryTransient(() =>
      this.prisma.phoneNumber.findMany({ where: { sipTrunkId: trunkId }, orderBy: [{ createdAt: 'asc' }, { number: 'asc' }], select: { number: true } }),
    );
    return rows.map((row) => row.number);
  }

  /**
   * Writes attempt `number` open (no outcome yet) before the call is placed,
   * so a call in flight is known even if this instance dies. False when the
   * run is no longer this instance's (nothing written).
   */
  startAttempt(
    run: ClaimedRun,
    attempt: {
      number: number;
      stepId: string;
      fromNumber: string | null;
      toNumber: string;
      dynamicVariables: unknown;
      /** A paced attempt's slot: when its call is placed (not before). */
      startedAt: Date | null;
    },
  ): Promise<boolean> {
    return this.transaction(async (tx, now) => {
      const held = await tx.$executeRaw`
        UPDATE "Run" SET attempts = ${attempt.number}, "updatedAt" = ${now}
        WHERE id = ${run.id} AND status = 'IN_PROGRESS' AND "leaseOwner" = ${this.owner} AND attempts = ${attempt.number - 1}`;
      if (held === 0) {
        // Retried after a commit whose answer was lost: the attempt is there already.
        const [existing] = await tx.$queryRaw<unknown[]>`SELECT 1 FROM "RunAttempt" WHERE "runId" = ${run.id} AND number = ${attempt.number}`;
        return existing !== undefined;
      }
      await tx.runAttempt.create({
        data: {
          organizationId: run.organizationId,
          runId: run.id,
          batchId: run.batchId,
          number: attempt.number,
          stepId: attempt.stepId,
          startedAt: attempt.startedAt ?? now,
          fromNumber: attempt.fromNumber,
          toNumber: attempt.toNumber,
          dynamicVariables: (attempt.dynamicVariables ?? undefined) as never,
        },
      });
      return true;
    });
  }

  /**
   * Closes attempt `number` with its outcome and moves the run on by its
   * batch's retry policy: 'continue' (answered, or voicemail not retried: the
   * run goes on with its next step), or 'ended' (tried again later, failed, or
   * no longer this instance's).
   */
  endAttempt(run: ClaimedRun, number: number, stepId: string, result: CallResult): Promise<{ next: 'continue' | 'ended'; batchIds: string[] }> {
    return this.transaction(async (tx, now) => {
      const batch = (await lockBatches(tx, [run.batchId])).get(run.batchId)!;
      const closed = await tx.$executeRaw`
        UPDATE "RunAttempt" SET "endedAt" = ${now}, outcome = ${result.outcome}::"CallOutcome", reason = ${result.reason},
          "durationSeconds" = ${result.durationSeconds}
        WHERE "runId" = ${run.id} AND number = ${number} AND "endedAt" IS NULL`;
      const [current] = await tx.$queryRaw<{ held: boolean }[]>`
        SELECT status = 'IN_PROGRESS' AND "leaseOwner" = ${this.owner} AS held FROM "Run" WHERE id = ${run.id}`;
      // Closed already (a retry after a lost answer) or taken back: whatever the first commit decided stands.
      if (closed === 0 || !current?.held) return { next: current?.held ? 'continue' : 'ended', batchIds: [] };
      const outbox = new Outbox().add('call.attempt_ended', run.organizationId, { kind: 'attempt', runId: run.id, number });
      const decision = afterAttempt(result.outcome, batch.retry, await this.attemptsAtStep(tx, run.id, stepId));
      if (decision === 'continue') {
        await tx.$executeRaw`UPDATE "Run" SET "lastOutcome" = ${result.outcome}::"CallOutcome", "updatedAt" = ${now} WHERE id = ${run.id}`;
        await outbox.write(tx, now);
        return { next: 'continue', batchIds: [] };
      }
      const error = decision === 'fail' ? `the call ended ${result.outcome}${result.reason ? ` (${result.reason})` : ''} after ${number} attempt${number > 1 ? 's' : ''}` : '';
      await this.settle(tx, now, batch, [{ runId: run.id, decision, outcome: result.outcome, error }], outbox);
      await outbox.write(tx, now);
      return { next: 'ended', batchIds: [run.batchId] };
    });
  }

  private async attemptsAtStep(tx: Tx, runId: string, stepId: string): Promise<number> {
    const [row] = await tx.$queryRaw<{ count: number }[]>`
      SELECT count(*)::int AS count FROM "RunAttempt" WHERE "runId" = ${runId} AND "stepId" = ${stepId}`;
    return row!.count;
  }

  /** Moves runs of one locked batch whose attempt reached nobody: to wait for a retry, or to FAILED. */
  private async settle(tx: Tx, now: Date, batch: LockedBatch, runs: AttemptSettlement[], outbox: Outbox) {
    const retryAt = new Date(now.getTime() + batch.retry.delay_seconds * 1000);
    const waiting = waitingStatus(batch.status);
    for (const to of new Set(runs.map((run) => (run.decision === 'retry' ? waiting : 'FAILED')))) {
      const moving = runs.filter((run) => (run.decision === 'retry' ? waiting : 'FAILED') === to);
      const final = to === 'FAILED' || to === 'CANCELLED';
      await tx.$executeRaw`
        UPDATE "Run" AS r SET status = ${to}::"RunStatus", "updatedAt" = ${now}, "leaseOwner" = NULL, "leaseExpiresAt" = NULL,
          "trunkId" = NULL, "nextAttemptAt" = ${retryAt}, "lastOutcome" = moved.outcome::"CallOutcome",
          "endedAt" = CASE WHEN ${final} THEN ${now}::timestamptz ELSE NULL END,
          error = CASE WHEN ${to === 'FAILED'} THEN moved.error ELSE r.error END
        FROM unnest(${moving.map((run) => run.runId)}::text[], ${moving.map((run) => run.outcome)}::text[], ${moving.map((run) => run.error)}::text[])
          AS moved(id, outcome, error)
        WHERE r.id = moved.id`;
      await moveCounters(tx, batch.id, 'IN_PROGRESS', to, moving.length);
      for (const run of moving) outbox.runMoved(batch.organizationId, run.runId, to);
    }
    // A batch these runs ended is over: the breaker has nothing left to pause.
    const ended = (await completeBatches(tx, [batch.id], outbox)).length > 0;
    if (!ended && runs.some((run) => run.outcome === 'failed')) await this.tripBreaker(tx, batch, outbox);
  }

  /** The circuit breaker: pauses the batch when its latest attempts failed as often as its auto_pause says. */
  private async tripBreaker(tx: Tx, batch: LockedBatch, outbox: Outbox) {
    if (!batch.autoPause || !['PENDING', 'IN_PROGRESS'].includes(batch.status)) return;
    // The batch's latest ended attempts: "RunAttempt_batchId_endedAt_idx", partial WHERE "endedAt" IS NOT NULL, walked backward.
    const [share] = await tx.$queryRaw<{ failed: number; total: number }[]>`
      SELECT count(*) FILTER (WHERE outcome = 'failed')::int AS failed, count(*)::int AS total FROM (
        SELECT outcome FROM "RunAttempt" WHERE "batchId" = ${batch.id} AND "endedAt" IS NOT NULL
        ORDER BY "endedAt" DESC LIMIT ${batch.autoPause.window}) AS latest`;
    const { failed, total } = share!;
    if (total < batch.autoPause.window || failed < batch.autoPause.failure_rate * total) return;
    await autoPauseBatch(tx, batch.id, `auto_pause: ${failed} of ${total} attempts failed`);
    batch.status = 'PAUSED';
    outbox.batchMoved(batch.organizationId, batch.id, 'PAUSED');
  }

  /** Ends a run without a call (invalid_number, do_not_call, precall_skip); false when it is no longer this instance's. */
  endWithoutCall(run: ClaimedRun, to: 'FAILED' | 'CANCELLED', reason: string, error: string | null): Promise<string[]> {
    return this.transaction(async (tx, now) => {
      await lockBatches(tx, [run.batchId]);
      const ended = await tx.$executeRaw`
        UPDATE "Run" SET status = ${to}::"RunStatus", "endedAt" = ${now}, "updatedAt" = ${now}, reason = ${reason}, error = ${error},
          "leaseOwner" = NULL, "leaseExpiresAt" = NULL, "trunkId" = NULL
        WHERE id = ${run.id} AND status = 'IN_PROGRESS' AND "leaseOwner" = ${this.owner}`;
      if (ended === 0) return [];
      await moveCounters(tx, run.batchId, 'IN_PROGRESS', to, 1);
      const outbox = new Outbox().runMoved(run.organizationId, run.id, to);
      await completeBatches(tx, [run.batchId], outbox);
      await outbox.write(tx, now);
      return [run.batchId];
    });
  }

  /** Ends a run FINISHED or FAILED after its steps; returns the batch ids that changed (none if the lease was lost). */
  finish(run: ClaimedRun, outcome: 'FINISHED' | 'FAILED', error: string | null): Promise<string[]> {
    return this.transaction(async (tx, now) => {
      await lockBatches(tx, [run.batchId]);
      const ended = await tx.$executeRaw`
        UPDATE "Run" SET status = ${outcome}::"RunStatus", "endedAt" = ${now}, "updatedAt" = ${now}, error = ${error},
          "leaseOwner" = NULL, "leaseExpiresAt" = NULL, "trunkId" = NULL
        WHERE id = ${run.id} AND status = 'IN_PROGRESS' AND "leaseOwner" = ${this.owner}`;
      if (ended === 0) return [];
      await moveCounters(tx, run.batchId, 'IN_PROGRESS', outcome, 1);
      const outbox = new Outbox().runMoved(run.organizationId, run.id, outcome);
      await completeBatches(tx, [run.batchId], outbox);
      await outbox.write(tx, now);
      return [run.batchId];
    });
  }

  /**
   * Takes runs back: this instance's `runIds` (it is stopping), or any
   * instance's whose lease ran out (it died). A run with a call in flight has
   * that attempt recorded `failed` with `reason` (`interrupted`, `lost`) and
   * follows its batch's retry policy like any failed attempt: it is never
   * re-run at once. A run with no call in flight resumes at its step
   * (PENDING, or PAUSED / CANCELLED when its batch was paused or cancelled
   * meanwhile), and FAILS once taken back `maxRecoveries` times.
   */
  release(select: { expired: true } | { runIds: string[] }, reason: 'lost' | 'interrupted', maxRecoveries: number): Promise<string[]> {
    return this.transaction(async (tx, now) => {
      const condition =
        'runIds' in select
          ? Prisma.sql`r.id = ANY(${select.runIds}::text[]) AND r."leaseOwner" = ${this.owner}`
          : Prisma.sql`r."leaseExpiresAt" < ${now}`;
      // Expired leases: "Run_leaseExpiresAt_idx", partial WHERE status = 'IN_PROGRESS'. Read without
      // locks to find the batches, which are locked first (the lock order), then the runs.
      const found = await tx.$queryRaw<{ batchId: string }[]>`
        SELECT DISTINCT r."batchId" FROM "Run" r WHERE r.status = 'IN_PROGRESS' AND ${condition} LIMIT 100`;
      if (found.length === 0) return [];
      const batches = await lockBatches(tx, found.map((row) => row.batchId));
      const runs = await tx.$queryRaw<{ id: string; batchId: string; recoveries: number; openAttempt: number | null; stepId: string | null }[]>`
        SELECT r.id, r."batchId", r.recoveries, a.number AS "openAttempt", a."stepId"
        FROM "Run" r LEFT JOIN "RunAttempt" a ON a."runId" = r.id AND a."endedAt" IS NULL
        WHERE r.status = 'IN_PROGRESS' AND ${condition} AND r."batchId" = ANY(${[...batches.keys()]}::text[])
        ORDER BY r.id LIMIT 500
        FOR UPDATE OF r SKIP LOCKED`;
      const inFlight = runs.filter((run) => run.openAttempt !== null);
      const outbox = new Outbox();
      const organizationOf = (batchId: string) => batches.get(batchId)!.organizationId;
      if (inFlight.length > 0) {
        await tx.$executeRaw`
          UPDATE "RunAttempt" SET "endedAt" = ${now}, outcome = 'failed', reason = ${reason}, "durationSeconds" = 0
          WHERE "runId" = ANY(${inFlight.map((run) => run.id)}::text[]) AND "endedAt" IS NULL`;
        for (const run of inFlight) outbox.add('call.attempt_ended', organizationOf(run.batchId), { kind: 'attempt', runId: run.id, number: run.openAttempt! });
      }
      for (const batch of batches.values()) {
        const settlements: AttemptSettlement[] = [];
        for (const run of inFlight.filter((candidate) => candidate.batchId === batch.id)) {
          const decision = afterAttempt('failed', batch.retry, await this.attemptsAtStep(tx, run.id, run.stepId!));
          const error = `the call was ${reason}: its instance stopped before it ended (attempt ${run.openAttempt})`;
          settlements.push({ runId: run.id, decision: decision === 'retry' ? 'retry' : 'fail', outcome: 'failed', error });
        }
        if (settlements.length > 0) await this.settle(tx, now, batch, settlements, outbox);
        const idle = runs.filter((run) => run.batchId === batch.id && run.openAttempt === null);
        for (const to of [waitingStatus(batch.status), 'FAILED' as const]) {
          const ids = idle.filter((run) => (run.recoveries + 1 >= maxRecoveries ? 'FAILED' : waitingStatus(batch.status)) === to).map((run) => run.id);
          if (ids.length === 0) continue;
          const final = to === 'FAILED' || to === 'CANCELLED';
          await tx.$executeRaw`
            UPDATE "Run" SET status = ${to}::"RunStatus", "updatedAt" = ${now}, "leaseOwner" = NULL, "leaseExpiresAt" = NULL,
              "trunkId" = NULL, recoveries = recoveries + 1, "nextAttemptAt" = ${now},
              "endedAt" = CASE WHEN ${final} THEN ${now}::timestamptz ELSE NULL END,
              error = CASE WHEN ${to === 'FAILED'} THEN 'gave up after ' || (recoveries + 1) || ' recoveries' ELSE error END
            WHERE id = ANY(${ids}::text[])`;
          await moveCounters(tx, batch.id, 'IN_PROGRESS', to, ids.length);
          for (const id of ids) outbox.runMoved(batch.organizationId, id, to);
        }
      }
      const batchIds = [...new Set(runs.map((run) => run.batchId))];
      await completeBatches(tx, batchIds, outbox);
      await outbox.write(tx, now);
      return batchIds;
    });
  }

  /**
   * Takes a slot of an outbound trunk for a run's call, if the trunk has one
   * free: the calls holding its slots, on every instance, stay within its
   * max_concurrency. False when the trunk is full; null when it is not the
   * run organization's outbound trunk.
   */
  takeTrunkSlot(run: ClaimedRun, trunkId: string): Promise<boolean | null> {
    return this.transaction(async (tx) => {
      // One taker per trunk at a time, across instances, for the count-then-take below.
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`trunk:${trunkId}`}))`;
      const [trunk] = await tx.$queryRaw<{ maxConcurrency: number }[]>`
        SELECT "maxConcurrency" FROM "SipTrunk"
        WHERE id = ${trunkId} AND "organizationId" = ${run.organizationId} AND direction = 'outbound'`;
      if (!trunk) return null;
      // Index-only on "Run_trunkId_status_idx", partial WHERE "trunkId" IS NOT NULL (implied by the =).
      const [busy] = await tx.$queryRaw<{ count: number }[]>`
        SELECT count(*)::int AS count FROM "Run" WHERE "trunkId" = ${trunkId} AND status = 'IN_PROGRESS'`;
      if (busy!.count >= trunk.maxConcurrency) return false;
      const taken = await tx.$executeRaw`
        UPDATE "Run" SET "trunkId" = ${trunkId} WHERE id = ${run.id} AND status = 'IN_PROGRESS' AND "leaseOwner" = ${this.owner}`;
      return taken === 1;
    });
  }

  releaseTrunkSlot(runId: string) {
    return retryTransient(() => this.prisma.$executeRaw`UPDATE "Run" SET "trunkId" = NULL WHERE id = ${runId} AND "leaseOwner" = ${this.owner}`);
  }

  definitionOf(workflowVersionId: string) {
    return retryTransient(() => this.prisma.workflowVersion.findUnique({ where: { id: workflowVersionId }, select: { definition: true } }));
  }
}
