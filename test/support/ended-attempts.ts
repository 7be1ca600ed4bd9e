// A call attempt that ended, written as the run engine writes one, for tests
// of what is computed from ended calls (insights) at chosen instants: the
// runs' batches are held (scheduled far ahead) so the engine never calls them.
import type { Database } from '../../src/db/database.ts';

type Outcome = 'answered' | 'no_answer' | 'busy' | 'voicemail' | 'failed' | 'ivr' | 'call_screening';

export async function endedAttempt(
  db: Database,
  runId: string,
  outcome: Outcome,
  endedAt: string,
  { number = 1, stepId = 'dial' }: { number?: number; stepId?: string } = {},
) {
  const run = await db.prisma.run.findFirstOrThrow({ where: { id: runId } });
  const ended = new Date(endedAt);
  return db.prisma.runAttempt.create({
    data: {
      organizationId: run.organizationId,
      runId,
      batchId: run.batchId,
      number,
      stepId,
      startedAt: new Date(ended.getTime() - 60_000),
      endedAt: ended,
      outcome,
      toNumber: '+14155550100',
    },
  });
}
