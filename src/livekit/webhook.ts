// LiveKit's webhooks that end a call: `room_finished` for the call's room, or
// `participant_left` for its SIP participant (the callee hung up), whichever
// comes first. The duration is LiveKit's own: the room's lifetime
// (room_finished) or the callee's time in it (participant_left), both read
// from LiveKit's clock, from creation or joining (the ringing included) to the event.
import { ParticipantInfo_Kind } from '@livekit/protocol';
import type { WebhookEvent } from 'livekit-server-sdk';

export interface ReportedEnd {
  roomName: string;
  endedAt: Date;
  durationSeconds: number;
}

const millis = (ms: bigint, seconds: bigint) => Number(ms || seconds * 1000n);

/** The end of a call a webhook reports; null for the events that end none. */
export function reportedEnd(event: WebhookEvent): ReportedEnd | null {
  const roomName = event.room?.name;
  if (!roomName) return null;
  let startedMs: number;
  if (event.event === 'room_finished') startedMs = millis(event.room!.creationTimeMs, event.room!.creationTime);
  else if (event.event === 'participant_left' && event.participant?.kind === ParticipantInfo_Kind.SIP) {
    startedMs = millis(event.participant.joinedAtMs, event.participant.joinedAt);
  } else return null;
  const endedMs = event.createdAt ? Number(event.createdAt) * 1000 : Date.now();
  // A start LiveKit did not give (0) measures nothing.
  const durationSeconds = startedMs ? Math.max(0, (endedMs - startedMs) / 1000) : 0;
  return { roomName, endedAt: new Date(endedMs), durationSeconds };
}
