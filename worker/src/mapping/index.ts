// The agent's ten configurations → one call of LiveKit Agents: the session's
// models and turn handling, the agent's instructions, the background audio and
// the call's script. Whatever no plugin takes is listed in `unhonoured`.
import type { llm, stt, tts, VAD, voice } from '@livekit/agents';
import { fillPlaceholders } from '../../../src/domain/placeholders.ts';
import type { GatewayAgent } from '../agent.ts';
import type { Providers } from '../config.ts';
import type { CallDispatch } from '../dispatch.ts';
import { placeholderValues } from '../prompt.ts';
import { buildLlm } from './llm.ts';
import { type CallScript, callScript } from './script.ts';
import { backgroundAudio } from './sounds.ts';
import { buildStt } from './stt.ts';
import { buildTts } from './tts.ts';
import { type TurnHandling, turnHandling } from './turns.ts';
import type { Unhonoured } from './unhonoured.ts';
import { loadVad } from './vad.ts';

export interface CallSetup {
  session: {
    llm: llm.LLM;
    stt: stt.STT;
    tts: tts.TTS;
    vad: VAD;
    turnHandling: TurnHandling;
    /** Seconds of silence (the callee's and the agent's) after which the callee is away: room_duration_config.max_silence_sec. */
    userAwayTimeout?: number;
  };
  /** The agent's instructions: the model's system prompt, then the agent's prompt template, placeholders filled. */
  instructions: string;
  background: voice.BackgroundAudioPlayerOptions | null;
  script: CallScript;
  unhonoured: Unhonoured;
}

/** Why a call cannot be placed with this agent: one of its models could not be built. */
export class UnusableAgentError extends Error {
  constructor(
    message: string,
    readonly unhonoured: Unhonoured,
  ) {
    super(message);
  }
}

export async function buildCall(agent: GatewayAgent, job: CallDispatch, providers: Providers): Promise<CallSetup> {
  const unhonoured: Unhonoured = [];
  const values = placeholderValues(job);
  const vad = await loadVad(agent.vad_config ?? {}, unhonoured);
  const missing = (member: string) => new UnusableAgentError(`the agent has no usable ${member}`, unhonoured);
  if (!agent.llm_config) throw missing('llm_config');
  if (!agent.transcriber_config) throw missing('transcriber_config');
  if (!agent.voice_config) throw missing('voice_config');
  const model = buildLlm(agent.llm_config, providers, unhonoured);
  const transcriber = buildStt(agent.transcriber_config, vad, providers, unhonoured);
  const voiceModel = buildTts(agent.voice_config, providers, unhonoured);
  if (!model) throw missing('llm_config');
  if (!transcriber) throw missing('transcriber_config');
  if (!voiceModel) throw missing('voice_config');
  const silence = agent.room_duration_config?.max_silence_sec;
  const instructions = [agent.llm_config.system_prompt, agent.prompt_template]
    .filter((text): text is string => Boolean(text))
    .map((text) => fillPlaceholders(text, values))
    .join('\n\n');
  return {
    session: {
      llm: model,
      stt: transcriber,
      tts: voiceModel,
      vad,
      turnHandling: turnHandling(agent.extra_config, agent.transcriber_config, providers, unhonoured),
      ...(silence !== undefined ? { userAwayTimeout: silence } : {}),
    },
    instructions,
    background: backgroundAudio(agent.background_sound, unhonoured),
    script: callScript(agent.greeting_config, agent.goodbye_config, agent.room_duration_config, values),
    unhonoured,
  };
}
