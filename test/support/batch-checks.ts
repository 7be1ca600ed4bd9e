// What every engine test checks of a batch: its counters equal its runs by
// status, and waiting (by polling the database) for it to reach a status.
// The reads ride out transient errors as the gateway's own do: some tests
// terminate the database's connections under them.
import { expect } from 'vitest';
import type { Database } from '../../src/db/database.ts';
import { retryTransient } from '../../src/db/transient.ts';
import { eventually } from './flows.ts';

const statuses = ['PENDING', 'IN_PROGRESS', 'PAUSED', 'FINISHED', 'CANCELLED', 'FAILED'] as const;

/** Batch counters must equal the counts of the batch's runs by status, always. */
export async function expectStatsMatchRuns(db: Database, batchId: string) {
  const [batch, groups] = await retryTransient(() =>
    Promise.all([
      db.prisma.batch.findFirstOrThrow({ where: { id: batchId } }),
      db.prisma.run.groupBy({ by: ['status'], where: { batchId }, _count: { _all: true } }),
    ]),
  );
  const count = (status: string) => groups.find((group) => group.status === status)?._count._all ?? 0;
  const counters = [
    batch.pendingCount,
    batch.inProgressCount,
    batch.pausedCount,
    batch.finishedCount,
    batch.cancelledCount,
    batch.failedCount,
  ];
  expect(Object.fromEntries(statuses.map((status, index) => [status, counters[index]]))).toEqual(
    Object.fromEntries(statuses.map((status) => [status, count(status)])),
  );
  return batch;
}

/** The batch once its status is one of `wanted`. */
export const batchIn = (db: Database, batchId: string, wanted: string[], timeoutMs = 60_000) =>
  eventually(
    async () => {
      const batch = await retryTransient(() => db.prisma.batch.findFirstOrThrow({ where: { id: batchId } }));
      return wanted.includes(batch.status) ? batch : undefined;
    },
    timeoutMs,
    `batch ${batchId} in ${wanted.join('/')}`,
  );
