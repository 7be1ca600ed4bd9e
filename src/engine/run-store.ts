// The run engine's moves, each one transaction that changes runs and the
// counters of their batches together, so `stats` always equals the runs'
// statuses, whatever else runs concurrently.
//
// The moves themselves: run-claims.ts, run-attempts.ts, run-settlement.ts
// (retries, the circuit breaker), run-endings.ts, run-recovery.ts (expired
// leases), trunk-slots.ts; their statements are in src/db/sql/.
//
// Lock order, on every path that touches a batch and its runs (the engine's,
// and the client's moves in src/domain/batches.ts): the batch rows first, in id order,
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

import { BoundedMap } from '../bounded-map.ts';
import type { Clock } from '../clock.ts';
import { consentsInForce } from '../db/sql/consents-in-force.ts';
import { doNotCallEntries } from '../db/sql/do-not-call-entries.ts';
import { recordRunSteps } from '../db/sql/record-run-steps.ts';
import { releaseTrunkSlot } from '../db/sql/release-trunk-slot.ts';
import { renewRunLeases } from '../db/sql/renew-run-leases.ts';
import { retryTransient } from '../db/transient.ts';
import type { Tx } from '../db/tx.ts';
import { reviewCallerIds } from '../domain/number-health.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import { Coalesced } from './coalesced.ts';
import type { CallResult } from './dialer.ts';
import {
  type AttemptEndRequest,
  type AttemptEndResult,
  type AttemptStart,
  type AttemptStartRequest,
  endAttempts,
  startAttempts,
} from './run-attempts.ts';
import { type ClaimedRun, claimRuns, type Lease } from './run-claims.ts';
import { endWithoutCall, type FinishRequest, finishAll } from './run-endings.ts';
import { releaseRuns } from './run-recovery.ts';
import { takeSlot } from './trunk-slots.ts';

export type { ClaimedRun } from './run-claims.ts';

/** Workflow versions whose definitions are kept (a version never changes once written). */
const DEFINITIONS_KEPT = 1000;

export class RunStore {
  private readonly lease: Lease;
  // What every run does, for many runs at once (coalesced.ts).
  private readonly steps: Coalesced<{ runId: string; organizationId: string; stepId: string }, boolean>;
  private readonly doNotCall: Coalesced<{ organizationId: string; number: string }, boolean>;
  private readonly consents: Coalesced<string, string | null>;
  private readonly precallWebhooks: Coalesced<{ organizationId: string; agentId: string }, unknown | null | undefined>;
  private readonly attemptStarts: Coalesced<AttemptStartRequest, boolean>;
  private readonly attemptEnds: Coalesced<AttemptEndRequest, AttemptEndResult>;
  private readonly finishes: Coalesced<FinishRequest, string[]>;
  private readonly callerIdReviews: Coalesced<{ organizationId: string; number: string }, null>;
  private readonly definitions = new BoundedMap<string, Promise<{ definition: unknown } | null>>(DEFINITIONS_KEPT);

