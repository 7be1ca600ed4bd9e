// transcriber_config → speech to text: Deepgram (its Flux models through the
// plugin's STTv2), ElevenLabs, and AssemblyAI through LiveKit Inference (no
// Node plugin; it needs LiveKit Cloud); fallbacks through stt.FallbackAdapter.
// Google and Azure have no Node plugin: such an entry is unhonoured and the
// next one takes over.
import { inference, stt, type VAD } from '@livekit/agents';
import * as deepgram from '@livekit/agents-plugin-deepgram';
import * as elevenlabs from '@livekit/agents-plugin-elevenlabs';
import type { TranscriberConfig } from '../agent.ts';
import type { Providers } from '../config.ts';
import { type OptionTable, optionsFrom, type Unhonoured, withFallbacks } from './unhonoured.ts';

/** Session members: the session takes them from the primary transcriber (src/mapping/turns.ts). */
export const sessionMembers = ['preemptive_generation'] as const;

const deepgramTable: OptionTable<deepgram.STTOptions> = {
  model: (model: string) => ({ model }),
  language: (language: string) => ({ language }),
  // A call streams, and Deepgram detects languages only on recorded audio.
  detect_language: (detect: boolean) => (detect ? undefined : { detectLanguage: false }),
  interim_results: (interimResults: boolean) => ({ interimResults }),
  punctuate: (punctuate: boolean) => ({ punctuate }),
  smart_format: (smartFormat: boolean) => ({ smartFormat }),
  no_delay: (noDelay: boolean) => ({ noDelay }),
  // Deepgram's endpointing is in milliseconds: both members say the same.
  endpointing: (endpointing: number) => ({ endpointing }),
  endpointing_ms: (endpointing: number) => ({ endpointing }),
  filler_words: (fillerWords: boolean) => ({ fillerWords }),
  sample_rate: (sampleRate: number) => ({ sampleRate }),
  num_channels: (numChannels: number) => ({ numChannels }),
  keywords: (keywords: string[]) => ({ keywords: keywords.map((word): [string, number] => [word, 1]) }),
  keyterms: (keyterm: string[]) => ({ keyterm }),
  profanity_filter: (profanityFilter: boolean) => ({ profanityFilter }),
  // Deepgram keeps audio for its model improvement programme unless opted out.
  enable_logging: (enabled: boolean) => ({ mipOptOut: !enabled }),
  // The plugin always asks for voice activity events.
  vad_events: (wanted: boolean) => (wanted ? {} : undefined),
};

const fluxTable: OptionTable<deepgram.STTv2Options> = {
  model: (model: string) => ({ model }),
  language: (language: string) => ({ language }),
  keyterms: (keyterms: string[]) => ({ keyterms }),
  eager_eot_threshold: (eagerEotThreshold: number) => ({ eagerEotThreshold }),
  eot_threshold: (eotThreshold: number) => ({ eotThreshold }),
  eot_timeout_ms: (eotTimeoutMs: number) => ({ eotTimeoutMs }),
  sample_rate: (sampleRate: number) => ({ sampleRate }),
  profanity_filter: (profanityFilter: boolean) => ({ profanityFilter }),
  enable_logging: (enabled: boolean) => ({ mipOptOut: !enabled }),
};

const elevenLabsSampleRates = [8000, 16000, 22050, 24000, 44100, 48000] as const;

const elevenLabsTable: OptionTable<elevenlabs.STTOptions> = {
  model: (model: string) => ({ model }),
  language: (languageCode: string) => ({ languageCode }),
  include_timestamps: (includeTimestamps: boolean) => ({ includeTimestamps }),
  keyterms: (keyterms: string[]) => ({ keyterms }),
  enable_logging: (enableLogging: boolean) => ({ enableLogging }),
  sample_rate: (rate: number) =>
    elevenLabsSampleRates.find((supported) => supported === rate) ? { sampleRate: rate as 16000 } : undefined,
  // The realtime model commits on its server's voice activity detection, or when told to.
  commit_strategy: (strategy: 'manual' | 'vad') => ({ serverVad: strategy === 'vad' ? {} : null }),
  min_speech_duration_ms: (minSpeechDurationMs: number, config) =>
    config.commit_strategy === 'vad' ? { serverVad: { minSpeechDurationMs } } : undefined,
};

