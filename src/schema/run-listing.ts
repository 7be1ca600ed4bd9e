// Which runs a list of runs holds (the runs listing's): under a workflow or a batch,
// filtered and sorted, and how they are counted. GraphQL's run connections
// (run.ts) page through them as rows; REST's runs listing (GET /workflows/{workflow_id}/runs) has the page written as its
// answer's JSON text (src/db/sql/runs-listing-page.ts, wire-runs-page.ts).
import { counterColumn, type ListedBatch, type RunCounters } from '../db/parts/counter-columns.ts';
import type { SqlPart } from '../db/parts/sql-part.ts';
import { type RunFilter, type RunSort, type RunStatusName, runFilterSql, runOrderSql } from '../domain/runs.ts';
import type { Loaders } from './loaders.ts';

/** Where runs are listed from: a workflow, or one batch (its row, with its counters). */
export type RunsParent = { workflowId: string } | { batch: ListedBatch };

export interface RunListing {
  list: 'runsOfBatch' | 'runsOfWorkflow';
  /** The runs' column naming the parent listed (the list's). */
  parent: 'batchId' | 'workflowId';
  parentId: string;
  where: SqlPart;
  orderBy: SqlPart;
  /** How many runs the list holds in all. */
  count(): Promise<number>;
}

/** How many runs have `status` (or any status), from counters kept in the same transactions as the runs. */
const counted = (counters: RunCounters, status?: RunStatusName) =>
  status
    ? counters[counterColumn[status]]
    : Object.values(counterColumn).reduce((sum, name) => sum + counters[name], 0);

/**
 * The batch whose runs are listed: the parent batch, or the batch the filter
 * names when it is one of the parent workflow's (its runs share the workflow
 * and the organization); null to list the workflow's runs; undefined when the
 * filter names a batch that holds none of these runs.
 */
async function listedBatch(
  parent: RunsParent,
  batchId: string | undefined,
  loaders: Loaders,
): Promise<ListedBatch | null | undefined> {
  if ('batch' in parent) return !batchId || batchId === parent.batch.id ? parent.batch : undefined;
  if (!batchId) return null;
  const named = await loaders.batch.load(batchId);
  return named?.workflowId === parent.workflowId ? named : undefined;
}

/**
 * The runs under a workflow or a batch that `filter` keeps, in `sort`'s
 * order; undefined when it keeps none for certain (a batch of another
 * workflow). A filter naming a batch of the workflow is served from the
 * batch's own index, and a total by status or batch alone is read from the
 * batch counters instead of counting rows.
 */
export async function runListing(
  parent: RunsParent,
  filter: RunFilter,
  sort: RunSort | undefined,
  loaders: Loaders,
): Promise<RunListing | undefined> {
  const batch = await listedBatch(parent, filter.batch_id, loaders);
  if (batch === undefined) return undefined;
  const where = runFilterSql(filter);
  const list = batch ? 'runsOfBatch' : 'runsOfWorkflow';
  const parentId = batch ? batch.id : (parent as { workflowId: string }).workflowId;
  const byCounters = Object.entries(filter).every(
    ([name, value]) => value === undefined || name === 'status' || name === 'batch_id',
  );
  const count = !byCounters
    ? () => loaders.counts.load({ list, parentId, where })
    : batch
      ? async () => counted(batch, filter.status)
      : async () => counted(await loaders.runCountersOfWorkflow.load(parentId), filter.status);
  return {
    list,
    parent: batch ? 'batchId' : 'workflowId',
    parentId,
    where,
    orderBy: runOrderSql(sort),
    count,
  };
}
