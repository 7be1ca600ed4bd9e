// vad_config → Silero's voice activity detection (its durations in seconds
// become the plugin's milliseconds; it runs at 8 or 16 kHz only).
import type { VAD } from '@livekit/agents';
import * as silero from '@livekit/agents-plugin-silero';
import type { VadConfig } from '../agent.ts';
import { type OptionTable, optionsFrom, type Unhonoured } from './unhonoured.ts';

const seconds = (value: number) => Math.round(value * 1000);

type SileroOptions = NonNullable<Parameters<typeof silero.VAD.load>[0]>;

const sileroTable: OptionTable<SileroOptions> = {
  activation_threshold: (activationThreshold: number) => ({ activationThreshold }),
  max_buffered_speech: (maxBufferedSpeech: number) => ({ maxBufferedSpeech }),
  min_silence_duration: (duration: number) => ({ minSilenceDuration: seconds(duration) }),
  min_speech_duration: (duration: number) => ({ minSpeechDuration: seconds(duration) }),
  prefix_padding_duration: (duration: number) => ({ prefixPaddingDuration: seconds(duration) }),
  sample_rate: (rate: number) => (rate === 8000 || rate === 16000 ? { sampleRate: rate } : undefined),
};

/** The plugin's options for `config` (the plugin's defaults for members it does not set). */
export const sileroOptions = (config: VadConfig, unhonoured: Unhonoured) =>
  optionsFrom(config, sileroTable, 'vad_config', 'the Silero plugin', unhonoured);

/** Loads Silero's model (shipped in the plugin) with the options of `config`. */
export const loadVad = (config: VadConfig, unhonoured: Unhonoured): Promise<VAD> =>
  silero.VAD.load(sileroOptions(config, unhonoured));