const inferenceTable: OptionTable<{ model: string; language: string }> = {
  model: (model: string) => ({ model: `assemblyai/${model}` }),
  language: (language: string) => ({ language }),
};

function buildOne(
  config: TranscriberConfig,
  path: string,
  skip: readonly string[],
  providers: Providers,
  unhonoured: Unhonoured,
): stt.STT | null {
  const members = config as Record<string, unknown>;
  if (config.provider === 'assemblyai') {
    const options = optionsFrom(members, inferenceTable, path, 'LiveKit Inference', unhonoured, skip);
    const { apiKey, apiSecret } = providers.livekit;
    return new inference.STT({ model: 'assemblyai/universal-streaming', ...options, apiKey, apiSecret });
  }
  if (config.provider !== 'deepgram' && config.provider !== 'elevenlabs') {
    unhonoured.push({
      member: `${path}.provider`,
      reason: `LiveKit Agents for Node has no ${config.provider} transcriber`,
    });
    return null;
  }
  const access = providers.vendors[config.provider] ?? {};
  if (!access.apiKey) {
    unhonoured.push({
      member: `${path}.provider`,
      reason: `no ${config.provider.toUpperCase()}_API_KEY in the worker's environment`,
    });
    return null;
  }
  if (config.provider === 'elevenlabs') {
    const options = optionsFrom(members, elevenLabsTable, path, 'the ElevenLabs plugin', unhonoured, skip);
    return new elevenlabs.STT({ ...options, apiKey: access.apiKey, baseURL: access.baseUrl });
  }
  if (typeof config.model === 'string' && config.model.startsWith('flux')) {
    const options = optionsFrom(members, fluxTable, path, "the Deepgram plugin's STTv2 (Flux)", unhonoured, skip);
    return new deepgram.STTv2({
      ...options,
      apiKey: access.apiKey,
      ...(access.baseUrl ? { endpointUrl: `${access.baseUrl}/v2/listen` } : {}),
    });
  }
  const options = optionsFrom(members, deepgramTable, path, 'the Deepgram plugin', unhonoured, skip);
  return new deepgram.STT({
    ...options,
    apiKey: access.apiKey,
    ...(access.baseUrl ? { baseUrl: access.baseUrl } : {}),
  });
}

/**
 * The agent's transcriber and its fallbacks (a FallbackAdapter, which needs the
 * VAD for transcribers that do not stream); null when none can be built.
 * A fallback's session members cannot be honoured: the primary's decide.
 */
export function buildStt(config: TranscriberConfig, vad: VAD, providers: Providers, unhonoured: Unhonoured) {
  const transcribers: stt.STT[] = [];
  for (const entry of withFallbacks(config, 'transcriber_config')) {
    const primary = entry.path === 'transcriber_config';
    const skip = ['provider', 'fallbacks', ...(primary ? sessionMembers : [])];
    if (!primary) {
      for (const member of sessionMembers) {
        if (entry.config[member] !== undefined && entry.config[member] !== config[member]) {
          unhonoured.push({
            member: `${entry.path}.${member}`,
            reason: "the session's, set by the primary transcriber",
          });
        }
      }
      skip.push(...sessionMembers);
    }
    const transcriber = buildOne(entry.config, entry.path, skip, providers, unhonoured);
    if (transcriber) transcribers.push(transcriber);
  }
  if (transcribers.length <= 1) return transcribers[0] ?? null;
  return new stt.FallbackAdapter({ sttInstances: transcribers, vad });
}
