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

import type { Clock } from '../clock.ts';
import { doNotCallEntry } from '../db/sql/do-not-call-entry.ts';
import { recordRunStep } from '../db/sql/record-run-step.ts';
import { releaseTrunkSlot } from '../db/sql/release-trunk-slot.ts';
import { renewRunLeases } from '../db/sql/renew-run-leases.ts';
import { retryTransient } from '../db/transient.ts';
import type { Tx } from '../db/tx.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import type { CallResult } from './dialer.ts';
import { type AttemptStart, endAttempt, startAttempt } from './run-attempts.ts';
import { type ClaimedRun, claimRuns, type Lease } from './run-claims.ts';
import { endWithoutCall, finish } from './run-endings.ts';
import { releaseRuns } from './run-recovery.ts';
import { takeSlot } from './trunk-slots.ts';

export type { ClaimedRun } from './run-claims.ts';

export class RunStore {
  private readonly lease: Lease;

  constructor(
    private readonly prisma: PrismaClient,
    private readonly owner: string,
    leaseMs: number,
    private readonly clock: Clock,
  ) {
    this.lease = { owner, until: (now) => new Date(now.getTime() + leaseMs) };
  }

  private transaction<T>(work: (tx: Tx, now: Date) => Promise<T>): Promise<T> {
    return retryTransient(() => this.prisma.$transaction((tx) => work(tx, this.clock.now())));
  }

  /**
   * Takes up to `limit` due PENDING runs of due batches (PENDING or
   * IN_PROGRESS, scheduled_at passed), within each batch's max_concurrency
   * and calls_per_second, moving them to IN_PROGRESS under this instance's
   * lease. Runs outside their calling window are put off until it opens
   * (src/engine/run-claims.ts).
   */
  claim(limit: number): Promise<ClaimedRun[]> {
    return this.transaction((tx, now) => claimRuns(tx, now, limit, this.lease));
  }

  /** Records the step a run is at; false when the run is no longer this instance's. */
  async atStep(runId: string, stepId: string): Promise<boolean> {
    const count = await retryTransient(() => recordRunStep(this.prisma, runId, stepId, this.owner, this.clock.now()));
    return count === 1;
  }

  /** Extends this instance's leases on the runs it holds. */
  renewLeases(runIds: string[]) {
    if (runIds.length === 0) return Promise.resolve(0);
    return retryTransient(() => renewRunLeases(this.prisma, runIds, this.owner, this.lease.until(this.clock.now())));
  }

  /** True when the organization's do-not-call list holds the number. */
  async onDoNotCallList(organizationId: string, number: string): Promise<boolean> {
    const rows = await retryTransient(() => doNotCallEntry(this.prisma, organizationId, number));
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
      this.prisma.phoneNumber.findMany({
        where: { sipTrunkId: trunkId },
        orderBy: [{ createdAt: 'asc' }, { number: 'asc' }],
        select: { number: true },
      }),
    );
    return rows.map((row) => row.number);
  }

  /**
   * Writes attempt `number` open (no outcome yet) before the call is placed,
   * so a call in flight is known even if this instance dies. False when the
   * run is no longer this instance's (nothing written).
   */
  startAttempt(run: ClaimedRun, attempt: AttemptStart): Promise<boolean> {
    return this.transaction((tx, now) => startAttempt(tx, now, this.owner, run, attempt));
  }

  /**
   * Closes attempt `number` with its outcome and moves the run on by its
   * batch's retry policy: 'continue' (answered, or voicemail not retried: the
   * run goes on with its next step), or 'ended' (tried again later, failed, or
   * no longer this instance's).
   */
  endAttempt(
    run: ClaimedRun,
    number: number,
    stepId: string,
    result: CallResult,
  ): Promise<{ next: 'continue' | 'ended'; batchIds: string[] }> {
    return this.transaction((tx, now) => endAttempt(tx, now, this.owner, run, number, stepId, result));
  }

  /** Ends a run without a call (invalid_number, do_not_call, precall_skip); false when it is no longer this instance's. */
  endWithoutCall(run: ClaimedRun, to: 'FAILED' | 'CANCELLED', reason: string, error: string | null): Promise<string[]> {
    return this.transaction((tx, now) => endWithoutCall(tx, now, this.owner, run, { to, reason, error }));
  }

  /** Ends a run FINISHED or FAILED after its steps; returns the batch ids that changed (none if the lease was lost). */
  finish(run: ClaimedRun, outcome: 'FINISHED' | 'FAILED', error: string | null): Promise<string[]> {
    return this.transaction((tx, now) => finish(tx, now, this.owner, run, outcome, error));
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

  releaseTrunkSlot(runId: string) {
    return retryTransient(() => releaseTrunkSlot(this.prisma, runId, this.owner));
  }

  definitionOf(workflowVersionId: string) {
    return retryTransient(() =>
      this.prisma.workflowVersion.findUnique({ where: { id: workflowVersionId }, select: { definition: true } }),
    );
  }
}
