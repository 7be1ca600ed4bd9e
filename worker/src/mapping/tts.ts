// voice_config → text to speech: ElevenLabs, Cartesia, OpenAI and Deepgram
// (Aura) through their plugins; fallbacks through tts.FallbackAdapter. Another
// provider has no Node plugin: its entry is unhonoured and the next one takes over.
import { tts } from '@livekit/agents';
import * as cartesia from '@livekit/agents-plugin-cartesia';
import * as deepgram from '@livekit/agents-plugin-deepgram';
import * as elevenlabs from '@livekit/agents-plugin-elevenlabs';
import * as openai from '@livekit/agents-plugin-openai';
import type { VoiceConfig } from '../agent.ts';
import type { Providers, Vendor } from '../config.ts';
import { type OptionTable, optionsFrom, type Unhonoured, withFallbacks } from './unhonoured.ts';

const elevenLabsEncodings = [
  'mp3_22050_32',
  'mp3_44100_32',
  'mp3_44100_64',
  'mp3_44100_96',
  'mp3_44100_128',
  'mp3_44100_192',
  'pcm_16000',
  'pcm_22050',
  'pcm_44100',
];

/** ElevenLabs' voice settings: each member given is sent, the vendor's defaults stand for the others. */
const voiceSetting = (setting: Partial<elevenlabs.VoiceSettings>) => ({
  voiceSettings: setting as elevenlabs.VoiceSettings,
});

const elevenLabsTable: OptionTable<elevenlabs.TTSOptions> = {
  model: (model: string) => ({ model }),
  voice_id: (voiceId: string) => ({ voiceId }),
  language: (language: string) => ({ language }),
  stability: (stability: number) => voiceSetting({ stability }),
  similarity_boost: (similarity_boost: number) => voiceSetting({ similarity_boost }),
  style: (style: number) => voiceSetting({ style }),
  speed: (speed: number) => voiceSetting({ speed }),
  use_speaker_boost: (use_speaker_boost: boolean) => voiceSetting({ use_speaker_boost }),
  encoding: (encoding: string) =>
    elevenLabsEncodings.includes(encoding) ? { encoding: encoding as elevenlabs.TTSOptions['encoding'] } : undefined,
  // The encoding names the rate: PCM at the rate asked for, when ElevenLabs has it.
  sample_rate: (rate: number, config) =>
    config.encoding === undefined && elevenLabsEncodings.includes(`pcm_${rate}`)
      ? { encoding: `pcm_${rate}` as elevenlabs.TTSOptions['encoding'] }
      : undefined,
  enable_ssml_parsing: (enableSsmlParsing: boolean) => ({ enableSsmlParsing }),
  text_normalization: (on: boolean) => ({ applyTextNormalization: on ? 'on' : 'off' }),
};

/** The Cartesia plugin sends speed, emotion and volume to its sonic-3 models only. */
const sonic3 = (config: Record<string, unknown>) => String(config.model).startsWith('sonic-3');

const cartesiaTable: OptionTable<cartesia.TTSOptions> = {
  model: (model: string) => ({ model }),
  voice_id: (voice: string) => ({ voice }),
  language: (language: string) => ({ language }),
  speed: (speed: number, config) => (sonic3(config) ? { speed } : undefined),
  // One emotion: the plugin sends the first only.
  emotion: (emotion: string[], config) => (sonic3(config) && emotion.length === 1 ? { emotion } : undefined),
  volume: (volume: number, config) => (sonic3(config) ? { volume } : undefined),
  encoding: (encoding: string) => (encoding === 'pcm_s16le' ? { encoding } : undefined),
  sample_rate: (sampleRate: number) => ({ sampleRate }),
};

const openAITable: OptionTable<openai.TTSOptions> = {
  model: (model: string) => ({ model }),
  voice_id: (voice: string) => ({ voice: voice as openai.TTSOptions['voice'] }),
  speed: (speed: number) => (speed >= 0.25 && speed <= 4 ? { speed } : undefined),
  instructions: (instructions: string) => ({ instructions }),
};

const deepgramEncodings = ['linear16', 'mulaw', 'alaw', 'mp3', 'opus', 'flac', 'aac'];

const deepgramTable: OptionTable<deepgram.TTSOptions> = {
  // Aura names the voice in the model (`aura-2-thalia-en`).
  model: (model: string) => ({ model }),
  encoding: (encoding: string) =>
    deepgramEncodings.includes(encoding) ? { encoding: encoding as deepgram.TTSOptions['encoding'] } : undefined,
  sample_rate: (sampleRate: number) => ({ sampleRate }),
  speed: (speed: number) => ({ speed }),
};

const pluginOf: Partial<Record<string, Vendor>> = {
  elevenlabs: 'elevenlabs',
  cartesia: 'cartesia',
  openai: 'openai',
  deepgram: 'deepgram',
};

const skip = ['provider', 'fallbacks'];

function buildOne(config: VoiceConfig, path: string, providers: Providers, unhonoured: Unhonoured): tts.TTS | null {
  const vendor = pluginOf[config.provider];
  if (!vendor) {
    unhonoured.push({ member: `${path}.provider`, reason: `LiveKit Agents for Node has no ${config.provider} voice` });
    return null;
  }
  const { apiKey, baseUrl } = providers.vendors[vendor] ?? {};
  if (!apiKey) {
    unhonoured.push({
      member: `${path}.provider`,
      reason: `no ${vendor.toUpperCase()}_API_KEY in the worker's environment`,
    });
    return null;
  }
  switch (vendor) {
    case 'elevenlabs': {
      const options = optionsFrom(config, elevenLabsTable, path, 'the ElevenLabs plugin', unhonoured, skip);
      return new elevenlabs.TTS({ ...options, apiKey, baseURL: baseUrl });
    }
    case 'cartesia': {
      const options = optionsFrom(config, cartesiaTable, path, 'the Cartesia plugin', unhonoured, skip);
      return new cartesia.TTS({ ...options, apiKey, ...(baseUrl ? { baseUrl } : {}) });
    }
    case 'openai': {
      const options = optionsFrom(config, openAITable, path, 'the OpenAI plugin', unhonoured, skip);
      return new openai.TTS({ ...options, apiKey, baseURL: baseUrl });
    }
    default: {
      const options = optionsFrom(config, deepgramTable, path, 'the Deepgram plugin', unhonoured, skip);
      return new deepgram.TTS({ ...options, apiKey, ...(baseUrl ? { baseUrl } : {}) });
    }
  }
}

/** The agent's voice and its fallbacks behind a FallbackAdapter; null when none can be built. */
export function buildTts(config: VoiceConfig, providers: Providers, unhonoured: Unhonoured): tts.TTS | null {
  const voices = withFallbacks(config, 'voice_config').flatMap(
    (entry) => buildOne(entry.config, entry.path, providers, unhonoured) ?? [],
  );
  if (voices.length <= 1) return voices[0] ?? null;
  return new tts.FallbackAdapter({ ttsInstances: voices });
}
