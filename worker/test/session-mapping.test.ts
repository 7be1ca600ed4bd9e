// The session-wide configurations (VAD, turn taking, sounds, the call's script)
// and the whole agent, read back from the real classes: Silero's loaded model,
// the turn detectors, the AgentSession's resolved options, the BackgroundAudioPlayer.
import { inference, voice } from '@livekit/agents';
import { describe, expect, test } from 'vitest';
import type { GatewayAgent } from '../src/agent.ts';
import type { CallDispatch } from '../src/dispatch.ts';
import { buildCall, UnusableAgentError } from '../src/mapping/index.ts';
import { callScript } from '../src/mapping/script.ts';
import { backgroundAudio } from '../src/mapping/sounds.ts';
import { turnHandling } from '../src/mapping/turns.ts';
import type { Unhonoured } from '../src/mapping/unhonoured.ts';
import { loadVad, sileroOptions } from '../src/mapping/vad.ts';
import { membersOf, useCapturedVendors } from './support/plugins.ts';

const vendors = useCapturedVendors();

const job: CallDispatch = {
  organization_id: 'org_1',
  agent_id: 'agt_1',
  run_id: 'run_1',
  batch_id: 'bat_1',
  attempt: 2,
  prospect: { id: 'prs_1', first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.com', phone: '+14155550101' },
  dynamic_variables: { plan: 'Gold', balance: 12.5, vip: true, nested: { no: 1 } },
};

const agent = (members: Partial<GatewayAgent> = {}): GatewayAgent => ({
  id: 'agt_1',
  name: 'Ava',
  prompt_template: 'Call {{prospect.first_name}} {{prospect.last_name}} about the {{plan}} plan ({{balance}} due).',
  llm_config: { provider: 'openai', model: 'gpt-4.1-mini', system_prompt: 'You are Ava, calling for run {{run.id}}.' },
  transcriber_config: { provider: 'deepgram', model: 'nova-3' },
  voice_config: { provider: 'cartesia', model: 'sonic-3', voice_id: 'voice-c' },
  vad_config: null,
  extra_config: null,
  greeting_config: null,
  goodbye_config: null,
  background_sound: null,
  room_duration_config: null,
  precall_webhook: null,
  ...members,
});

describe('vad_config', () => {
  test('its seconds become the plugin’s milliseconds, member by member', () => {
    const unhonoured: Unhonoured = [];
    expect(
      sileroOptions(
        {
          activation_threshold: 0.6,
          max_buffered_speech: 30000,
          min_silence_duration: 0.4,
          min_speech_duration: 0.1,
          prefix_padding_duration: 0.25,
          sample_rate: 8000,
        },
        unhonoured,
      ),
    ).toEqual({
      activationThreshold: 0.6,
      maxBufferedSpeech: 30000,
      minSilenceDuration: 400,
      minSpeechDuration: 100,
      prefixPaddingDuration: 250,
      sampleRate: 8000,
    });
    expect(unhonoured).toEqual([]);
  });

  test('loads Silero’s model with them (read back where the plugin shows them), and refuses rates it lacks', async () => {
    const unhonoured: Unhonoured = [];
    const vad = await loadVad({ min_silence_duration: 0.8, sample_rate: 44100 }, unhonoured);
    expect(vad.label).toBe('silero.VAD');
    expect((vad as unknown as { minSilenceDuration: number }).minSilenceDuration).toBe(800);
    expect(unhonoured).toEqual([{ member: 'vad_config.sample_rate', reason: 'the Silero plugin cannot take 44100' }]);
  });
});

describe('extra_config and the session', () => {
  test('interruptions, words, preemptive generation and silence reach the AgentSession’s options', async () => {
    const setup = await buildCall(
      agent({
        extra_config: { allow_interruptions: false, min_words: 3, turn_detector_enabled: false },
        transcriber_config: { provider: 'deepgram', model: 'nova-3', preemptive_generation: false },
        room_duration_config: { max_silence_sec: 25 },
      }),
      job,
      vendors.providers,
    );
    const session = new voice.AgentSession(setup.session);
    const options = session.sessionOptions;
    expect(options.turnHandling.interruption).toMatchObject({ enabled: false, minWords: 3 });
    expect(options.turnHandling.preemptiveGeneration).toMatchObject({ enabled: false });
    expect(options.turnHandling.turnDetection).toBe('vad');
    expect(options.userAwayTimeout).toBe(25);
    expect(setup.unhonoured).toEqual([]);
  });

  test.each([
    ['v1', 'turn-detector-v1'],
    ['v1-mini', 'turn-detector-v1-mini'],
  ])('turn_detector_model_type %s is LiveKit’s turn detector %s', (version, model) => {
    const unhonoured: Unhonoured = [];
    const handling = turnHandling(
      { turn_detector_enabled: true, turn_detector_model_type: version, turn_detector_is_multilingual: true },
      null,
      vendors.providers,
      unhonoured,
    );
    expect(handling.turnDetection).toBeInstanceOf(inference.TurnDetector);
    expect((handling.turnDetection as inference.TurnDetector).describeOptions()).toMatchObject({ model });
    expect(unhonoured).toEqual([]);
  });

  test('sensitivity, the gender plugin, an unknown detector and a preemptive confidence are unhonoured by name', () => {
    const unhonoured: Unhonoured = [];
    const handling = turnHandling(
      {
        interruption_sensitivity: 0.5,
        use_gender_plugin: 'pitch',
        turn_detector_enabled: true,
        turn_detector_model_type: 'semantic-xl',
        turn_detector_is_multilingual: false,
      },
      { provider: 'deepgram', preemptive_min_confidence: 0.7 },
      vendors.providers,
      unhonoured,
    );
    expect(membersOf(unhonoured)).toEqual([
      'transcriber_config.preemptive_min_confidence',
      'extra_config.interruption_sensitivity',
      'extra_config.use_gender_plugin',
      'extra_config.turn_detector_model_type',
      'extra_config.turn_detector_is_multilingual',
    ]);
    expect(handling.turnDetection).toBeInstanceOf(inference.TurnDetector);
  });
});

describe('background_sound', () => {
  test('becomes the player’s ambient and thinking sounds, presets as built-in clips', () => {
    const unhonoured: Unhonoured = [];
    const options = backgroundAudio(
      {
        file: 'office-ambience',
        volume: 0.4,
        thinking_sound: [
          { sound: 'KEYBOARD_TYPING', volume: 0.7, probability: 0.5 },
          { sound: '/sounds/hmm.ogg', probability: 0.5 },
        ],
      },
      unhonoured,
    );
    const player = new voice.BackgroundAudioPlayer(options!) as unknown as Record<string, unknown>;
    expect(player.ambientSound).toEqual({ source: voice.BuiltinAudioClip.OFFICE_AMBIENCE, volume: 0.4 });
    expect(player.thinkingSound).toEqual([
      { source: voice.BuiltinAudioClip.KEYBOARD_TYPING, volume: 0.7, probability: 0.5 },
      { source: '/sounds/hmm.ogg', probability: 0.5 },
    ]);
    expect(unhonoured).toEqual([]);
  });

  test('turned off, it plays nothing; a separate initial volume is unhonoured', () => {
    expect(backgroundAudio({ enabled: false, file: 'hold-music' }, [])).toBeNull();
    const unhonoured: Unhonoured = [];
    expect(backgroundAudio({ file: 'hold-music', initial_volume: 0.1, volume: 0.5 }, unhonoured)).toMatchObject({
      ambientSound: { source: voice.BuiltinAudioClip.HOLD_MUSIC, volume: 0.5 },
    });
    expect(membersOf(unhonoured)).toEqual(['background_sound.initial_volume']);
  });
});

describe('greeting_config, goodbye_config and room_duration_config', () => {
  const values = { 'prospect.first_name': 'Ada' };

  test('become the call’s script, placeholders filled', () => {
    expect(
      callScript(
        {
          agent_speaks_first: true,
          greeting: 'Hello {{prospect.first_name}}!',
          pause_before_first_message: 400,
          voice_mail_message: 'Sorry I missed you, {{prospect.first_name}}.',
          welcome_message_is_generated: false,
        },
        { enabled: true, message: 'Goodbye, {{prospect.first_name}}.' },
        {
          max_duration_min: 5,
          duration_warning_message: 'One more minute.',
          close_room_message: 'Time is up.',
          max_silence_sec: 20,
          silence_message: 'Are you there?',
          wait_for_message_sec: 4,
        },
        values,
      ),
    ).toEqual({
      agentSpeaksFirst: true,
      greeting: 'Hello Ada!',
      greetingIsGenerated: false,
      pauseBeforeGreetingMs: 400,
      waitForCallerMs: 4000,
      voicemailMessage: 'Sorry I missed you, Ada.',
      goodbye: 'Goodbye, Ada.',
      // Ten seconds before LiveKit's own maximum (the gateway sets it on the call), the warning a minute before that.
      closeAtMs: 290_000,
      closeMessage: 'Time is up.',
      warning: { atMs: 230_000, message: 'One more minute.' },
      silenceMessage: 'Are you there?',
    });
  });

  test('without them the agent waits for the callee, says no goodbye and sets no limit of its own', () => {
    expect(callScript(null, { enabled: false, message: 'Bye' }, null, values)).toMatchObject({
      agentSpeaksFirst: false,
      greeting: null,
      goodbye: null,
      closeAtMs: null,
      warning: null,
    });
  });
});

describe('the whole agent', () => {
  test('its instructions are the system prompt and the prompt template, with the prospect and pre-call variables', async () => {
    const setup = await buildCall(agent(), job, vendors.providers);
    expect(setup.instructions).toBe(
      'You are Ava, calling for run run_1.\n\nCall Ada Lovelace about the Gold plan (12.5 due).',
    );
    expect(setup.session.llm.model).toBe('gpt-4.1-mini');
    expect(setup.background).toBeNull();
    expect(setup.unhonoured).toEqual([]);
  });

  test('lists every unhonoured member of every configuration at once', async () => {
    const setup = await buildCall(
      agent({
        llm_config: { provider: 'openai', model: 'gpt-4.1-mini', top_k: 5 },
        voice_config: { provider: 'cartesia', model: 'sonic-3', pitch: 3 },
        vad_config: { sample_rate: 48000 },
        extra_config: { use_gender_plugin: 'enhanced' },
      }),
      job,
      vendors.providers,
    );
    expect(membersOf(setup.unhonoured)).toEqual([
      'vad_config.sample_rate',
      'llm_config.top_k',
      'voice_config.pitch',
      'extra_config.use_gender_plugin',
    ]);
  });

  test('an agent whose models cannot be built is refused, with the reasons', async () => {
    const refusal = buildCall(
      agent({ transcriber_config: { provider: 'azure', fallbacks: [{ provider: 'google' }] } }),
      job,
      vendors.providers,
    );
    await expect(refusal).rejects.toThrow(UnusableAgentError);
    await expect(refusal).rejects.toMatchObject({
      message: 'the agent has no usable transcriber_config',
      unhonoured: [{ member: 'transcriber_config.provider' }, { member: 'transcriber_config.fallbacks[0].provider' }],
    });
  });
});
