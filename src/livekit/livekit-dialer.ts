// The LiveKit dialer (DIALER=livekit): one call attempt is a LiveKit room
// named after the run and the attempt, the agent worker dispatched to it with
// the call's metadata, and a SIP participant dialled into it through the
// organization's outbound trunk, waiting until it is answered. A call that is
// not answered ends with the SIP status LiveKit reports; an answered one
// ends when LiveKit reports the room finished or the callee gone (webhook,
// src/http/livekit-webhook.ts), with the outcome the agent may have
// reported (voicemail). An answered call whose end never arrives is `failed`
// / `lost` once its maximum duration and a margin have passed, so no run
// waits forever.
//
// LiveKit is never asked twice for the same call: the SDK's region failover
// (which replays a request to another region) is off, and a request whose
// answer is unknown (a timeout) hangs up whatever it may have started.

import type { AgentDispatchClient, RoomServiceClient, SipClient } from 'livekit-server-sdk';
import type { Clock } from '../clock.ts';
import { calleeIdentity } from '../domain/call-transfers.ts';
import type { CallRequest, CallResult, Dialer } from '../engine/dialer.ts';
import type { CallOutcomeName } from '../records/campaign-settings.ts';
import type { LiveKitCalls } from './calls.ts';

export interface LiveKitDialerOptions {
  rooms: RoomServiceClient;
  dispatches: AgentDispatchClient;
  sip: SipClient;
  calls: LiveKitCalls;
  clock: Clock;
  /** The agent worker's registered name. */
  agentName: string;
  ringingTimeoutSeconds: number;
}

/** A call lasts at most this long when its agent sets no room_duration_config.max_duration_min. */
const DEFAULT_MAX_CALL_MINUTES = 60;
/** How long after a call's maximum duration its end may still be reported (LiveKit retries webhooks). */
export const CALL_END_MARGIN_SECONDS = 120;
/** A room nobody joined closes after the ringing and this much more (LiveKit's emptyTimeout). */
const EMPTY_ROOM_SECONDS = 60;
/** How long after the ringing timeout LiveKit's answer to the dial may take. */
const DIAL_ANSWER_MARGIN_SECONDS = 15;
/** A room closes this long after its last participant left (LiveKit's departureTimeout). */
const DEPARTURE_SECONDS = 5;

/** The room of attempt `attempt` of a run: unique, and readable in LiveKit's console. */
const roomNameOf = (runId: string, attempt: number) => `${runId}-attempt-${attempt}`;

/** What a SIP status says of an unanswered call. */
function outcomeOfSipStatus(code: number): CallOutcomeName {
  if (code === 486 || code === 600) return 'busy';
  if (code === 408 || code === 480 || code === 487) return 'no_answer';
  return 'failed';
}

/** The metadata the agent worker receives with its dispatch (`ctx.job.metadata`, JSON). */
function dispatchMetadata(request: CallRequest) {
  const { prospect } = request;
  return {
    organization_id: request.organizationId,
    agent_id: request.agentId,
    run_id: request.runId,
    batch_id: request.batchId,
    attempt: request.attempt,
    prospect: {
      id: prospect.id,
      first_name: prospect.firstName,
      last_name: prospect.lastName,
      email: prospect.email,
      phone: prospect.phone,
    },
    dynamic_variables: request.dynamicVariables ?? {},
  };
}

const failed = (reason: string): CallResult => ({ outcome: 'failed', durationSeconds: 0, reason });

const messageOf = (error: unknown) => (error as Error)?.message ?? String(error);

/** Resolves with `work`, or rejects as soon as `signal` aborts (the work goes on, unheard). */
function unlessAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  signal.throwIfAborted();
  return new Promise((resolve, reject) => {
    const abort = () => reject(signal.reason);
    signal.addEventListener('abort', abort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', abort));
  });
}

export function liveKitDialer(options: LiveKitDialerOptions): Dialer {
  const { rooms, dispatches, sip, calls, clock } = options;
  // Ends the call, whatever state it is in (the room goes, and every participant with it).
  const hangUp = (roomName: string) => rooms.deleteRoom(roomName).catch(() => {});

  async function answered(roomName: string, maxSeconds: number, signal: AbortSignal): Promise<CallResult> {
    const deadline = new Date(clock.now().getTime() + (maxSeconds + CALL_END_MARGIN_SECONDS) * 1000);
    const settled = new AbortController();
    const both = AbortSignal.any([signal, settled.signal]);
    try {
      const end = await Promise.race([calls.ended(roomName, both), clock.sleepUntil(deadline, both).then(() => null)]);
      if (!end) {
        await hangUp(roomName);
        return failed('lost');
      }
      return { outcome: end.reportedOutcome ?? 'answered', durationSeconds: end.durationSeconds, reason: null };
    } finally {
      settled.abort();
    }
  }

  return {
    async dial(request, signal) {
      const settings = await calls.settingsFor(
        request.organizationId,
        request.agentId,
        request.trunkId,
        request.fromNumber,
      );
      if (!settings.livekitTrunkId) return failed(`livekit: ${settings.noTrunkReason}`);
      const maxSeconds = (settings.maxDurationMinutes ?? DEFAULT_MAX_CALL_MINUTES) * 60;
      const roomName = roomNameOf(request.runId, request.attempt);
      await calls.setRoom(request.runId, request.attempt, roomName);
      try {
        await unlessAborted(
          rooms.createRoom({
            name: roomName,
            emptyTimeout: options.ringingTimeoutSeconds + EMPTY_ROOM_SECONDS,
            departureTimeout: DEPARTURE_SECONDS,
          }),
          signal,
        );
        await unlessAborted(
          dispatches.createDispatch(roomName, options.agentName, {
            metadata: JSON.stringify(dispatchMetadata(request)),
          }),
          signal,
        );
        await unlessAborted(
          sip.createSipParticipant(settings.livekitTrunkId, request.toNumber, roomName, {
            fromNumber: request.fromNumber ?? undefined,
            participantIdentity: calleeIdentity(request.prospect.id),
            participantName: `${request.prospect.firstName} ${request.prospect.lastName}`.trim() || request.toNumber,
            waitUntilAnswered: true,
            ringingTimeout: options.ringingTimeoutSeconds,
            // LiveKit answers when the ringing ends; past this it is the network: hung up below.
            timeout: options.ringingTimeoutSeconds + DIAL_ANSWER_MARGIN_SECONDS,
            maxCallDuration: maxSeconds,
          }),
          signal,
        );
      } catch (error) {
        await hangUp(roomName);
        signal.throwIfAborted();
        const { sipStatusCode, sipStatus } = error as { sipStatusCode?: number; sipStatus?: string };
        if (sipStatusCode) {
          return {
            outcome: outcomeOfSipStatus(sipStatusCode),
            durationSeconds: 0,
            reason: `SIP ${sipStatusCode}${sipStatus ? ` ${sipStatus}` : ''}`,
          };
        }
        return failed(`livekit: ${messageOf(error)}`);
      }
      try {
        return await answered(roomName, maxSeconds, signal);
      } catch (error) {
        // Hung up because this instance stops (after ENGINE_DRAIN_MS): the engine records the attempt interrupted.
        await hangUp(roomName);
        throw error;
      }
    },
  };
}
