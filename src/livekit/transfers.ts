// A call in flight handed to a person (POST …/transfer): LiveKit's SIP
// transfer (TransferSIPParticipant, a SIP REFER to the callee's leg), which
// answers once the other party took the call or it failed.
import type { SipClient } from 'livekit-server-sdk';
import type { CallTransferer } from '../domain/call-transfers.ts';

/** How long the other party may ring before the transfer fails. */
const TRANSFER_RINGING_SECONDS = 30;

export const liveKitTransferer = (sip: SipClient): CallTransferer => ({
  transfer: (call, to) =>
    sip.transferSipParticipant(call.roomName, call.participantIdentity, to, {
      ringingTimeout: TRANSFER_RINGING_SECONDS,
    }),
});
