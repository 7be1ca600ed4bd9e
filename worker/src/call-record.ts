// The call's record as the worker reports it (POST …/attempts/{attempt}/record):
// each finished turn of the conversation, sent a few at a time; what answered
// (the AMD verdict) as soon as it is settled; the callee's call-back request;
// at the end the last turns and who hung up; after it the post-call analysis.
// Each part has a name of its own, so its Idempotency-Key is the same when it
// is sent again (a retry, a worker restarted mid-call) and the gateway's merge
// makes the repeat harmless. Everything goes through the call's journal
// (src/journal.ts) before it is sent: a restarted worker resumes from it.
import type { CallRecordReport } from '../../src/domain/call-records.ts';
import { GatewayRequestError } from './gateway.ts';
import type { CallJournal, CallState, PendingPart, Turn } from './journal.ts';
import type { CallReports } from './reports.ts';

/** Turns sent together: a part every few turns (the journal keeps the others). */
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

export class CallRecorder {
  /** Journal writes, one after the other. */
  private saving: Promise<void> = Promise.resolve();

  private constructor(
    private readonly reports: CallReports,
    private readonly journal: CallJournal,
    private readonly state: CallState,
  ) {}

  /**
   * The call's recorder: a new one from `startedAt` (the call's start, ms since
   * 1970), or the journal's, whose unacknowledged parts are sent again first
   * (`failed` is told of each that still does not go).
   */
  static async open(
    reports: CallReports,
    journal: CallJournal,
    startedAt: number,
    failed: (part: string, error: unknown) => void,
  ): Promise<CallRecorder> {
    const resumed = await journal.load();
    const recorder = new CallRecorder(reports, journal, resumed ?? { startedAt, turns: [], reported: 0, unsent: [] });
    if (!resumed) await recorder.save();
    for (const pending of [...recorder.state.unsent])
      await recorder.send(pending).catch((error) => failed(pending.name, error));
    return recorder;
  }

  /** Every turn of the call so far, a restarted worker's predecessor's included. */
  get transcript(): Turn[] {
    return [...this.state.turns];
  }

  /** The call's start, which turns' times count from. */
  get startedAt(): number {
    return this.state.startedAt;
  }

  /** A finished turn (LiveKit's conversation item): its role, text and when it was said. */
  async turn(role: string, text: string | undefined, saidAt: number): Promise<void> {
    const speaker = ROLES[role];
    if (!speaker || !text) return;
    const at = this.msOf(saidAt);
    this.state.turns.push({ role: speaker, text, started_ms: at, ended_ms: at });
    if (this.state.turns.length - this.state.reported >= TURNS_PER_PART) await this.flush();
    else await this.save();
  }

  /** The AMD verdict, when it names what answered (`uncertain` says nothing). */
  async detected(category: string, settledAt: number): Promise<void> {
    const result = DETECTED[category];
    if (!result) return;
    // AMD gives a verdict, not a probability: a settled one is reported as certain.
    await this.report('detection', { detection: { result, confidence: 1, detected_ms: this.msOf(settledAt) } });
  }

  /** The callee asked to be called back at `at` (RFC 3339); throws the gateway's refusal. */
  async callbackRequested(at: string): Promise<void> {
    await this.report(`callback-${at}`, { callback_at: at });
  }

  /** The call is over: the turns not sent yet, and who hung up. */
  async ended(endedBy: 'agent' | 'callee' | 'system'): Promise<void> {
    await this.flush();
    await this.report('ended', { ended_by: endedBy });
  }

  /** The post-call analysis (src/analysis.ts). */
  async analysed(part: CallRecordReport): Promise<void> {
    await this.report('analysis', part);
  }

  /** The call is reported: the journal goes, unless a part is still unacknowledged (a restart sends it). */
  async finish(): Promise<void> {
    await this.saving;
    if (this.state.unsent.length === 0) await this.journal.clear();
  }

  private msOf(at: number) {
    return Math.max(0, Math.round(at - this.state.startedAt));
  }

  private async flush() {
    const { state } = this;
    if (state.turns.length === state.reported) {
      await this.save();
      return;
    }
    const first = state.reported;
    const transcript = state.turns.slice(first);
    state.reported = state.turns.length;
    await this.report(`turns-${first}`, { transcript });
  }

  /** Journals the part, then sends it. */
  private async report(name: string, part: CallRecordReport) {
    const pending = { name, part };
    this.state.unsent.push(pending);
    await this.save();
    await this.send(pending);
  }

  /**
   * Sends a journaled part; acknowledged, or refused for good (a 4xx: sending
   * it again cannot help), it leaves the journal. Throws the gateway's error.
   */
  private async send(pending: PendingPart) {
    try {
      await this.reports.record(pending.part, pending.name);
    } catch (error) {
      if (error instanceof GatewayRequestError && error.status !== null) await this.forget(pending);
      throw error;
    }
    await this.forget(pending);
  }

  private async forget(pending: PendingPart) {
    const index = this.state.unsent.indexOf(pending);
    if (index >= 0) this.state.unsent.splice(index, 1);
    await this.save();
  }

  private save(): Promise<void> {
    const snapshot = structuredClone(this.state);
    this.saving = this.saving.catch(() => {}).then(() => this.journal.save(snapshot));
    return this.saving;
  }
}
