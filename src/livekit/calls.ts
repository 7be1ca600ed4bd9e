// What the gateway keeps of LiveKit calls, in the attempts' rows (RunAttempt):
// the room of each call (written before the room is made, so a webhook about
// it finds the attempt on any instance), the end LiveKit reported
// (`callEndedAt`, `reportedDurationSeconds`: the webhook route, on whichever
// instance LiveKit reached), and the outcome the agent reported
// (`reportedOutcome`: the outcome route).
//
// The instance that placed a call learns of its end from the row: one
// statement per second reads the ends of all the calls it waits for, and a
// webhook received by this same instance wakes it at once. The row, not an
// announcement, is what counts: a message through Redis could be lost (Redis
// away, an instance restarting) and would need this reading anyway, while a
// second of delay on the end of a call changes nothing.
import { retryTransient } from '../db/transient.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import type { CallOutcomeName } from '../records/campaign-settings.ts';

/** How a call ended, as LiveKit (and the agent) reported it. */
export interface CallEnd {
  /** What the agent reported (voicemail…); null: nothing, the call was answered. */
  reportedOutcome: CallOutcomeName | null;
  durationSeconds: number;
}

/** What placing a call needs to know beyond the request. */
export interface CallSettings {
  /** The agent's room_duration_config.max_duration_min; null when it sets none. */
  maxDurationMinutes: number | null;
  /** LiveKit's id of the outbound trunk to call through; null when there is none. */
  livekitTrunkId: string | null;
  /** Why there is no LiveKit trunk, when there is none. */
  noTrunkReason: string | null;
}

const POLL_MS = 1000;

export class LiveKitCalls {
  private readonly waiting = new Map<string, (end: CallEnd) => void>();
  private polling: Promise<void> | null = null;
  private again = false;
  private timer: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(private readonly prisma: PrismaClient) {}

  async settingsFor(
    organizationId: string,
    agentId: string,
    trunkId: string | null,
    fromNumber: string | null,
  ): Promise<CallSettings> {
    const agent = await retryTransient(() =>
      this.prisma.agent.findFirst({ where: { id: agentId, organizationId }, select: { roomDurationConfig: true } }),
    );
    const maxDurationMinutes =
      (agent?.roomDurationConfig as { max_duration_min?: number } | null)?.max_duration_min ?? null;
    const trunk = await this.outboundTrunk(organizationId, trunkId, fromNumber);
    if (!trunk) {
      return {
        maxDurationMinutes,
        livekitTrunkId: null,
        noTrunkReason: 'the call step names no trunk_id, and its caller id is on no outbound trunk',
      };
    }
    return {
      maxDurationMinutes,
      livekitTrunkId: trunk.livekitTrunkId,
      noTrunkReason: trunk.livekitTrunkId
        ? null
        : `trunk ${trunk.id} is not in LiveKit (it was created before DIALER=livekit)`,
    };
  }

  /** The step's trunk, else the outbound trunk of the pair holding the caller id. */
  private async outboundTrunk(organizationId: string, trunkId: string | null, fromNumber: string | null) {
    const select = { id: true, livekitTrunkId: true } as const;
    if (trunkId)
      return retryTransient(() => this.prisma.sipTrunk.findFirst({ where: { id: trunkId, organizationId }, select }));
    if (!fromNumber) return null;
    const number = await retryTransient(() =>
      this.prisma.phoneNumber.findFirst({ where: { organizationId, number: fromNumber }, select: { sipTrunk: true } }),
    );
    const holder = number?.sipTrunk;
    if (!holder || holder.direction === 'outbound') return holder ?? null;
    const { pairId } = holder;
    if (!pairId) return null;
    return retryTransient(() =>
      this.prisma.sipTrunk.findFirst({ where: { organizationId, pairId, direction: 'outbound' }, select }),
    );
  }

  /** Names the room of attempt `number` of a run, before the room exists. */
  async setRoom(runId: string, number: number, roomName: string): Promise<void> {
    await retryTransient(() => this.prisma.runAttempt.updateMany({ where: { runId, number }, data: { roomName } }));
  }

  /** Records LiveKit's report of a call's end; the first report counts. False when no call has this room. */
  async recordEnd(roomName: string, endedAt: Date, durationSeconds: number): Promise<boolean> {
    const { count } = await retryTransient(() =>
      this.prisma.runAttempt.updateMany({
        where: { roomName, callEndedAt: null },
        data: { callEndedAt: endedAt, reportedDurationSeconds: durationSeconds },
      }),
    );
    if (count > 0 && this.waiting.has(roomName)) this.pollNow();
    return count > 0;
  }

  /** Resolves when the end of the call in `roomName` is recorded; rejects when `signal` aborts. */
  ended(roomName: string, signal: AbortSignal): Promise<CallEnd> {
    signal.throwIfAborted();
    return new Promise((resolve, reject) => {
      const stop = () => {
        this.waiting.delete(roomName);
        reject(signal.reason);
      };
      signal.addEventListener('abort', stop, { once: true });
      this.waiting.set(roomName, (end) => {
        signal.removeEventListener('abort', stop);
        this.waiting.delete(roomName);
        resolve(end);
      });
      this.schedule();
    });
  }

  /** Stops reading (the process stops; nothing waits any more). */
  close() {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private schedule() {
    if (this.closed || this.timer || this.polling || this.waiting.size === 0) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.pollNow();
    }, POLL_MS);
    this.timer.unref();
  }

  private pollNow() {
    if (this.polling) {
      this.again = true;
      return;
    }
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.polling = this.poll()
      .catch(() => {}) // a database blip: the next reading tries again
      .finally(() => {
        this.polling = null;
        if (this.again) {
          this.again = false;
          this.pollNow();
        } else this.schedule();
      });
  }

  private async poll() {
    const rooms = [...this.waiting.keys()];
    if (rooms.length === 0) return;
    // "RunAttempt_roomName_idx": one statement for every call this instance waits for.
    const ended = await this.prisma.runAttempt.findMany({
      where: { roomName: { in: rooms }, callEndedAt: { not: null } },
      select: { roomName: true, reportedOutcome: true, reportedDurationSeconds: true },
    });
    for (const row of ended) {
      this.waiting.get(row.roomName!)?.({
        reportedOutcome: row.reportedOutcome,
        durationSeconds: row.reportedDurationSeconds ?? 0,
      });
    }
  }
}
