// Pacing and capacity across instances, and the engine under the faults an
// operator meets: two instances share a batch whose max_concurrency and
// calls_per_second hold over both (measured from the attempts' timestamps);
// status changes racing the engine; the database's connections terminated
// while runs finish. No attempt runs twice, and stats equal counts after.
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../src/db/database.ts';
import { retryTransient } from '../src/db/transient.ts';
import type { Dialer } from '../src/engine/dialer.ts';
import { batchIn, expectStatsMatchRuns } from './support/batch-checks.ts';
import { eventually, flows } from './support/flows.ts';
import { startTestServer, type TestServer } from './support/server.ts';
import { onPostgres } from './support/storage.ts';

/** Each run's attempts are numbered 1, 2, … once each, and the run counts them. */
async function expectEachAttemptOnce(db: Database, batchId: string) {
  const runs = await retryTransient(() =>
    db.prisma.run.findMany({ where: { batchId }, include: { callAttempts: true } }),
  );
  for (const run of runs) {
    expect(run.callAttempts.map((attempt) => attempt.number).sort()).toEqual(
      Array.from({ length: run.attempts }, (_, index) => index + 1),
    );
  }
  return runs;
}

/** The most of `instants` (ms) that fall within one sliding second. */
const busiestSecond = (instants: number[]) =>
  Math.max(...instants.map((start) => instants.filter((other) => other >= start && other < start + 1000).length));

describe('two instances sharing a paced batch', () => {
  let first: TestServer;
  let second: TestServer;
  /** When each call was actually placed, on either instance, by run. */
  const placed = new Map<string, number>();
  const dialer: Dialer = {
    async dial(request, signal) {
      placed.set(request.runId, Date.now());
      await sleep(300, undefined, { signal });
      return { outcome: 'answered', durationSeconds: 0.3, reason: null };
    },
  };
  beforeAll(async () => {
    first = await startTestServer({ engine: { concurrency: 10, dialer }, redisUrl: process.env.TEST_REDIS_URL });
    second = await startTestServer({
      engine: { concurrency: 10, dialer },
      redisUrl: process.env.TEST_REDIS_URL,
      sharing: first,
    });
  });
  afterAll(async () => {
    await second.close();
    await first.close();
  });

  it('never exceed max_concurrency nor calls_per_second, and run each attempt once', async () => {
    const { apiKey } = await first.createOrganization();
    const api = flows(first, apiKey);
    const batchId = await api.batch(await api.workflow([{ id: 'dial', type: 'call' }]), await api.prospects(24), {
      maxConcurrency: 3,
      callsPerSecond: 4,
    });
    const batch = await batchIn(first.db, batchId, ['FINISHED']);
    expect(batch.finishedCount).toBe(24);
    const runs = await expectEachAttemptOnce(first.db, batchId);
    expect(runs.every((run) => run.attempts === 1)).toBe(true);
    const attempts = runs
      .flatMap((run) => run.callAttempts)
      .sort((a, b) => a.startedAt.getTime() - b.startedAt.getTime());
    const starts = attempts.map((attempt) => attempt.startedAt.getTime());
    // calls_per_second: no sliding second holds more than 4 starts (each attempt's slot)…
    expect(busiestSecond(starts)).toBeLessThanOrEqual(4);
    // …and no call is placed before its slot.
    expect(placed.size).toBe(24);
    expect(attempts.filter((attempt) => placed.get(attempt.runId)! < attempt.startedAt.getTime())).toEqual([]);
    // max_concurrency: never more than 3 calls in flight at once.
    const inFlightAt = (instant: number) =>
      attempts.filter((attempt) => attempt.startedAt.getTime() <= instant && instant < attempt.endedAt!.getTime())
        .length;
    expect(Math.max(...starts.map(inFlightAt))).toBeLessThanOrEqual(3);
    expect(Math.max(...starts.map(inFlightAt))).toBeGreaterThanOrEqual(2); // the limit, not the pace alone, was met
    await expectStatsMatchRuns(first.db, batchId);
  });

  it('race pause, resume and cancel from both instances without a deadlock or a 500', async () => {
    const { organizationId, apiKey } = await first.createOrganization();
    const api = flows(first, apiKey);
    const batchId = await api.batch(await api.workflow([{ id: 'dial', type: 'call' }]), await api.prospects(300));
    await batchIn(first.db, batchId, ['IN_PROGRESS']);
    const deadlocks = () =>
      first.db.sql.query<{ deadlocks: number }>(
        'SELECT deadlocks::int AS deadlocks FROM pg_stat_database WHERE datname = current_database()',
      );
    const before = onPostgres ? (await deadlocks()).rows[0]!.deadlocks : 0;
    const moves = ['PAUSED', 'PENDING', 'PAUSED', 'PENDING', 'PAUSED', 'PENDING'];
    const statuses = await Promise.all(
      Array.from({ length: 50 }, async (_, index) => {
        const server = index % 2 === 0 ? first : second;
        const status = index === 49 ? 'CANCELLED' : moves[index % moves.length];
        const response = await fetch(`${server.url}/org/${organizationId}/batches/${batchId}`, {
          method: 'PATCH',
          headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
          body: JSON.stringify({ status }),
        });
        return response.status;
      }),
    );
    expect(statuses.filter((status) => status !== 200 && status !== 409)).toEqual([]);
    await api.setStatus(batchId, 'CANCELLED').catch(() => undefined);
    await eventually(async () =>
      (await first.db.prisma.run.count({ where: { batchId, status: 'IN_PROGRESS' } })) === 0 ? true : undefined,
    );
    if (onPostgres) expect((await deadlocks()).rows[0]!.deadlocks).toBe(before);
    const runs = await expectEachAttemptOnce(first.db, batchId);
    expect(runs.every((run) => run.attempts <= 1)).toBe(true);
    await expectStatsMatchRuns(first.db, batchId);
  });
});

