import { lockedCallRecordTarget } from '../parts/call-record-target.ts';
import type { SqlClient } from '../tx.ts';

/** The attempt a call record is reported for, held until the report's transaction ends. */
export interface CallRecordTarget {
  attemptId: string;
  runId: string;
  batchId: string;
  endedAt: Date | null;
  outcome: string | null;
  stepId: string;
  /** The call step's agent in the run's workflow version (empty when the step names none). */
  agentId: string;
  /** The prospect called: its participant's identity in the call's room. */
  prospectId: string;
  roomName: string | null;
  redactPii: boolean;
  transcriptLanguage: string;
}

/**
 * Locks attempt `number` of the organization's run `runId` and reads what a
 * report (or a transfer) needs. None: not the organization's.
 * Index: see lockedCallRecordTarget.
 */
export async function callRecordTarget(
  tx: SqlClient,
  organizationId: string,
  runId: string,
  number: number,
): Promise<CallRecordTarget | undefined> {
  const [target] = await tx.$queryRaw<CallRecordTarget[]>`${lockedCallRecordTarget(organizationId, runId, number)}`;
  return target;
}
