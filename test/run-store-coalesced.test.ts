// The run engine's coalesced calls (src/engine/coalesced.ts): attempts'
// ends and runs' finishes that arrive together are written in one
// transaction, and each caller still gets its own run's answer, whatever the
// other runs of its group did.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../src/db/database.ts';
import { createOrganization } from '../src/domain/organizations.ts';
import { prepareDatabase } from '../src/domain/prepare-database.ts';
import { Coalesced } from '../src/engine/coalesced.ts';
import type { CallResult } from '../src/engine/dialer.ts';
import { type ClaimedRun, RunStore } from '../src/engine/run-store.ts';
import { expectStatsMatchRuns } from './support/batch-checks.ts';
import { ManualClock } from './support/manual-clock.ts';
import { createTestStorage, type TestStorage } from './support/storage.ts';

/** A promise and the functions that settle it, for holding a group's transaction open. */
function deferred<T = void>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((ok, fail) => {
    resolve = ok;
    reject = fail;
  });
  return { promise, resolve, reject };
}

describe('Coalesced', () => {
  it('writes the first item at once, and those arriving meanwhile together in the next group', async () => {
    const groups: string[][] = [];
    const commits: ReturnType<typeof deferred<void>>[] = [];
    const writer = new Coalesced<string, string>(async (items) => {
      groups.push(items);
      const commit = deferred();
      commits.push(commit);
      await commit.promise;
      return items.map((item) => item.toUpperCase());
    });
    const first = writer.submit('a');
    const later = ['b', 'c', 'd'].map((item) => writer.submit(item));
    expect(groups).toEqual([['a']]);
    commits[0]!.resolve();
    expect(await first).toBe('A');
    await Promise.resolve();
    expect(groups).toEqual([['a'], ['b', 'c', 'd']]);
    commits[1]!.resolve();
    expect(await Promise.all(later)).toEqual(['B', 'C', 'D']);
  });

  it('fails only the group whose transaction failed, and takes the next group after it', async () => {
    const commits: ReturnType<typeof deferred<void>>[] = [];
    const writer = new Coalesced<number, number>(async (items) => {
      const commit = deferred();
      commits.push(commit);
      await commit.promise;
      return items;
    });
    const failing = [writer.submit(1)];
    const next = [writer.submit(2), writer.submit(3)];
    commits[0]!.reject(new Error('the transaction failed'));
    await expect(failing[0]).rejects.toThrow('the transaction failed');
    await Promise.resolve();
    commits[1]!.resolve();
    expect(await Promise.all(next)).toEqual([2, 3]);
  });

  it('holds at most maxGroup items in one group', async () => {
    const sizes: number[] = [];
    const writer = new Coalesced<number, number>(async (items) => {
      sizes.push(items.length);
      return items;
    }, 2);
    expect(await Promise.all([1, 2, 3, 4, 5].map((item) => writer.submit(item)))).toEqual([1, 2, 3, 4, 5]);
    expect(sizes).toEqual([1, 2, 2]);
  });
});

