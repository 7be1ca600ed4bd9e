// Handing a call to a person (POST /runs/{run_id}/attempts/{attempt}/transfer,
// GraphQL `transferCall`): the callee is moved to a number or SIP address
// while the call is in flight (a cold transfer: the agent leaves), through
// LiveKit's SIP transfer with DIALER=livekit, simulated otherwise; who took
// the call is kept on the attempt's record, as is a transfer that failed.
import { z } from 'zod';
import { callRecordTarget } from '../db/sql/call-record-target.ts';
import { writeCallTransfer } from '../db/sql/write-call-transfer.ts';
import type { CallRecord } from '../generated/prisma/client.ts';
import { badGateway, conflict, notFound } from './errors.ts';
import type { Scope } from './scope.ts';
import { e164 } from './telephony.ts';

const sipUri = z
  .string()
  .max(256)
  .regex(/^sips?:[^\s@]+@[A-Za-z0-9.-]+(:[0-9]{1,5})?(;[^\s]*)?$/, { message: 'must be a sip: URI (sip:user@host)' });

export const callTransferRequest = z
  .strictObject({
    to: z.union([e164, sipUri]).meta({ description: 'who takes the call: an E.164 number or a sip: URI' }),
    mode: z.enum(['cold']).default('cold').meta({ description: '`cold`: the callee is handed over, the agent leaves' }),
  })
  .meta({ id: 'CallTransferRequest', description: 'Where to hand the call.' });
type CallTransferRequest = z.output<typeof callTransferRequest>;

/** What moves a call in flight to another party (LiveKit's SIP transfer); none: simulated. */
export interface CallTransferer {
  /** Resolves when the call was handed over; rejects with the service's reason. */
  transfer(call: { roomName: string; participantIdentity: string }, to: string): Promise<void>;
}

/** The participant an outbound call's callee is in its room (src/livekit/livekit-dialer.ts names it so). */
export const calleeIdentity = (prospectId: string) => `prospect-${prospectId}`;

/**
 * Transfers the callee of attempt `attemptNumber` of the caller's run; answers
 * its record with the transfer. NOT_FOUND for another organization's run,
 * CONFLICT when the attempt is not in a call, BAD_GATEWAY when LiveKit refused
 * (recorded as a failed transfer).
 */
export async function transferCall(
  scope: Scope,
  transferer: CallTransferer | null,
  runId: string,
  attemptNumber: number,
  request: CallTransferRequest,
): Promise<CallRecord> {
  const organizationId = scope.viewer.organizationId;
  const target = await scope.prisma.$transaction((tx) => callRecordTarget(tx, organizationId, runId, attemptNumber));
  if (!target) throw notFound('call attempt');
  if (target.endedAt !== null || (transferer && !target.roomName))
    throw conflict(`attempt ${attemptNumber} of run ${runId} is not in a call: only a call in flight is transferred`);
  // Asked outside a transaction: the transfer waits for the other party to answer.
  let reason: string | null = null;
  if (transferer) {
    const to = request.to.startsWith('+') ? `tel:${request.to}` : request.to;
    await transferer
      .transfer({ roomName: target.roomName!, participantIdentity: calleeIdentity(target.prospectId) }, to)
      .catch((error: Error) => {
        reason = error.message || 'the transfer failed';
      });
  }
  const now = new Date();
  const transfer = {
    to: request.to,
    mode: request.mode,
    at: now.toISOString(),
    status: reason ? 'failed' : 'transferred',
    reason,
  };
  await writeCallTransfer(
    scope.prisma,
    {
      organizationId,
      attemptId: target.attemptId,
      runId,
      attemptNumber,
      batchId: target.batchId,
      agentId: target.agentId,
      transfer,
    },
    now,
  );
  if (reason) throw badGateway(`LiveKit did not transfer the call: ${reason}`, { transfer });
  return (await scope.prisma.callRecord.findFirst({ where: { attemptId: target.attemptId } }))!;
}
