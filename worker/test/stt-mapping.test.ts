// transcriber_config member by member, read back from the connections the real plugins open.
import { inference, stt, type VAD } from '@livekit/agents';
import * as deepgram from '@livekit/agents-plugin-deepgram';
import * as elevenlabs from '@livekit/agents-plugin-elevenlabs';
import { beforeAll, describe, expect, test } from 'vitest';
import type { TranscriberConfig } from '../src/agent.ts';
import { buildStt } from '../src/mapping/stt.ts';
import type { Unhonoured } from '../src/mapping/unhonoured.ts';
import { loadVad } from '../src/mapping/vad.ts';
import { membersOf, sttConnection, useCapturedVendors } from './support/plugins.ts';

const vendors = useCapturedVendors();
let vad: VAD;
beforeAll(async () => {
  vad = await loadVad({}, []);
});

function build(config: TranscriberConfig) {
  const unhonoured: Unhonoured = [];
  return { transcriber: buildStt(config, vad, vendors.providers, unhonoured)!, unhonoured };
}

describe('Deepgram', () => {
  test.each([
    ['model', { model: 'nova-2-phonecall' }, { model: 'nova-2-phonecall' }],
    ['language', { language: 'fr' }, { language: 'fr' }],
    ['detect_language', { language: 'fr', detect_language: false }, { language: 'fr' }],
    ['interim_results', { interim_results: false }, { interim_results: 'false' }],
    ['punctuate', { punctuate: false }, { punctuate: 'false' }],
    ['smart_format', { smart_format: false }, { smart_format: 'false' }],
    ['no_delay', { no_delay: false }, { no_delay: 'false' }],
    ['endpointing', { endpointing: 300 }, { endpointing: '300' }],
    ['endpointing_ms', { endpointing_ms: 450 }, { endpointing: '450' }],
    ['filler_words', { filler_words: true }, { filler_words: 'true' }],
    ['sample_rate', { sample_rate: 8000 }, { sample_rate: '8000' }],
    ['num_channels', { num_channels: 2 }, { channels: '2' }],
    ['keywords', { model: 'nova-2', keywords: ['Acme'] }, { keywords: 'Acme:1' }],
    ['keyterms', { keyterms: ['Acme Renewals'] }, { keyterm: 'Acme Renewals' }],
    ['profanity_filter', { profanity_filter: true }, { profanity_filter: 'true' }],
    ['enable_logging', { enable_logging: false }, { mip_opt_out: 'true' }],
    ['vad_events', { vad_events: true }, { vad_events: 'true' }],
  ])('%s reaches the stream', async (_member, given, sent) => {
    const { transcriber, unhonoured } = build({ provider: 'deepgram', model: 'nova-3', ...given });
    expect(transcriber).toBeInstanceOf(deepgram.STT);
    const connection = await sttConnection(vendors.capture, transcriber);
    expect(connection.path).toBe('/v1/listen');
    expect(connection.headers.authorization).toBe('Token dummy-deepgram');
    expect(Object.fromEntries(connection.query)).toMatchObject(sent);
    expect(unhonoured).toEqual([]);
  });

  test('vad_events off, detect_language on (not in streaming), and members only other vendors have, are unhonoured by name', () => {
    const { unhonoured } = build({
      provider: 'deepgram',
      model: 'nova-3',
      vad_events: false,
      detect_language: true,
      commit_strategy: 'vad',
      include_timestamps: true,
      eot_threshold: 0.7,
    });
    expect(unhonoured).toEqual([
      { member: 'transcriber_config.vad_events', reason: 'the Deepgram plugin cannot take false' },
      { member: 'transcriber_config.detect_language', reason: 'the Deepgram plugin cannot take true' },
      { member: 'transcriber_config.commit_strategy', reason: 'the Deepgram plugin has no such option' },
      { member: 'transcriber_config.include_timestamps', reason: 'the Deepgram plugin has no such option' },
      { member: 'transcriber_config.eot_threshold', reason: 'the Deepgram plugin has no such option' },
    ]);
  });

  test.each([
    ['eager_eot_threshold', { eager_eot_threshold: 0.4 }, { eager_eot_threshold: '0.4' }],
    ['eot_threshold', { eot_threshold: 0.8 }, { eot_threshold: '0.8' }],
    ['eot_timeout_ms', { eot_timeout_ms: 4000 }, { eot_timeout_ms: '4000' }],
    ['keyterms', { keyterms: ['Acme'] }, { keyterm: 'Acme' }],
    ['sample_rate', { sample_rate: 8000 }, { sample_rate: '8000' }],
    ['enable_logging', { enable_logging: false }, { mip_opt_out: 'true' }],
  ])('Flux: %s reaches the STTv2 stream', async (_member, given, sent) => {
    const { transcriber, unhonoured } = build({ provider: 'deepgram', model: 'flux-general-en', ...given });
    expect(transcriber).toBeInstanceOf(deepgram.STTv2);
    const connection = await sttConnection(vendors.capture, transcriber);
    expect(connection.path).toBe('/v2/listen');
    expect(Object.fromEntries(connection.query)).toMatchObject({ model: 'flux-general-en', ...sent });
    expect(unhonoured).toEqual([]);
  });
});