describe('the run store, ending many runs together', () => {
  const RUNS = 12;
  let storage: TestStorage;
  let db: Database;
  let batchId: string;
  let store: RunStore;
  let runs: ClaimedRun[];

  beforeAll(async () => {
    storage = await createTestStorage();
    db = await prepareDatabase(storage.storage);
    const { organization } = await createOrganization(db.prisma, 'Grouped writes');
    const workflow = await db.prisma.workflow.create({
      data: { organizationId: organization.id, name: 'Grouped', publishedAt: new Date() },
    });
    const version = await db.prisma.workflowVersion.create({
      data: {
        organizationId: organization.id,
        workflowId: workflow.id,
        version: 1,
        definition: { steps: [{ id: 'dial', type: 'call' }] },
        createdBy: 'test',
      },
    });
    const prospects = await db.prisma.prospect.createManyAndReturn({
      data: Array.from({ length: RUNS }, (_, n) => ({
        organizationId: organization.id,
        firstName: `First${n}`,
        lastName: `Last${n}`,
        email: `p${n}@example.com`,
        phone: `+1415555${String(n).padStart(4, '0')}`,
      })),
    });
    const batch = await db.prisma.batch.create({
      data: {
        organizationId: organization.id,
        workflowId: workflow.id,
        workflowVersionId: version.id,
        name: 'Grouped',
        sourceType: 'prospect_ids',
        createdBy: 'test',
        totalProspects: RUNS,
        pendingCount: RUNS,
        // no_answer is tried again once; failed is not.
        retry: { max_attempts: 2, on: ['no_answer'], delay_seconds: 60 },
      },
    });
    batchId = batch.id;
    await db.prisma.run.createMany({
      data: prospects.map((prospect) => ({
        organizationId: organization.id,
        workflowId: workflow.id,
        workflowVersionId: version.id,
        batchId,
        prospectId: prospect.id,
      })),
    });
    store = new RunStore(db.prisma, 'instance-a', 60_000, new ManualClock(new Date()));
    runs = await store.claim(RUNS);
  });
  afterAll(async () => {
    await db?.close();
    await storage?.dispose();
  });

  const attempt = (run: ClaimedRun, number: number) => ({
    number,
    stepId: 'dial',
    fromNumber: null,
    toNumber: run.prospect.phone,
    dynamicVariables: null,
    startedAt: null,
  });

  it('writes attempts open together; one written already is kept, one that is not the next is refused', async () => {
    expect(runs).toHaveLength(RUNS);
    expect(await Promise.all(runs.map((run) => store.startAttempt(run, attempt(run, 1))))).toEqual(
      runs.map(() => true),
    );
    // Written again (a retry after a commit whose answer was lost), and one that skips a number, in one group.
    const [first, second] = runs;
    expect(
      await Promise.all([
        store.startAttempt(first!, attempt(first!, 1)),
        store.startAttempt(first!, attempt(first!, 1)),
        store.startAttempt(second!, attempt(second!, 3)),
      ]),
    ).toEqual([true, true, false]);
    expect(await db.prisma.runAttempt.count({ where: { batchId } })).toBe(RUNS);
  });

  it('gives each run its own answer from one group: go on, finished, tried again, failed, or no longer this instance’s', async () => {
    // Another instance took the last run back meanwhile.
    const taken = runs.at(-1)!;
    await db.prisma.run.updateMany({ where: { id: taken.id }, data: { leaseOwner: 'instance-b' } });
    const outcomeOf = (index: number): CallResult['outcome'] =>
      index % 3 === 0 ? 'answered' : index % 3 === 1 ? 'no_answer' : 'failed';
    // Every other answered call is its run's last step: that run is finished with it.
    const lastStep = (index: number) => index % 6 === 3;
    const answers = await Promise.all(
      runs.map((run, index) =>
        store.endAttempt(
          run,
          1,
          'dial',
          { outcome: outcomeOf(index), reason: null, durationSeconds: 1.5 },
          lastStep(index),
        ),
      ),
    );
    expect(answers.at(-1)).toEqual({ next: 'ended', batchIds: [] });
    expect(answers.slice(0, -1)).toEqual(
      runs
        .slice(0, -1)
        .map((_, index) =>
          outcomeOf(index) !== 'answered'
            ? { next: 'ended', batchIds: [batchId] }
            : lastStep(index)
              ? { next: 'finished', batchIds: [batchId] }
              : { next: 'continue', batchIds: [] },
        ),
    );
    const after = await db.prisma.run.findMany({ where: { batchId }, select: { id: true, status: true } });
    const statusOf = new Map(after.map((run) => [run.id, run.status]));
    runs.slice(0, -1).forEach((run, index) => {
      expect(statusOf.get(run.id)).toBe(
        lastStep(index)
          ? 'FINISHED'
          : { answered: 'IN_PROGRESS', no_answer: 'PENDING', failed: 'FAILED' }[outcomeOf(index) as string],
      );
    });
    // Its attempt is closed (the call did end), but its run is the other instance's to move.
    expect(statusOf.get(taken.id)).toBe('IN_PROGRESS');
    const attempts = await db.prisma.runAttempt.findMany({ where: { batchId }, select: { endedAt: true } });
    expect(attempts.every((attempt) => attempt.endedAt !== null)).toBe(true);
    await expectStatsMatchRuns(db, batchId);

    // Ended again (a retry after a commit whose answer was lost): nothing changes.
    const again = await store.endAttempt(runs[0]!, 1, 'dial', { outcome: 'failed', reason: null, durationSeconds: 0 });
    expect(again).toEqual({ next: 'continue', batchIds: [] });

    const answered = runs.slice(0, -1).filter((_, index) => outcomeOf(index) === 'answered');
    const goingOn = runs.slice(0, -1).filter((_, index) => outcomeOf(index) === 'answered' && !lastStep(index));
    const finished = await Promise.all([
      ...goingOn.map((run) => store.finish(run, 'FINISHED', null)),
      store.finish(taken, 'FINISHED', null),
    ]);
    expect(finished).toEqual([...goingOn.map(() => [batchId]), []]);
    expect(await db.prisma.run.count({ where: { batchId, status: 'FINISHED' } })).toBe(answered.length);
    const batch = await expectStatsMatchRuns(db, batchId);
    expect(batch.status).toBe('IN_PROGRESS');
  });
});
