// The run engine: claims due runs of due batches (within their calling
// windows and pacing), executes the pinned workflow version's steps one by
// one (current_step_id follows; a retried call resumes at its step), places
// calls through the dialer (call-step.ts) and ends each run FINISHED or FAILED.
// Any number of instances run side by side; each holds its runs under a lease
// it renews, and takes back runs whose holder died once their lease runs out.
//
// `concurrency` is the instance's lines: calls in flight (lines.ts). The
// engine claims ahead, holding up to as many runs again as it has lines, so a
// line freed by an ended call goes at once to a run already prepared and at
// its call step; claiming, the steps around the call and the run's end take
// no line.
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { ClaimLoop } from '../claim-loop.ts';
import { type Clock, systemClock } from '../clock.ts';
import type { SecretBox } from '../domain/secrets.ts';
import { signatureHeaders } from '../domain/signing-secret.ts';
import { definitionSteps, type Step } from '../domain/workflow-definition.ts';
import type { BatchProgressHub } from '../events/batch-progress.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import type { Logger } from '../observability/logger.ts';
import { tracing } from '../observability/tracing.ts';
import type { OutboundPolicy } from '../outbound/request.ts';
import { type CallStepDependencies, type HeldLine, performCallStep } from './call-step.ts';
import { Coalesced } from './coalesced.ts';
import type { Dialer } from './dialer.ts';
import { Lines } from './lines.ts';
import { type ClaimedRun, RunStore } from './run-store.ts';
import { type Signer, StepFailedError, type StepHandler } from './steps.ts';

export interface EngineOptions {
  /** Calls in flight at once (the instance's lines); the engine holds up to twice as many runs. */
  concurrency: number;
  leaseMs: number;
  /** A run taken back this many times with no call in flight fails instead. */
  maxRecoveries: number;
  /** How long to wait for work when none was found. */
  pollMs: number;
  /** How long stop() lets calls in flight end before hanging up on them. */
  drainMs: number;
  /** Steps other than `call`. */
  handlers: Map<string, StepHandler>;
  dialer: Dialer;
  /** Opens the organizations' signing secrets. */
  secrets: SecretBox;
  /** Where pre-call webhooks and webhook steps may go (WEBHOOK_ALLOW_PRIVATE). */
  outbound: OutboundPolicy;
  clock?: Clock;
}

/** When a claim transaction ran (epoch milliseconds), and how many runs it took. */
interface ClaimSpan {
  startedAt: number;
  endedAt: number;
  runs: number;
}

/** A run's wait for its line ended because the instance stops: the run goes back without a call. */
class HandedBackError extends Error {}

/** Runs held per line at most: the run in its call, and one claimed ahead, waiting for the line. */
const RUNS_PER_LINE = 2;

/** Told how long a claim transaction took, in seconds. */
export type ClaimListener = (seconds: number) => void;

