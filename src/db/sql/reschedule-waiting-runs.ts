import { RunStatus } from '../../generated/prisma/enums.ts';
import { enumValues } from '../parts/identifiers.ts';
import type { SqlClient } from '../tx.ts';

const WAITING = enumValues(RunStatus.PENDING, RunStatus.PAUSED);

/**
 * Makes the batch's waiting runs put off to later due as a retry delay of
 * `delaySeconds` after their last attempt says (at once when that passed).
 * Index: the batch's runs on "Run_batchId_status_startedAt_id_idx" (batchId,
 * status, …); their last attempt on "RunAttempt_runId_number_organizationId_key".
 */
export function rescheduleWaitingRuns(tx: SqlClient, organizationId: string, batchId: string, delaySeconds: number) {
  return tx.$executeRaw`
    UPDATE "Run" r SET "nextAttemptAt" = GREATEST(now(),
      coalesce((SELECT max(a."endedAt") FROM "RunAttempt" a WHERE a."runId" = r.id AND a."organizationId" = r."organizationId") + ${delaySeconds} * interval '1 second', now()))
    WHERE r."batchId" = ${batchId} AND r."organizationId" = ${organizationId} AND r.status IN (${WAITING}) AND r."nextAttemptAt" > now()`;
}
