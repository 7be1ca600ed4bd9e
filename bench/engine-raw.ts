// Scenario (g)'s raw baseline: the run engine's own statements, without its
// per-run work. The very RunStore the engine uses (src/engine/run-store.ts:
// the same SQL, the same transactions, the same retries) on a Prisma client
// opened as the gateway opens it, driven by the engine's policy: CONCURRENCY
// lines (src/engine/lines.ts: calls in flight), and runs claimed ahead, up to
// two per line held, so a freed line goes at once to a run waiting for it;
// wait for room (or the poll interval) when none was found or all is taken.
// Each run: take a line, startAttempt, a simulated call of CALL_MS, free the
// line, endAttempt (answered; the call is the last step, so it finishes the
// run in the same transaction, as the engine does). Left out: the
// workflow definition read, the step record, the do-not-call and pre-call
// webhook look-ups, the progress announcements and the lease renewals.
//
// Usage: node --import tsx bench/engine-raw.ts, with DATABASE_URL,
// DATABASE_POOL_SIZE, BENCH_ENGINE_CONCURRENCY and BENCH_CALL_MS. Prints one
// JSON line when no run is left: the claim durations (ms) and the CPU the
// loop used. Ends when its stdin closes (the benchmark is gone).
import { setTimeout as sleep } from 'node:timers/promises';
import { systemClock } from '../src/clock.ts';
import { openDatabase } from '../src/db/database.ts';
import { Lines } from '../src/engine/lines.ts';
import { type ClaimedRun, RunStore } from '../src/engine/run-store.ts';

const CONCURRENCY = Number(process.env.BENCH_ENGINE_CONCURRENCY);
const CALL_MS = Number(process.env.BENCH_CALL_MS);
/** As src/engine/run-engine.ts: a run in a call and one waiting, per line. */
const HELD = 2 * CONCURRENCY;
/** As src/server.ts createEngine. */
const POLL_MS = 250;
/** RUN_LEASE_MS's default: runs end long before it. */
const LEASE_MS = 30_000;
const STEP_ID = 'dial';

process.stdin.on('end', () => process.exit(1));
process.stdin.resume();

const db = await openDatabase({
  kind: 'postgres',
  url: process.env.DATABASE_URL!,
  poolSize: Number(process.env.DATABASE_POOL_SIZE),
});
const store = new RunStore(db.prisma, `bench-raw:${process.pid}`, LEASE_MS, systemClock);

/** Whether a batch still has runs to claim (the benchmark's database holds one batch). */
async function workLeft() {
  const { rows } = await db.sql.query(
    `SELECT 1 FROM "Batch" WHERE status IN ('PENDING', 'IN_PROGRESS') AND "pendingCount" > 0 LIMIT 1`,
  );
  return rows.length > 0;
}

const lines = new Lines(CONCURRENCY);

async function call(run: ClaimedRun) {
  const number = run.attempts + 1;
  const attempt = {
    number,
    stepId: STEP_ID,
    fromNumber: null,
    toNumber: run.prospect.phone,
    dynamicVariables: null,
    startedAt: null,
  };
  // A signal of its own: one shared by every waiting call would collect a listener per call.
  const hangUp = await lines.take(run.organizationId, false, new AbortController().signal);
  if (!(await store.startAttempt(run, attempt))) throw new Error(`run ${run.id}: the attempt could not start`);
  await sleep(CALL_MS);
  hangUp();
  // The call is the run's last step: its attempt is closed and the run finished in one transaction.
  const after = await store.endAttempt(
    run,
    number,
    STEP_ID,
    { outcome: 'answered', durationSeconds: CALL_MS / 1000, reason: null },
    true,
  );
  if (after.next !== 'finished') throw new Error(`run ${run.id}: an answered last call should finish the run`);
}

const claimMs: number[] = [];
let held = 0;
let wake: (() => void) | null = null;
let failure: Error | null = null;
const cpuAtStart = process.cpuUsage();
const startedAt = performance.now();

for (;;) {
  if (failure) throw failure;
  const free = HELD - held;
  let claimed: ClaimedRun[] = [];
  if (free > 0) {
    const at = performance.now();
    claimed = await store.claim(free);
    claimMs.push(performance.now() - at);
  }
  for (const run of claimed) {
    held++;
    call(run)
      .catch((error: Error) => (failure = error))
      .finally(() => {
        held--;
        wake?.();
      });
  }
  // A claim skips a batch another transaction holds, so an empty one with nothing in flight asks the database.
  if (claimed.length === 0 && held === 0 && !(await workLeft())) break;
  if (claimed.length === 0 || held >= HELD) {
    await new Promise<void>((resolve) => {
      wake = resolve;
      setTimeout(resolve, POLL_MS).unref();
    });
    wake = null;
  }
}

if (failure) throw failure;
const cpu = process.cpuUsage(cpuAtStart);
await db.close();
process.stdout.write(
  `${JSON.stringify({ claimMs, cpuMs: (cpu.user + cpu.system) / 1000, seconds: (performance.now() - startedAt) / 1000 })}\n`,
);
process.exit(0);