describe.skipIf(!onPostgres)('the engine while the database drops its connections', () => {
  it('finishes every run exactly once when its backends are terminated mid-batch', async () => {
    const server = await startTestServer({ engine: { concurrency: 10, callMs: 40 } });
    // Connected to the test's database: it reads the batch's progress, and terminates every backend but its own.
    const admin = new pg.Client({ connectionString: (server.storage!.storage as { url: string }).url });
    await admin.connect();
    try {
      const { apiKey } = await server.createOrganization();
      const api = flows(server, apiKey);
      const batchId = await api.batch(await api.workflow([{ id: 'dial', type: 'call' }]), await api.prospects(200));
      let terminated = 0;
      // Mid-batch, whatever the machine's speed: a round each time another 25 runs have finished.
      for (let round = 1; round <= 6; round++) {
        await eventually(async () => {
          const progress = 'SELECT "finishedCount" AS finished FROM "Batch" WHERE id = $1';
          const { rows } = await admin.query<{ finished: number }>(progress, [batchId]);
          return rows[0]!.finished >= round * 25 ? true : undefined;
        });
        const { rows } = await admin.query<{ count: number }>(
          `SELECT count(pg_terminate_backend(pid))::int AS count FROM pg_stat_activity
           WHERE datname = current_database() AND pid <> pg_backend_pid()`,
        );
        terminated += rows[0]!.count;
      }
      expect(terminated).toBeGreaterThan(0);
      const batch = await batchIn(server.db, batchId, ['FINISHED']);
      expect(batch.finishedCount).toBe(200);
      const runs = await expectEachAttemptOnce(server.db, batchId);
      expect(runs.every((run) => run.attempts === 1 && run.recoveries === 0)).toBe(true);
      await expectStatsMatchRuns(server.db, batchId);
    } finally {
      await admin.end();
      await server.close();
    }
  });
});
