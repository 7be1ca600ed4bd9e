// voice_config member by member, read back from the requests the real plugins send.
import { tts } from '@livekit/agents';
import * as cartesia from '@livekit/agents-plugin-cartesia';
import * as deepgram from '@livekit/agents-plugin-deepgram';
import * as elevenlabs from '@livekit/agents-plugin-elevenlabs';
import * as openai from '@livekit/agents-plugin-openai';
import { describe, expect, test } from 'vitest';
import type { VoiceConfig } from '../src/agent.ts';
import { buildTts } from '../src/mapping/tts.ts';
import type { Unhonoured } from '../src/mapping/unhonoured.ts';
import { membersOf, ttsStream, ttsSynthesis, useCapturedVendors } from './support/plugins.ts';

const vendors = useCapturedVendors();

function build(config: VoiceConfig) {
  const unhonoured: Unhonoured = [];
  return { voice: buildTts(config, vendors.providers, unhonoured)!, unhonoured };
}

describe('ElevenLabs', () => {
  const base = { provider: 'elevenlabs', model: 'eleven_flash_v2_5', voice_id: 'voice-ava' };

  test.each([
    ['model', { model: 'eleven_turbo_v2_5' }, { model_id: 'eleven_turbo_v2_5' }],
    ['language', { language: 'fr' }, { language_code: 'fr' }],
    ['encoding', { encoding: 'pcm_44100' }, { output_format: 'pcm_44100' }],
    ['sample_rate', { sample_rate: 16000 }, { output_format: 'pcm_16000' }],
    ['enable_ssml_parsing', { enable_ssml_parsing: true }, { enable_ssml_parsing: 'true' }],
    ['text_normalization', { text_normalization: false }, { apply_text_normalization: 'off' }],
  ])('%s reaches the stream', async (_member, given, sent) => {
    const { voice, unhonoured } = build({ ...base, ...given });
    expect(voice).toBeInstanceOf(elevenlabs.TTS);
    const request = await ttsStream(vendors.capture, voice);
    expect(request.path).toBe('/v1/text-to-speech/voice-ava/multi-stream-input');
    expect(request.headers['xi-api-key']).toBe('dummy-elevenlabs');
    expect(Object.fromEntries(request.query)).toMatchObject(sent);
    expect(unhonoured).toEqual([]);
  });

  test('the voice settings reach the stream together', async () => {
    const settings = { stability: 0.3, similarity_boost: 0.8, style: 0.1, speed: 1.1, use_speaker_boost: true };
    const request = await ttsStream(vendors.capture, build({ ...base, ...settings }).voice);
    expect(request.json.voice_settings).toEqual(settings);
  });

  test('a rate without a PCM format, and members of other vendors, are unhonoured by name', () => {
    const { unhonoured } = build({ ...base, sample_rate: 8000, pitch: 2, emotion: ['calm'], instructions: 'warm' });
    expect(membersOf(unhonoured)).toEqual([
      'voice_config.sample_rate',
      'voice_config.pitch',
      'voice_config.emotion',
      'voice_config.instructions',
    ]);
  });
});

describe('Cartesia', () => {
  const base = { provider: 'cartesia', model: 'sonic-3', voice_id: 'voice-c' };

  test.each([
    ['model', { model: 'sonic-3-2025-10-27' }, { model_id: 'sonic-3-2025-10-27' }],
    ['voice_id', { voice_id: 'voice-d' }, { voice: { mode: 'id', id: 'voice-d' } }],
    ['language', { language: 'es' }, { language: 'es' }],
    ['sample_rate', { sample_rate: 16000 }, { output_format: { sample_rate: 16000 } }],
    ['encoding', { encoding: 'pcm_s16le' }, { output_format: { encoding: 'pcm_s16le' } }],
    ['speed', { speed: 1.2 }, { generation_config: { speed: 1.2 } }],
    ['volume', { volume: 1.5 }, { generation_config: { volume: 1.5 } }],
    ['emotion', { emotion: ['positivity'] }, { generation_config: { emotion: 'positivity' } }],
  ])('%s reaches the stream', async (_member, given, sent) => {
    const { voice, unhonoured } = build({ ...base, ...given });
    expect(voice).toBeInstanceOf(cartesia.TTS);
    const request = await ttsStream(vendors.capture, voice);
    expect(request.path).toBe('/tts/websocket');
    expect(request.json).toMatchObject(sent);
    expect(unhonoured).toEqual([]);
  });

  test('speed, volume and emotion before sonic-3, and a second emotion, are unhonoured', async () => {
    const older = build({ ...base, model: 'sonic-2', speed: 1.2, volume: 1.5, emotion: ['positivity'] });
    expect(membersOf(older.unhonoured)).toEqual(['voice_config.speed', 'voice_config.volume', 'voice_config.emotion']);
    expect((await ttsStream(vendors.capture, older.voice)).json).not.toHaveProperty('generation_config');
    const two = build({ ...base, emotion: ['positivity', 'curiosity'] });
    expect(membersOf(two.unhonoured)).toEqual(['voice_config.emotion']);
  });
});

