// greeting_config, goodbye_config and room_duration_config → what the call's
// conductor (src/conductor.ts) says and when: LiveKit Agents has no option for
// an opening, a closing or a call's length, so the worker times them itself;
// `max_silence_sec` is the session's `userAwayTimeout` (src/mapping/index.ts).
import { fillPlaceholders, type PlaceholderValues } from '../../../src/domain/placeholders.ts';
import type { GoodbyeConfig, GreetingConfig, RoomDurationConfig } from '../agent.ts';

export interface CallScript {
  /** Whether the agent speaks as the call is answered; otherwise it waits for the callee. */
  agentSpeaksFirst: boolean;
  /** What it says first; with `greetingIsGenerated`, what the model is asked to open with (null: a plain greeting). */
  greeting: string | null;
  greetingIsGenerated: boolean;
  /** Milliseconds between the answer and the first words. */
  pauseBeforeGreetingMs: number;
  /** When the agent waits for the callee: how long before it opens itself (null: it waits for them). */
  waitForCallerMs: number | null;
  /** What it leaves on a voice mail (null: it hangs up). */
  voicemailMessage: string | null;
  /** What it says as it hangs up (null: nothing). */
  goodbye: string | null;
  /** The call's end, from its answer (null: no limit of the agent's; LiveKit's maximum still holds). */
  closeAtMs: number | null;
  closeMessage: string | null;
  warning: { atMs: number; message: string } | null;
  /** What it says when the callee stays silent for `max_silence_sec` (then it hangs up). */
  silenceMessage: string | null;
}

/**
 * The gateway sets the call's maximum duration on LiveKit's SIP participant
 * (max_duration_min): the agent closes this long before, so its closing
 * message is heard.
 */
export const CLOSE_AHEAD_MS = 10_000;
/** The duration warning comes this long before the close (half the call, for calls shorter than twice this). */
const WARNING_AHEAD_MS = 60_000;

export function callScript(
  greeting: GreetingConfig | null,
  goodbye: GoodbyeConfig | null,
  duration: RoomDurationConfig | null,
  values: PlaceholderValues,
): CallScript {
  const fill = (text: string | undefined) => (text ? fillPlaceholders(text, values) : null);
  const greetingText = fill(greeting?.greeting);
  const maxMs = duration?.max_duration_min !== undefined ? duration.max_duration_min * 60_000 : null;
  const closeAtMs = maxMs === null ? null : Math.max(maxMs - CLOSE_AHEAD_MS, maxMs / 2);
  const warningText = fill(duration?.duration_warning_message);
  return {
    agentSpeaksFirst: greeting?.agent_speaks_first ?? greetingText !== null,
    greeting: greetingText,
    greetingIsGenerated: greeting?.welcome_message_is_generated ?? false,
    pauseBeforeGreetingMs: greeting?.pause_before_first_message ?? 0,
    waitForCallerMs: duration?.wait_for_message_sec !== undefined ? duration.wait_for_message_sec * 1000 : null,
    voicemailMessage: fill(greeting?.voice_mail_message),
    goodbye: goodbye?.enabled === false ? null : fill(goodbye?.message),
    closeAtMs,
    closeMessage: fill(duration?.close_room_message),
    warning:
      closeAtMs !== null && warningText
        ? { atMs: Math.max(closeAtMs - WARNING_AHEAD_MS, closeAtMs / 2), message: warningText }
        : null,
    silenceMessage: fill(duration?.silence_message),
  };
}
