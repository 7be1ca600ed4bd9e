// extra_config (and the primary transcriber's preemptive_generation) → the
// session's turn handling: interruptions, preemptive generation, and LiveKit's
// turn detector (inference.TurnDetector: `v1` served by LiveKit Cloud, falling
// back to `v1-mini`, the same model run in the worker). The livekit plugin's
// text detectors (English, multilingual) are deprecated in Agents 1.8 in its
// favour, and need a job's inference process to be built.
import { inference, type voice } from '@livekit/agents';
import type { ExtraConfig, TranscriberConfig } from '../agent.ts';
import type { Providers } from '../config.ts';
import type { Unhonoured } from './unhonoured.ts';

/** The session's turn handling options (AgentSession's `turnHandling`). */
export type TurnHandling = NonNullable<voice.AgentSessionOptions['turnHandling']>;

const versions = ['v1', 'v1-mini'] as const;
type Version = (typeof versions)[number];

function detector(extra: ExtraConfig, providers: Providers, unhonoured: Unhonoured) {
  const type = extra.turn_detector_model_type;
  const version = versions.find((name) => name === type);
  if (type !== undefined && !version) {
    unhonoured.push({
      member: 'extra_config.turn_detector_model_type',
      reason: `LiveKit's turn detector is v1 or v1-mini, not ${JSON.stringify(type)}`,
    });
  }
  if (extra.turn_detector_is_multilingual === false) {
    unhonoured.push({
      member: 'extra_config.turn_detector_is_multilingual',
      reason: "LiveKit's turn detector takes every language it knows",
    });
  }
  const { apiKey, apiSecret } = providers.livekit;
  // Unnamed, the library picks: v1 where LiveKit Cloud serves it, else v1-mini.
  return new inference.TurnDetector({ ...(version ? { version: version as Version } : {}), apiKey, apiSecret });
}

/** The session's turn handling; members no option takes are added to `unhonoured`. */
export function turnHandling(
  extra: ExtraConfig | null,
  transcriber: TranscriberConfig | null,
  providers: Providers,
  unhonoured: Unhonoured,
): TurnHandling {
  const handling: TurnHandling = {};
  const preemptive = transcriber?.preemptive_generation;
  if (typeof preemptive === 'boolean') {
    handling.preemptiveGeneration = { enabled: preemptive };
  }
  if (transcriber?.preemptive_min_confidence !== undefined) {
    unhonoured.push({
      member: 'transcriber_config.preemptive_min_confidence',
      reason: 'LiveKit Agents starts preemptive generation on every interim end of turn: it takes no confidence',
    });
  }
  if (!extra) return handling;
  const interruption: TurnHandling['interruption'] = {};
  if (extra.allow_interruptions !== undefined) interruption.enabled = extra.allow_interruptions;
  if (extra.min_words !== undefined) interruption.minWords = extra.min_words;
  if (Object.keys(interruption).length > 0) handling.interruption = interruption;
  if (extra.interruption_sensitivity !== undefined) {
    unhonoured.push({
      member: 'extra_config.interruption_sensitivity',
      reason: 'LiveKit Agents interrupts on speech duration and words (min_words), not on a sensitivity',
    });
  }
  if (extra.use_gender_plugin !== undefined && extra.use_gender_plugin !== 'none') {
    unhonoured.push({
      member: 'extra_config.use_gender_plugin',
      reason: 'LiveKit Agents has no voice gender detection',
    });
  }
  if (extra.turn_detector_enabled === true) handling.turnDetection = detector(extra, providers, unhonoured);
  // Without a model, the turn ends on the voice activity detector's silence.
  if (extra.turn_detector_enabled === false) handling.turnDetection = 'vad';
  return handling;
}