describe('ElevenLabs', () => {
  const realtime = { provider: 'elevenlabs', model: 'scribe_v2_realtime' } as const;

  test.each([
    ['language', { language: 'de' }, { language_code: 'de' }],
    ['include_timestamps', { include_timestamps: true }, { include_timestamps: 'true' }],
    ['keyterms', { keyterms: ['Acme'] }, { keyterms: 'Acme' }],
    ['enable_logging', { enable_logging: false }, { enable_logging: 'false' }],
    ['sample_rate', { sample_rate: 8000 }, { audio_format: 'pcm_8000' }],
    ['commit_strategy', { commit_strategy: 'vad' }, { commit_strategy: 'vad' }],
    [
      'min_speech_duration_ms',
      { commit_strategy: 'vad', min_speech_duration_ms: 120 },
      { commit_strategy: 'vad', min_speech_duration_ms: '120' },
    ],
  ])('%s reaches the realtime stream', async (_member, given, sent) => {
    const { transcriber, unhonoured } = build({ ...realtime, ...given });
    expect(transcriber).toBeInstanceOf(elevenlabs.STT);
    const connection = await sttConnection(vendors.capture, transcriber);
    expect(connection.path).toBe('/v1/speech-to-text/realtime');
    expect(connection.headers['xi-api-key']).toBe('dummy-elevenlabs');
    expect(Object.fromEntries(connection.query)).toMatchObject({ model_id: 'scribe_v2_realtime', ...sent });
    expect(unhonoured).toEqual([]);
  });

  test('a sample rate it has no format for, and speech duration without its voice detection, are unhonoured', () => {
    const { unhonoured } = build({
      ...realtime,
      sample_rate: 32000,
      commit_strategy: 'manual',
      min_speech_duration_ms: 50,
    });
    expect(membersOf(unhonoured)).toEqual([
      'transcriber_config.sample_rate',
      'transcriber_config.min_speech_duration_ms',
    ]);
  });
});

describe('vendors without a Node plugin', () => {
  test('AssemblyAI goes through LiveKit Inference with the LiveKit keys', () => {
    const { transcriber, unhonoured } = build({ provider: 'assemblyai', model: 'universal-streaming', language: 'en' });
    expect(transcriber).toBeInstanceOf(inference.STT);
    expect(transcriber.model).toBe('assemblyai/universal-streaming');
    expect(unhonoured).toEqual([]);
  });

  test('Google and Azure are unhonoured, and the next transcriber takes over', () => {
    const { transcriber, unhonoured } = build({
      provider: 'azure',
      language: 'en',
      fallbacks: [{ provider: 'google' }, { provider: 'deepgram', model: 'nova-3' }],
    });
    expect(unhonoured).toEqual([
      { member: 'transcriber_config.provider', reason: 'LiveKit Agents for Node has no azure transcriber' },
      {
        member: 'transcriber_config.fallbacks[0].provider',
        reason: 'LiveKit Agents for Node has no google transcriber',
      },
    ]);
    expect(transcriber).toBeInstanceOf(deepgram.STT);
  });
});

describe('fallbacks', () => {
  test('are tried in order behind the FallbackAdapter, each with its own options', async () => {
    const { transcriber, unhonoured } = build({
      provider: 'deepgram',
      model: 'nova-3',
      preemptive_generation: true,
      fallbacks: [
        { provider: 'elevenlabs', model: 'scribe_v2_realtime', language: 'en', preemptive_generation: false },
      ],
    });
    expect(transcriber).toBeInstanceOf(stt.FallbackAdapter);
    const adapter = transcriber as stt.FallbackAdapter;
    expect(adapter.sttInstances.map((entry) => entry.model)).toEqual(['nova-3', 'scribe_v2_realtime']);
    const connection = await sttConnection(vendors.capture, adapter.sttInstances[1]!);
    expect(connection.query.get('language_code')).toBe('en');
    // preemptive_generation is the session's: a fallback's differing value cannot be honoured.
    expect(unhonoured).toEqual([
      {
        member: 'transcriber_config.fallbacks[0].preemptive_generation',
        reason: "the session's, set by the primary transcriber",
      },
    ]);
  });
});