export class RunEngine {
  readonly owner = `${os.hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private readonly store: RunStore;
  /** The runs this instance holds, from their claim to their end (in a call, waiting for a line, or neither). */
  private readonly held = new Map<string, { run: ClaimedRun; abort: AbortController; done: Promise<void> }>();
  private readonly lines: Lines;
  /** Aborted by stop(), with the waits of runs for their line (or its slot, or a trunk slot): they go back at once. */
  private stopping = new AbortController();
  private readonly waits = new Set<AbortController>();
  private readonly handBacks: Coalesced<string, null>;
  private readonly claims: ClaimLoop<{ run: ClaimedRun; claim: ClaimSpan }>;
  private timers: NodeJS.Timeout[] = [];
  /** Runs this instance finished, for metrics. */
  completed = 0;
  private readonly claimListeners = new Set<ClaimListener>();

  constructor(
    prisma: PrismaClient,
    private readonly events: BatchProgressHub,
    private readonly options: EngineOptions,
    private readonly log: Logger = console,
  ) {
    this.clock = options.clock ?? systemClock;
    this.store = new RunStore(prisma, this.owner, options.leaseMs, this.clock);
    this.lines = new Lines(options.concurrency);
    // A run handed back with no call never crashed anything: it does not count towards failing it.
    this.handBacks = new Coalesced(async (runIds) => {
      this.announce(await this.store.release({ runIds }, 'interrupted', Number.POSITIVE_INFINITY));
      return runIds.map(() => null);
    });
    this.callStep = {
      store: this.store,
      dialer: options.dialer,
      takeLine: (run, call, signal) => this.takeLine(run, call, signal),
      handBack: async (run) => void (await this.handBacks.submit(run.id)),
      announce: (batchIds) => this.announce(batchIds),
      signerFor: (run) => this.signerFor(run),
      outbound: options.outbound,
    };
    this.claims = new ClaimLoop({
      room: () => RUNS_PER_LINE * options.concurrency - this.held.size,
      claim: (room) => this.claim(room),
      start: ({ run, claim }) => this.execute(run, claim),
      failed: (error) => this.log.error({ err: error }, 'claiming runs failed'),
      pollMs: options.pollMs,
    });
  }

  private readonly clock: Clock;
  private readonly callStep: CallStepDependencies;

  /** Runs held: in a call, waiting for a line, or at another step. */
  get activeRuns(): number {
    return this.held.size;
  }

  start(): void {
    if (this.claims.isRunning) return;
    this.stopping = new AbortController();
    this.claims.start();
    const every = (ms: number, work: () => Promise<unknown>) => {
      const upkeep = () => void work().catch((error) => this.log.error({ err: error }, 'run engine upkeep failed'));
      this.timers.push(setInterval(upkeep, ms));
    };
    every(this.options.leaseMs / 3, () => this.store.renewLeases([...this.held.keys()]));
    every(Math.max(100, this.options.leaseMs / 2), () => this.recoverExpired());
  }

  /** Told of each claim transaction's duration (the claim-latency metric). */
  onClaim(listener: ClaimListener): void {
    this.claimListeners.add(listener);
  }

  /** Looks for work at once (a batch was created or resumed). */
  poke(): void {
    this.claims.wake();
  }

  /**
   * Stops claiming and hands back at once the runs waiting for a line (they
   * resume elsewhere at their call step), lets the calls in flight (and
   * other steps under way) go on for up to `drainMs`, then stops the rest and
   * hands them back, so another instance takes them without waiting for the
   * lease: a call cut short is an attempt ended `failed` / `interrupted` (the
   * retry policy decides), a run with no call in flight resumes elsewhere at
   * its step.
   */
  async stop(): Promise<void> {
    if (!this.claims.isRunning) return;
    await this.claims.stop();
    this.stopping.abort(new HandedBackError('the instance stops'));
    for (const waiting of this.waits) waiting.abort();
    const draining = [...this.held.values()];
    await Promise.race([Promise.allSettled(draining.map(({ done }) => done)), sleep(this.options.drainMs)]);
    for (const timer of this.timers) clearInterval(timer);
    this.timers = [];
    const held = [...this.held.values()];
    for (const { abort } of held) abort.abort();
    await Promise.allSettled(held.map(({ done }) => done));
    const stillHeld = held.map(({ run }) => run.id);
    if (stillHeld.length > 0)
      this.announce(await this.store.release({ runIds: stillHeld }, 'interrupted', this.options.maxRecoveries + 1));
  }

  /** Claims the runs it has room for (twice its lines, less those held), timing each claim for the metric. */
  private async claim(room: number): Promise<{ run: ClaimedRun; claim: ClaimSpan }[]> {
    const claim: ClaimSpan = { startedAt: Date.now(), endedAt: 0, runs: 0 };
    const startedAt = performance.now();
    const claimed = await this.store.claim(room);
    const seconds = (performance.now() - startedAt) / 1000;
    for (const listener of this.claimListeners) listener(seconds);
    Object.assign(claim, { endedAt: Date.now(), runs: claimed.length });
    if (claimed.length > 0) this.announce([...new Set(claimed.map((run) => run.batchId))]);
    return claimed.map((run) => ({ run, claim }));
  }

  private execute(run: ClaimedRun, claim: ClaimSpan) {
    const abort = new AbortController();
    // Each attempt is a trace of its own (when traces are on), linked to the request that created its batch.
    const attributes = {
      'run.id': run.id,
      'batch.id': run.batchId,
      'organization.id': run.organizationId,
      'run.attempt': run.attempts + 1,
    };
    const done = tracing()
      .inTraceLinkedTo('run.attempt', run.batchTraceparent, attributes, () => {
        // One claim takes several runs: each attempt's trace shows it.
        tracing().recordSpan('run.claim', { 'claim.runs': claim.runs }, claim.startedAt, claim.endedAt);
        return this.perform(run, abort.signal);
      })
      .catch((error) => this.log.error({ err: error, runId: run.id }, 'run failed unexpectedly'))
      .finally(() => {
        this.held.delete(run.id);
        this.poke();
      });
    this.held.set(run.id, { run, abort, done });
  }

  private async perform(run: ClaimedRun, signal: AbortSignal) {
    let outcome: 'FINISHED' | 'FAILED' = 'FINISHED';
    let error: string | null = null;
    try {
      const steps = await this.stepsOf(run);
      // A retried call resumes at its step; a fresh run starts at the first.
      const resumeAt = Math.max(
        0,
        steps.findIndex((step) => step.id === run.currentStepId),
      );
      for (const [index, step] of steps.entries()) {
        if (index < resumeAt) continue;
        if (!(await this.store.atStep(run, step.id))) return; // the lease was taken back
        if (step.type === 'call') {
          const last = index === steps.length - 1;
          const next = await performCallStep(this.callStep, run, step, last, signal);
          if (next === 'finished') this.completed++;
          if (next !== 'continue') return;
          continue;
        }
        const handler = this.options.handlers.get(step.type);
        if (!handler) throw new StepFailedError(`step ${step.id}: no handler for steps of type "${step.type}"`);
        await handler(step, { run, signal, sign: this.signerFor(run), outbound: this.options.outbound });
      }
    } catch (failure) {
      if (signal.aborted) return; // shutting down: stop() hands the run back
      if (failure instanceof HandedBackError) {
        await this.handBacks.submit(run.id);
        return;
      }
      if (!(failure instanceof StepFailedError)) throw failure;
      outcome = 'FAILED';
      error = failure.message;
    }
    this.announce(
      await tracing().inSpan('run.finish', { 'run.outcome': outcome }, () => this.store.finish(run, outcome, error)),
    );
    this.completed++;
  }

  /** Signs with the organization's current signing secret (read at each request, so a rotation applies at once). */
  private signerFor(run: ClaimedRun): Signer {
    return async (body) => {
      const sealed = await this.store.signingSecretOf(run.organizationId);
      return sealed ? signatureHeaders(this.options.secrets.open(sealed), body, this.clock.now()) : {};
    };
  }

  private async stepsOf(run: ClaimedRun): Promise<Step[]> {
    const version = await this.store.definitionOf(run.workflowVersionId);
    const parsed = definitionSteps.safeParse(version?.definition ?? {});
    if (!parsed.success) throw new StepFailedError('the workflow definition has no valid `steps` list');
    return parsed.data.steps;
  }

  /** The waits before a call (call-step.ts): its slot, a trunk slot, a line; cut short when the instance stops. */
  private async takeLine(
    run: ClaimedRun,
    { trunkId, slotAt }: { trunkId?: string; slotAt: Date | null },
    signal: AbortSignal,
  ): Promise<HeldLine> {
    // Ends the waits when the run is stopped (its listener removed after, unlike AbortSignal.any's) or the
    // instance stops (stop() aborts every wait: no listener on the instance's signal per waiting run).
    const waiting = new AbortController();
    const stopWaiting = () => waiting.abort();
    if (signal.aborted || this.stopping.signal.aborted) waiting.abort();
    signal.addEventListener('abort', stopWaiting, { once: true });
    this.waits.add(waiting);
    let releaseTrunk = async () => {};
    try {
      // Placed at its slot, never before; waiting for it holds no line.
      if (slotAt) await this.clock.sleepUntil(slotAt, waiting.signal);
      if (trunkId) releaseTrunk = await this.holdTrunk(run, trunkId, waiting.signal);
      const hangUp = await this.lines.take(run.organizationId, slotAt !== null, waiting.signal);
      return { hangUp, releaseTrunk };
    } catch (error) {
      await releaseTrunk();
      if (this.stopping.signal.aborted && !signal.aborted) throw new HandedBackError('the instance stops');
      throw error;
    } finally {
      signal.removeEventListener('abort', stopWaiting);
      this.waits.delete(waiting);
    }
  }

  private async holdTrunk(run: ClaimedRun, trunkId: string, signal: AbortSignal) {
    for (;;) {
      const taken = await this.store.takeTrunkSlot(run, trunkId);
      if (taken === null) throw new StepFailedError(`trunk ${trunkId} is not an outbound trunk of this organization`);
      if (taken) return async () => void (await this.store.releaseTrunkSlot(run));
      await sleep(this.options.pollMs, undefined, { signal });
    }
  }

  private async recoverExpired() {
    this.announce(await this.store.release({ expired: true }, 'lost', this.options.maxRecoveries));
  }

  private announce(batchIds: string[]) {
    for (const batchId of batchIds) this.events.batchChanged(batchId);
  }
}