  constructor(
    private readonly prisma: PrismaClient,
    private readonly owner: string,
    leaseMs: number,
    private readonly clock: Clock,
  ) {
    this.lease = { owner, until: (now) => new Date(now.getTime() + leaseMs) };
    this.steps = new Coalesced(async (runs) => {
      const held = await retryTransient(() => recordRunSteps(prisma, runs, owner, clock.now()));
      const recorded = new Set(held.map((row) => row.id));
      return runs.map((run) => recorded.has(run.runId));
    });
    this.doNotCall = new Coalesced(async (numbers) => {
      const listed = await retryTransient(() => doNotCallEntries(prisma, numbers));
      const keys = new Set(listed.map((entry) => `${entry.organizationId} ${entry.number}`));
      return numbers.map((entry) => keys.has(`${entry.organizationId} ${entry.number}`));
    });
    this.consents = new Coalesced(async (runIds) => {
      const rows = await retryTransient(() => consentsInForce(prisma, runIds, clock.now()));
      const byRun = new Map(rows.map((row) => [row.runId, row.consentId]));
      return runIds.map((id) => byRun.get(id) ?? null);
    });
    this.precallWebhooks = new Coalesced(async (wanted) => {
      const agents = await retryTransient(() =>
        prisma.agent.findMany({
          where: { id: { in: [...new Set(wanted.map((entry) => entry.agentId))] } },
          select: { id: true, organizationId: true, precallWebhook: true },
        }),
      );
      const byId = new Map(agents.map((agent) => [agent.id, agent]));
      return wanted.map(({ organizationId, agentId }) => {
        const agent = byId.get(agentId);
        return agent?.organizationId === organizationId ? agent.precallWebhook : undefined;
      });
    });
    this.attemptStarts = new Coalesced((starts) =>
      this.transaction((tx, now) => startAttempts(tx, now, owner, starts)),
    );
    this.attemptEnds = new Coalesced((ends) => this.transaction((tx, now) => endAttempts(tx, now, owner, ends)));
    this.finishes = new Coalesced((finishes) => this.transaction((tx, now) => finishAll(tx, now, owner, finishes)));
    this.callerIdReviews = new Coalesced(async (wanted) => {
      const byOrganization = new Map<string, Set<string>>();
      for (const { organizationId, number } of wanted)
        byOrganization.set(organizationId, (byOrganization.get(organizationId) ?? new Set()).add(number));
      for (const [organizationId, numbers] of byOrganization)
        await this.transaction((tx, now) => reviewCallerIds(tx, organizationId, [...numbers], now));
      return wanted.map(() => null);
    });
  }

  private transaction<T>(work: (tx: Tx, now: Date) => Promise<T>): Promise<T> {
    return retryTransient(() => this.prisma.$transaction((tx) => work(tx, this.clock.now())));
  }

  /**
   * Takes up to `limit` due PENDING runs of due batches (PENDING or
   * IN_PROGRESS, scheduled_at passed), within each batch's max_concurrency
   * and calls_per_second and each organization's max_concurrent_calls,
   * shared fairly between organizations, moving them to IN_PROGRESS under
   * this instance's lease. Runs outside their calling window are put off
   * until it opens (src/engine/run-claims.ts).
   */
  claim(limit: number): Promise<ClaimedRun[]> {
    const rotation = this.claims++;
    return this.transaction((tx, now) => claimRuns(tx, now, limit, this.lease, rotation));
  }

  /** Claims made, turning which of equally loaded organizations is served first. */
  private claims = 0;

  /** Records the step a run is at; false when the run is no longer this instance's. */
  atStep(run: ClaimedRun, stepId: string): Promise<boolean> {
    return this.steps.submit({ runId: run.id, organizationId: run.organizationId, stepId });
  }

  /** Extends this instance's leases on the runs it holds. */
  renewLeases(runIds: string[]) {
    if (runIds.length === 0) return Promise.resolve(0);
    return retryTransient(() => renewRunLeases(this.prisma, runIds, this.owner, this.lease.until(this.clock.now())));
  }

  /** True when the organization's do-not-call list holds the number. */
  onDoNotCallList(organizationId: string, number: string): Promise<boolean> {
    return this.doNotCall.submit({ organizationId, number });
  }

  /**
   * The id of the run prospect's live consent of its batch's consent_scope,
   * or null: read as the call is about to be placed, so a revocation holds
   * for queued runs.
   */
  consentInForce(runId: string): Promise<string | null> {
    return this.consents.submit(runId);
  }

  /** The organization's agent's pre-call webhook (null when it has none); undefined when the agent is gone. */
  precallWebhookOf(organizationId: string, agentId: string): Promise<unknown | null | undefined> {
    return this.precallWebhooks.submit({ organizationId, agentId });
  }

  /** The organization's sealed signing secret, or null when it has none yet. */
  async signingSecretOf(organizationId: string): Promise<string | null> {
    const organization = await retryTransient(() =>
      this.prisma.organization.findUnique({ where: { id: organizationId }, select: { signingSecretEncrypted: true } }),
    );
    return organization?.signingSecretEncrypted ?? null;
  }

