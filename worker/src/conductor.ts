// The call's script (src/mapping/script.ts) played on a session: the opening,
// the duration warning and close, the hang-up after a silence, the voice mail
// message, and the goodbye before every hang-up the agent makes. LiveKit
// Agents has no option for these; the conductor times them on an injectable
// clock (tests pass time without waiting).
import type { CallScript } from './mapping/script.ts';

/** What the conductor needs of LiveKit's AgentSession. */
export interface ConductedSession {
  say(text: string): { waitForPlayout(): Promise<void> };
  generateReply(options?: { instructions?: string }): { waitForPlayout(): Promise<void> };
}

export interface Timers {
  set(callback: () => void, ms: number): unknown;
  clear(timer: unknown): void;
}

export const realTimers: Timers = {
  set: (callback, ms) => setTimeout(callback, ms),
  clear: (timer) => clearTimeout(timer as NodeJS.Timeout),
};

/** Why the agent hangs up. */
export type EndReason = 'max_duration' | 'silence' | 'voicemail' | 'agent' | 'transferred';

export class CallConductor {
  private readonly timers = new Set<unknown>();
  private greeted = false;
  private ending: Promise<void> | null = null;
  /** Whether the agent hung up (its goodbye, a silence, the duration, a voice mail), not the callee. */
  get agentHungUp(): boolean {
    return this.ending !== null;
  }

  constructor(
    private readonly script: CallScript,
    private readonly session: ConductedSession,
    /** Ends the call (deletes its room); called once. */
    private readonly hangUp: (reason: EndReason) => Promise<void>,
    private readonly clock: Timers = realTimers,
  ) {}

  /** The call is answered: opens it, and starts its duration. */
  start() {
    const { script } = this;
    if (script.agentSpeaksFirst) this.after(script.pauseBeforeGreetingMs, () => this.greet());
    else if (script.waitForCallerMs !== null) this.after(script.waitForCallerMs, () => this.greet());
    if (script.warning) {
      const { message } = script.warning;
      this.after(script.warning.atMs, () => void this.session.say(message));
    }
    if (script.closeAtMs !== null)
      this.after(script.closeAtMs, () => void this.end('max_duration', script.closeMessage));
  }

  /** The callee spoke: the agent no longer opens on its own. */
  callerSpoke() {
    this.greeted = true;
  }

  /** The callee stayed silent for room_duration_config.max_silence_sec. */
  callerSilent(): Promise<void> {
    return this.end('silence', this.script.silenceMessage);
  }

  /** A voice mail answered: the agent leaves its message, if it has one, and hangs up. */
  voicemail(): Promise<void> {
    return this.end('voicemail', this.script.voicemailMessage, false);
  }

  /** The model decided the conversation is over (its end_call tool). */
  agentEnds(): Promise<void> {
    return this.end('agent', null);
  }

  /** The callee was handed to a person (its transfer_call tool): the agent leaves without a word. */
  handedOver(): Promise<void> {
    return this.end('transferred', null, false);
  }

  /** Stops the timers (the call ended, whoever hung up). */
  stop() {
    for (const timer of this.timers) this.clock.clear(timer);
    this.timers.clear();
  }

  private greet() {
    if (this.greeted) return;
    this.greeted = true;
    const { greeting, greetingIsGenerated } = this.script;
    if (greeting && !greetingIsGenerated) this.session.say(greeting);
    else this.session.generateReply(greeting ? { instructions: greeting } : {});
  }

  /** Says `message` then the goodbye (unless a voice mail answered), then hangs up; once. */
  private end(reason: EndReason, message: string | null, sayGoodbye = true): Promise<void> {
    this.ending ??= (async () => {
      this.stop();
      const words = [message, sayGoodbye ? this.script.goodbye : null].filter((text): text is string => Boolean(text));
      for (const text of words) await this.session.say(text).waitForPlayout();
      await this.hangUp(reason);
    })();
    return this.ending;
  }

  private after(ms: number, callback: () => void) {
    const timer = this.clock.set(() => {
      this.timers.delete(timer);
      callback();
    }, ms);
    this.timers.add(timer);
  }
}
