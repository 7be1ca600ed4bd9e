// The run engine: claims PENDING runs of due batches, executes the pinned
// workflow version's steps one by one (current_step_id follows) through the
// step handlers, and ends each run FINISHED or FAILED. Any number of
// instances run side by side; each holds its runs under a lease it renews,
// and takes back runs whose holder died once their lease runs out.
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import type { PrismaClient } from '../generated/prisma/client.ts';
import type { BatchProgressHub } from '../events/batch-progress.ts';
import { type ClaimedRun, RunStore } from './run-store.ts';
import { definitionSteps, type Step, StepFailed, type StepHandler } from './steps.ts';

export interface EngineOptions {
  concurrency: number;
  leaseMs: number;
  maxAttempts: number;
  /** How long to wait for work when none was found. */
  pollMs: number;
  handlers: Map<string, StepHandler>;
}

interface Logger {
  error(object: unknown, message?: string): void;
}

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

  constructor(
    prisma: PrismaClient,
    private readonly events: BatchProgressHub,
    private readonly options: EngineOptions,
    private readonly log: Logger = console,
  ) {
    this.store = new RunStore(prisma, this.owner, options.leaseMs);
  }

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

  /** Looks for work at once (a batch was created or resumed). */
  poke(): void {
    this.wake?.();
  }

  /**
   * Stops claiming, stops the runs in flight and hands them back to PENDING
   * at once, so another instance takes them without waiting for the lease.
   */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    this.poke();
    for (const timer of this.timers) clearInterval(timer);
    this.timers = [];
    await this.loop;
    const held = [...this.inFlight.values()];
    for (const { abort } of held) abort.abort();
    await Promise.allSettled(held.map(({ done }) => done));
    const stillHeld = held.map(({ run }) => run.id);
    if (stillHeld.length > 0) this.announce(await this.store.release({ runIds: stillHeld }, this.options.maxAttempts + 1));
  }

  private async claimLoop() {
    while (this.running) {
      const free = this.options.concurrency - this.inFlight.size;
      let claimed: ClaimedRun[] = [];
      if (free > 0) {
        try {
          claimed = await this.store.claim(free);
        } catch (error) {
          this.log.error({ err: error }, 'claiming runs failed');
        }
      }
      for (const run of claimed) this.execute(run);
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

  private execute(run: ClaimedRun) {
    const abort = new AbortController();
    const done = this.perform(run, abort.signal)
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
      for (const step of await this.stepsOf(run)) {
        if (!(await this.store.atStep(run.id, step.id))) return; // the lease was taken back
        const handler = this.options.handlers.get(step.type);
        if (!handler) throw new StepFailed(`step ${step.id}: no handler for steps of type "${step.type}"`);
        await handler(step, { run, signal, holdTrunk: (trunkId) => this.holdTrunk(run, trunkId, signal) });
      }
    } catch (failure) {
      if (signal.aborted) return; // shutting down: stop() hands the run back
      if (!(failure instanceof StepFailed)) throw failure;
      outcome = 'FAILED';
      error = failure.message;
    }
    this.announce(await this.store.finish(run, outcome, error));
    this.completed++;
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
    this.announce(await this.store.release({ expiredBefore: 'now' }, this.options.maxAttempts));
  }

  private announce(batchIds: string[]) {
    for (const batchId of batchIds) this.events.batchChanged(batchId);
  }
}