describe('OpenAI', () => {
  test.each([
    ['model', { model: 'tts-1' }, { model: 'tts-1' }],
    ['voice_id', { voice_id: 'ash' }, { voice: 'ash' }],
    ['speed', { speed: 1.5 }, { speed: 1.5 }],
    ['instructions', { instructions: 'Speak calmly.' }, { instructions: 'Speak calmly.' }],
  ])('%s reaches the request', async (_member, given, sent) => {
    const { voice, unhonoured } = build({ provider: 'openai', model: 'gpt-4o-mini-tts', ...given });
    expect(voice).toBeInstanceOf(openai.TTS);
    const request = await ttsSynthesis(vendors.capture, voice);
    expect(request.path).toBe('/audio/speech');
    expect(request.headers.authorization).toBe('Bearer dummy-openai');
    expect(request.json).toMatchObject(sent);
    expect(unhonoured).toEqual([]);
  });

  test('a speed outside its range is unhonoured', () => {
    expect(membersOf(build({ provider: 'openai', model: 'tts-1', speed: 5 }).unhonoured)).toEqual([
      'voice_config.speed',
    ]);
  });
});

describe('Deepgram', () => {
  test.each([
    ['model', { model: 'aura-2-andromeda-en' }, { model: 'aura-2-andromeda-en' }],
    ['encoding', { encoding: 'mulaw' }, { encoding: 'mulaw' }],
    ['sample_rate', { sample_rate: 8000 }, { sample_rate: '8000' }],
    ['speed', { speed: 1.2 }, { speed: '1.2' }],
  ])('%s reaches the stream', async (_member, given, sent) => {
    const { voice, unhonoured } = build({ provider: 'deepgram', model: 'aura-2-thalia-en', ...given });
    expect(voice).toBeInstanceOf(deepgram.TTS);
    const request = await ttsStream(vendors.capture, voice);
    expect(request.path).toBe('/v1/speak');
    expect(Object.fromEntries(request.query)).toMatchObject(sent);
    expect(unhonoured).toEqual([]);
  });
});

describe('fallbacks', () => {
  test('are tried in order behind the FallbackAdapter; a voice without a plugin is unhonoured', async () => {
    const { voice, unhonoured } = build({
      provider: 'elevenlabs',
      model: 'eleven_flash_v2_5',
      voice_id: 'voice-ava',
      fallbacks: [
        { provider: 'playht', model: 'play3.0' },
        {
          provider: 'cartesia',
          model: 'sonic-2',
          voice_id: 'voice-c',
          fallbacks: [{ provider: 'openai', model: 'tts-1' }],
        },
      ],
    });
    expect(unhonoured).toEqual([
      { member: 'voice_config.fallbacks[0].provider', reason: 'LiveKit Agents for Node has no playht voice' },
    ]);
    expect(voice).toBeInstanceOf(tts.FallbackAdapter);
    const adapter = voice as tts.FallbackAdapter;
    expect(adapter.ttsInstances.map((entry) => entry.model)).toEqual(['eleven_flash_v2_5', 'sonic-2', 'tts-1']);
    const request = await ttsStream(vendors.capture, adapter.ttsInstances[1]!);
    expect(request.json).toMatchObject({ voice: { id: 'voice-c' } });
  });
});