  /**
   * The caller ids of an outbound trunk, in a stable order (used in turn),
   * less those rested (number health) while it has others.
   */
  async numbersOfTrunk(trunkId: string): Promise<string[]> {
    const rows = await retryTransient(() =>
      this.prisma.phoneNumber.findMany({
        where: { sipTrunkId: trunkId },
        orderBy: [{ createdAt: 'asc' }, { number: 'asc' }],
        select: { number: true, restedUntil: true },
      }),
    );
    const now = this.clock.now();
    const awake = rows.filter((row) => !row.restedUntil || row.restedUntil <= now);
    return (awake.length > 0 ? awake : rows).map((row) => row.number);
  }

  /**
   * Writes attempt `number` open (no outcome yet) before the call is placed,
   * so a call in flight is known even if this instance dies. False when the
   * run is no longer this instance's, or its batch was paused or cancelled
   * meanwhile (nothing written: the caller hands the run back).
   */
  startAttempt(run: ClaimedRun, attempt: AttemptStart): Promise<boolean> {
    return this.attemptStarts.submit({ run, attempt });
  }

  /**
   * Closes attempt `number` with its outcome and moves the run on by its
   * batch's retry policy: 'continue' (answered, or voicemail not retried: the
   * run goes on with its next step), 'finished' (it would go on, but the call
   * was its `last` step: FINISHED in the same transaction), or 'ended' (tried
   * again later, failed, or no longer this instance's).
   */
  endAttempt(
    run: ClaimedRun,
    number: number,
    stepId: string,
    result: CallResult,
    last = false,
  ): Promise<AttemptEndResult> {
    return this.attemptEnds.submit({ run, number, stepId, result, last });
  }

  /**
   * After a call from this caller id ended: rests it when its figures cross
   * the organization's number_health thresholds (src/domain/number-health.ts).
   */
  async reviewCallerId(organizationId: string, number: string): Promise<void> {
    await this.callerIdReviews.submit({ organizationId, number });
  }

  /** Ends a run without a call (invalid_number, do_not_call, precall_skip); false when it is no longer this instance's. */
  endWithoutCall(run: ClaimedRun, to: 'FAILED' | 'CANCELLED', reason: string, error: string | null): Promise<string[]> {
    return this.transaction((tx, now) => endWithoutCall(tx, now, this.owner, run, { to, reason, error }));
  }

  /** Ends a run FINISHED or FAILED after its steps; returns the batch ids that changed (none if the lease was lost). */
  finish(run: ClaimedRun, outcome: 'FINISHED' | 'FAILED', error: string | null): Promise<string[]> {
    return this.finishes.submit({ run, outcome, error });
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
  release(
    select: { expired: true } | { runIds: string[] },
    reason: 'lost' | 'interrupted',
    maxRecoveries: number,
  ): Promise<string[]> {
    return this.transaction((tx, now) => {
      const runs = 'runIds' in select ? { runIds: select.runIds, owner: this.owner } : { expiredBefore: now };
      return releaseRuns(tx, now, runs, reason, maxRecoveries);
    });
  }

  /**
   * Takes a slot of an outbound trunk for a run's call, if the trunk has one
   * free: the calls holding its slots, on every instance, stay within its
   * max_concurrency. False when the trunk is full; null when it is not the
   * run organization's outbound trunk.
   */
  takeTrunkSlot(run: ClaimedRun, trunkId: string): Promise<boolean | null> {
    return this.transaction((tx) => takeSlot(tx, this.owner, run, trunkId));
  }

  releaseTrunkSlot(run: ClaimedRun) {
    return retryTransient(() => releaseTrunkSlot(this.prisma, run.organizationId, run.id, this.owner));
  }

  /** A workflow version's definition, read once per version (and again after a failed read). */
  definitionOf(workflowVersionId: string) {
    let definition = this.definitions.get(workflowVersionId);
    if (!definition) {
      definition = retryTransient(() =>
        this.prisma.workflowVersion.findFirst({ where: { id: workflowVersionId }, select: { definition: true } }),
      );
      this.definitions.set(workflowVersionId, definition);
      definition.catch(() => this.definitions.delete(workflowVersionId));
    }
    return definition;
  }
}
