// Outbound trunk slots: the calls holding a trunk's slots, on every instance,
// stay within its max_concurrency.
import { advisoryLock } from '../db/sql/advisory-lock.ts';
import { countTrunkCalls } from '../db/sql/count-trunk-calls.ts';
import { outboundTrunk } from '../db/sql/outbound-trunk.ts';
import { takeTrunkSlot } from '../db/sql/take-trunk-slot.ts';
import type { Tx } from '../db/tx.ts';
import type { ClaimedRun } from './run-claims.ts';

/**
 * Takes a slot of the trunk for the run's call, if the trunk has one free.
 * False when the trunk is full (or the run no longer `owner`'s); null when it
 * is not the run organization's outbound trunk.
 */
export async function takeSlot(tx: Tx, owner: string, run: ClaimedRun, trunkId: string): Promise<boolean | null> {
  // One taker per trunk at a time, across instances, for the count-then-take below.
  await advisoryLock(tx, `trunk:${trunkId}`);
  const [trunk] = await outboundTrunk(tx, trunkId, run.organizationId);
  if (!trunk) return null;
  if ((await countTrunkCalls(tx, run.organizationId, trunkId)) >= trunk.maxConcurrency) return false;
  return (await takeTrunkSlot(tx, run.organizationId, run.id, trunkId, owner)) === 1;
}
