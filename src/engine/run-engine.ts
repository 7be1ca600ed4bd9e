// The run engine: claims due runs of due batches (within their calling
// windows and pacing), executes the pinned workflow version's steps one by
// one (current_step_id follows; a retried call resumes at its step), places
// calls through the dialer (call-step.ts) and ends each run FINISHED or FAILED.
// Any number of instances run side by side; each holds its runs under a lease
// it renews, and takes back runs whose holder died once their lease runs out.
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { type Clock, systemClock } from '../clock.ts';
import type { SecretBox } from '../domain/secrets.ts';
import { signatureHeaders } from '../domain/signing-secret.ts';
import { definitionSteps, type Step } from '../domain/workflow-definition.ts';
import type { BatchProgressHub } from '../events/batch-progress.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import type { Logger } from '../observability/logger.ts';
import { tracing } from '../observability/tracing.ts';
import { type CallStepDependencies, performCallStep } from './call-step.ts';
import type { Dialer } from './dialer.ts';
import { type ClaimedRun, RunStore } from './run-store.ts';
import { type Signer, StepFailed, type StepHandler } from './steps.ts';

export interface EngineOptions {
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
  clock?: Clock;
}

/** When a claim transaction ran (epoch milliseconds), and how many runs it took. */
interface ClaimSpan {
  startedAt: number;
  endedAt: number;
  runs: number;
}

/** Told how long a claim transaction took, in seconds. */
export type ClaimListener = (seconds: number) => void;

export class RunEngine {
  readonly owner = `${os.hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private readonly store: RunStore;
  private readonly inFlight = new Map<string, { run: ClaimedRun; abort: AbortController; done: Promise<void> }>();
  private running = false;
  private loop: Promise<void> | null = null;
  private timers: NodeJS.Timeout[] = [];
  private wake: (() => void) | null = null;
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
    this.callStep = {
      store: this.store,
      clock: this.clock,
      dialer: options.dialer,
      holdTrunk: (run, trunkId, signal) => this.holdTrunk(run, trunkId, signal),
      announce: (batchIds) => this.announce(batchIds),
      signerFor: (run) => this.signerFor(run),
    };
  }

  private readonly clock: Clock;
  private readonly callStep: CallStepDependencies;

  get activeRuns(): number {
    return this.inFlight.size;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.claimLoop();
    const every = (ms: number, work: () => Promise<unknown>) => {
      const upkeep = () => void work().catch((error) => this.log.error({ err: error }, 'run engine upkeep failed'));
      this.timers.push(setInterval(upkeep, ms));
    };
    every(this.options.leaseMs / 3, () => this.store.renewLeases([...this.inFlight.keys()]));
    every(Math.max(100, this.options.leaseMs / 2), () => this.recoverExpired());
  }

  /** Told of each claim transaction's duration (the claim-latency metric). */
  onClaim(listener: ClaimListener): void {
    this.claimListeners.add(listener);
  }

  /** Looks for work at once (a batch was created or resumed). */
  poke(): void {
    this.wake?.();
  }

  /**
   * Stops claiming, lets the runs in flight go on for up to `drainMs`, then
   * stops the rest and hands them back at once, so another instance takes
   * them without waiting for the lease: a call cut short is an attempt ended
   * `failed` / `interrupted` (the retry policy decides), a run with no call in
   * flight resumes elsewhere at its step.
   */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    this.poke();
    await this.loop;
    const draining = [...this.inFlight.values()];
    await Promise.race([Promise.allSettled(draining.map(({ done }) => done)), sleep(this.options.drainMs)]);
    for (const timer of this.timers) clearInterval(timer);
    this.timers = [];
    const held = [...this.inFlight.values()];
    for (const { abort } of held) abort.abort();
    await Promise.allSettled(held.map(({ done }) => done));
    const stillHeld = held.map(({ run }) => run.id);
    if (stillHeld.length > 0)
      this.announce(await this.store.release({ runIds: stillHeld }, 'interrupted', this.options.maxRecoveries + 1));
  }

  private async claimLoop() {
    while (this.running) {
      const free = this.options.concurrency - this.inFlight.size;
      let claimed: ClaimedRun[] = [];
      const claim: ClaimSpan = { startedAt: Date.now(), endedAt: 0, runs: 0 };
      if (free > 0) {
        try {
          const startedAt = performance.now();
          claimed = await this.store.claim(free);
          const seconds = (performance.now() - startedAt) / 1000;
          for (const listener of this.claimListeners) listener(seconds);
          Object.assign(claim, { endedAt: Date.now(), runs: claimed.length });
        } catch (error) {
          this.log.error({ err: error }, 'claiming runs failed');
        }
      }
      for (const run of claimed) this.execute(run, claim);
      if (claimed.length > 0) this.announce([...new Set(claimed.map((run) => run.batchId))]);
      if (claimed.length === 0 || this.inFlight.size >= this.options.concurrency) {
        await new Promise<void>((resolve) => {
          this.wake = resolve;
          setTimeout(resolve, this.options.pollMs).unref();
        });
        this.wake = null;
      }
    }
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
        this.inFlight.delete(run.id);
        this.poke();
      });
    this.inFlight.set(run.id, { run, abort, done });
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
      for (const step of steps.slice(resumeAt)) {
        if (!(await this.store.atStep(run.id, step.id))) return; // the lease was taken back
        if (step.type === 'call') {
          if ((await performCallStep(this.callStep, run, step, signal)) === 'ended') return;
          continue;
        }
        const handler = this.options.handlers.get(step.type);
        if (!handler) throw new StepFailed(`step ${step.id}: no handler for steps of type "${step.type}"`);
        await handler(step, { run, signal, sign: this.signerFor(run) });
      }
    } catch (failure) {
      if (signal.aborted) return; // shutting down: stop() hands the run back
      if (!(failure instanceof StepFailed)) throw failure;
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
    if (!parsed.success) throw new StepFailed('the workflow definition has no valid `steps` list');
    return parsed.data.steps;
  }

  private async holdTrunk(run: ClaimedRun, trunkId: string, signal: AbortSignal) {
    for (;;) {
      const taken = await this.store.takeTrunkSlot(run, trunkId);
      if (taken === null) throw new StepFailed(`trunk ${trunkId} is not an outbound trunk of this organization`);
      if (taken) return async () => void (await this.store.releaseTrunkSlot(run.id));
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
