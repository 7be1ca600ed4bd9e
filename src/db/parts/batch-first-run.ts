import { Prisma } from '../../generated/prisma/client.ts';
import { quoteIdentifier } from './identifiers.ts';

/**
 * The condition (AND-ed) keeping the runs `runs` (an alias of "Run") to ids
 * at or above the first run id the batch row `batch` (an alias of "Batch")
 * records: a batch's runs are all written by the INSERT that creates it
 * (insert-batch-runs.ts), which records the lowest. The id is "Run"'s
 * partition key, so PostgreSQL skips the months before the batch's as the
 * statement runs (docs/scaling.md#reading-a-batchs-months). A batch with no
 * id recorded (rows written by hand) is bounded by the empty string, below
 * every id.
 * Only the lower bound: with an upper one too, the planner, which does not
 * know the two values when it plans, estimates the pair as 0.5% of the
 * batch's runs (its default for a range) and sorts each batch's runs whole
 * instead of walking its (batch, order) index to the page's LIMIT (a
 * dashboard 5 times slower on the bench's data). One bound is estimated as a
 * third of them, which does the same where a third falls below a first
 * page's LIMIT: it bounds deep pages only (child-pages.ts's `pruning`).
 */
export function runsOfBatchBound(runs: string, batch: string): Prisma.Sql {
  return Prisma.raw(`AND ${quoteIdentifier(runs)}.id >= coalesce(${quoteIdentifier(batch)}."firstRunId", '')`);
}
