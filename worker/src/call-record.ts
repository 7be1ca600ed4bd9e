// The call's record as the worker reports it (POST …/attempts/{attempt}/record):
// each finished turn of the conversation, sent a few at a time; what answered
// (the AMD verdict) as soon as it is settled; and at the end the last turns and
// who hung up. Each part has a name of its own, so its Idempotency-Key is the
// same when it is sent again (a retry, a worker restarted mid-call) and the
// gateway's merge makes the repeat harmless.
import type { CallRecordReport } from '../../src/domain/call-records.ts';
import type { CallReports } from './reports.ts';

/** Turns sent together: a part every few turns, so a call cut short loses few. */
const TURNS_PER_PART = 4;

/** LiveKit Agents' AMD categories (voice/amd.ts), as a call record's detection results. */
const DETECTED: Record<string, NonNullable<CallRecordReport['detection']>['result'] | undefined> = {
  human: 'human',
  'machine-vm': 'voicemail',
  'machine-ivr': 'ivr',
  'machine-unavailable': 'unavailable',
};

/** LiveKit Agents' chat roles, as a transcript's. */
const ROLES: Record<string, 'agent' | 'callee' | 'system' | undefined> = {
  assistant: 'agent',
  user: 'callee',
  system: 'system',
};

type Turn = NonNullable<CallRecordReport['transcript']>[number];

export class CallRecorder {
  private readonly pending: Turn[] = [];
  private sent = 0;

  /** `startedAt`: the call's start (ms since 1970), which turns' times count from. */
  constructor(
    private readonly reports: CallReports,
    private readonly startedAt: number,
  ) {}

  /** A finished turn (LiveKit's conversation item): its role, text and when it was said. */
  async turn(role: string, text: string | undefined, saidAt: number): Promise<void> {
    const speaker = ROLES[role];
    if (!speaker || !text) return;
    const at = Math.max(0, Math.round(saidAt - this.startedAt));
    this.pending.push({ role: speaker, text, started_ms: at, ended_ms: at });
    if (this.pending.length >= TURNS_PER_PART) await this.flush();
  }

  /** The AMD verdict, when it names what answered (`uncertain` says nothing). */
  async detected(category: string, settledAt: number): Promise<void> {
    const result = DETECTED[category];
    if (!result) return;
    // AMD gives a verdict, not a probability: a settled one is reported as certain.
    const detection = { result, confidence: 1, detected_ms: Math.max(0, Math.round(settledAt - this.startedAt)) };
    await this.reports.record({ detection }, 'detection');
  }

  /** The call is over: the turns not sent yet, and who hung up. */
  async ended(endedBy: 'agent' | 'callee' | 'system'): Promise<void> {
    await this.flush();
    await this.reports.record({ ended_by: endedBy }, 'ended');
  }

  private async flush() {
    if (this.pending.length === 0) return;
    const transcript = this.pending.splice(0);
    const first = this.sent;
    this.sent += transcript.length;
    await this.reports.record({ transcript }, `turns-${first}`);
  }
}
