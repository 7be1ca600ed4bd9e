// The agent's configuration objects, exactly as SPEC.md's update request
// describes them (wire names, bounds inclusive, required members). These zod
// schemas are the single definition: they validate GraphQL input and REST
// bodies (src/domain/agents.ts), shape the agent record (src/records/agents.ts),
// generate the GraphQL object and input types (src/schema/json-schema-types.ts)
// and the OpenAPI document. Unknown members are refused.
import { z } from 'zod';
import { fraction, int } from './values.ts';

const llmProviders = ['openai', 'anthropic', 'google', 'groq', 'azure'] as const;
const transcriberProviders = ['deepgram', 'assemblyai', 'elevenlabs', 'google', 'azure'] as const;
/** What kind of agent it is. */
export const agentTypes = ['voice', 'chat', 'video'] as const;

const sampleRate = () => int(8000, 48000);

const thinkingSound = z
  .strictObject({
    sound: z.string().meta({ description: 'The sound: a file or a preset name' }),
    probability: fraction().optional().meta({ description: 'The chance it plays at each wait' }),
    volume: fraction().optional().meta({ description: 'Its volume, a fraction of full volume' }),
  })
  .meta({ id: 'ThinkingSound', description: 'A sound played while the agent waits for its model.' });

const backgroundSound = z
  .strictObject({
    enabled: z.boolean().optional().meta({ description: 'Whether it plays' }),
    file: z.string().meta({ description: 'The sound: a file or a preset name' }),
    initial_volume: fraction()
      .optional()
      .meta({ description: 'Its volume as the call starts, a fraction of full volume' }),
    volume: fraction().optional().meta({ description: 'Its volume during the call, a fraction of full volume' }),
    thinking_sound: z
      .array(thinkingSound)
      .optional()
      .meta({ description: 'Sounds played while the agent waits for its model' }),
  })
  .meta({ id: 'BackgroundSound', description: 'Ambient sound played during the call.' });

const extraConfig = z
  .strictObject({
    allow_interruptions: z.boolean().optional().meta({ description: 'Whether the caller may interrupt the agent' }),
    interruption_sensitivity: fraction().optional().meta({ description: 'How readily speech interrupts the agent' }),
    min_words: int(0).optional().meta({ description: 'Words the caller must say to interrupt' }),
    turn_detector_enabled: z
      .boolean()
      .optional()
      .meta({ description: "Whether a model detects the end of the caller's turn" }),
    turn_detector_is_multilingual: z
      .boolean()
      .optional()
      .meta({ description: 'Whether the turn detector takes several languages' }),
    turn_detector_model_type: z.string().optional().meta({ description: 'The turn detector model' }),
    use_gender_plugin: z
      .enum(['none', 'pitch', 'enhanced', 'enhanced-multi'])
      .optional()
      .meta({ description: "How the caller's voice gender is detected" }),
  })
  .meta({ id: 'ExtraConfig', description: 'Turn taking and interruptions.' });

const goodbyeConfig = z
  .strictObject({
    enabled: z.boolean().optional().meta({ description: 'Whether the agent says goodbye' }),
    message: z.string().max(500).optional().meta({ description: 'What it says' }),
  })
  .meta({ id: 'GoodbyeConfig', description: 'What the agent says as it ends the call.' });

const greetingConfig = z
  .strictObject({
    agent_speaks_first: z.boolean().optional().meta({ description: 'Whether the agent speaks before the caller' }),
    greeting: z.string().optional().meta({ description: 'The first thing the agent says' }),
    pause_before_first_message: int(0)
      .optional()
      .meta({ description: 'A pause before the first message, in the voice provider’s unit' }),
    voice_mail_message: z.string().optional().meta({ description: 'What the agent leaves on a voice mail' }),
    welcome_message_is_generated: z.boolean().optional().meta({ description: 'Whether the model writes the greeting' }),
  })
  .meta({ id: 'GreetingConfig', description: 'How the call opens.' });

interface LlmConfig {
  provider: (typeof llmProviders)[number];
  model: string;
  system_prompt?: string;
  temperature?: number;
  top_p?: number;
  top_k?: number;
  max_tokens?: number;
  frequency_penalty?: number;
  presence_penalty?: number;
  parallel_tool_calls?: boolean;
  fallbacks?: LlmConfig[];
}

const llmConfig: z.ZodType<LlmConfig> = z
  .strictObject({
    provider: z.enum(llmProviders).meta({ description: 'The model vendor' }),
    model: z.string().meta({ description: 'The model, as the vendor names it' }),
    system_prompt: z.string().optional().meta({ description: 'The system prompt' }),
    temperature: z.number().min(0).max(2).optional().meta({ description: 'Sampling temperature' }),
    top_p: fraction().optional().meta({ description: 'Nucleus sampling: the probability mass sampled from' }),
    top_k: int(1).optional().meta({ description: 'Sampling from the K likeliest tokens (one vendor only)' }),
    max_tokens: int(1).optional().meta({ description: 'Tokens one answer may hold at most' }),
    frequency_penalty: z
      .number()
      .min(-2)
      .max(2)
      .optional()
      .meta({ description: 'Penalty on tokens by how often they appeared' }),
    presence_penalty: z
      .number()
      .min(-2)
      .max(2)
      .optional()
      .meta({ description: 'Penalty on tokens that appeared (one vendor only)' }),
    parallel_tool_calls: z
      .boolean()
      .optional()
      .meta({ description: 'Whether the model may call several tools at once' }),
    get fallbacks() {
      return z
        .array(llmConfig)
        .optional()
        .meta({ description: 'Models tried in order when the primary provider fails' });
    },
  })
  .meta({
    id: 'LlmConfig',
    description: 'The language model; `fallbacks` are tried in order when the primary provider fails.',
  });

export const precallWebhook = z
  .strictObject({
    method: z.enum(['GET', 'POST', 'PUT', 'PATCH']).meta({ description: 'The HTTP method' }),
    url: z.string().meta({ description: 'The URL requested' }),
    headers: z
      .record(z.string(), z.string())
      .optional()
      .meta({ description: 'Request headers, a JSON object of strings' }),
    body_template: z
      .record(z.string(), z.unknown())
      .optional()
      .meta({ description: 'The request body, a JSON object' }),
    timeout_seconds: int(1, 60).optional().meta({ description: 'Seconds to wait for the answer' }),
  })
  .meta({ id: 'PrecallWebhook', description: 'A request the service makes before each call.' });

const roomDurationConfig = z
  .strictObject({
    close_room_message: z
      .string()
      .optional()
      .meta({ description: 'What the agent says as the call reaches its maximum duration' }),
    duration_warning_message: z
      .string()
      .optional()
      .meta({ description: 'What the agent says as the call nears its maximum duration' }),
    max_duration_min: int(1).optional().meta({ description: 'Minutes a call may last' }),
    max_silence_sec: int(0).optional().meta({ description: 'Seconds of silence before the call ends' }),
    silence_message: z.string().optional().meta({ description: 'What the agent says after a silence' }),
    wait_for_message_sec: int(0).optional().meta({ description: 'Seconds the agent waits for the caller to speak' }),
  })
  .meta({ id: 'RoomDurationConfig', description: 'How long a call may last, and what is said as it ends.' });

interface TranscriberConfig {
  provider: (typeof transcriberProviders)[number];
  fallbacks?: TranscriberConfig[];
  [member: string]: unknown;
}

const transcriberConfig: z.ZodType<TranscriberConfig> = z
  .strictObject({
    provider: z.enum(transcriberProviders).meta({ description: 'The speech-to-text vendor' }),
    model: z.string().optional().meta({ description: 'The model, as the vendor names it' }),
    language: z.string().optional().meta({ description: 'The language spoken, e.g. `en`' }),
    get fallbacks() {
      return z
        .array(transcriberConfig)
        .optional()
        .meta({ description: 'Transcribers tried in order when the primary provider fails' });
    },
    preemptive_generation: z
      .boolean()
      .optional()
      .meta({ description: 'Whether the answer is prepared before the turn surely ended' }),
    preemptive_min_confidence: fraction()
      .optional()
      .meta({ description: 'The confidence preemptive generation needs' }),
    eager_eot_threshold: fraction()
      .optional()
      .meta({ description: 'End-of-turn confidence at which an answer is prepared' }),
    eot_threshold: fraction().optional().meta({ description: 'End-of-turn confidence at which the turn ends' }),
    eot_timeout_ms: int(0)
      .optional()
      .meta({ description: 'Milliseconds after which a turn ends whatever the confidence' }),
    commit_strategy: z
      .enum(['manual', 'vad'])
      .optional()
      .meta({ description: 'What commits a transcript (one vendor only)' }),
    interim_results: z
      .boolean()
      .optional()
      .meta({ description: 'Whether partial transcripts are sent (one vendor only)' }),
    keyterms: z.array(z.string()).optional().meta({ description: 'Terms to recognize better (one model family only)' }),
    keywords: z.array(z.string()).optional().meta({ description: 'Words to recognize better' }),
    detect_language: z
      .boolean()
      .optional()
      .meta({ description: 'Whether the language is detected (kept for backward compatibility)' }),
    enable_logging: z.boolean().optional().meta({ description: 'Whether the vendor may log the audio' }),
    endpointing: int(0).optional().meta({ description: 'Silence that ends an utterance, in the vendor’s unit' }),
    endpointing_ms: int(0).optional().meta({ description: 'Milliseconds of silence that end an utterance' }),
    energy_filter: z.boolean().optional().meta({ description: 'Whether quiet background audio is filtered out' }),
    filler_words: z.boolean().optional().meta({ description: 'Whether "um" and "uh" are transcribed' }),
    include_language_detection: z
      .boolean()
      .optional()
      .meta({ description: 'Whether transcripts say the language detected' }),
    include_timestamps: z.boolean().optional().meta({ description: 'Whether transcripts carry word timestamps' }),
    min_speech_duration_ms: int(0).optional().meta({ description: 'Milliseconds of speech that count as speech' }),
    no_delay: z.boolean().optional().meta({ description: 'Whether transcripts are sent without buffering' }),
    num_channels: int(1).optional().meta({ description: 'Audio channels' }),
    profanity_filter: z.boolean().optional().meta({ description: 'Whether profanity is masked' }),
    punctuate: z.boolean().optional().meta({ description: 'Whether transcripts are punctuated' }),
    sample_rate: sampleRate().optional().meta({ description: 'Audio sample rate, in Hz' }),
    smart_format: z.boolean().optional().meta({ description: 'Whether numbers, dates and the like are formatted' }),
    vad_events: z.boolean().optional().meta({ description: 'Whether voice activity events are sent' }),
  })
  .meta({
    id: 'TranscriberConfig',
    description: 'Speech to text; `fallbacks` are tried in order when the primary provider fails.',
  });

const vadConfig = z
  .strictObject({
    activation_threshold: fraction().optional().meta({ description: 'The speech probability that counts as speech' }),
    max_buffered_speech: int(1)
      .optional()
      .meta({ description: 'Speech kept in the buffer at most, in the detector’s unit' }),
    min_silence_duration: z.number().min(0).optional().meta({ description: 'Silence that ends speech, in seconds' }),
    min_speech_duration: z.number().min(0).optional().meta({ description: 'Speech that starts speech, in seconds' }),
    prefix_padding_duration: z
      .number()
      .min(0)
      .optional()
      .meta({ description: 'Audio kept before speech starts, in seconds' }),
    sample_rate: sampleRate().optional().meta({ description: 'Audio sample rate, in Hz' }),
  })
  .meta({ id: 'VadConfig', description: 'Voice activity detection.' });

interface VoiceConfig {
  provider: string;
  model: string;
  fallbacks?: VoiceConfig[];
  [member: string]: unknown;
}

const voiceConfig: z.ZodType<VoiceConfig> = z
  .strictObject({
    provider: z.string().meta({ description: 'The text-to-speech vendor' }),
    model: z.string().meta({ description: 'The model, as the vendor names it' }),
    voice_id: z.string().optional().meta({ description: 'The voice, as the vendor names it' }),
    language: z.string().optional().meta({ description: 'The language spoken, e.g. `en`' }),
    emotion: z.array(z.string()).optional().meta({ description: 'Emotions the voice conveys' }),
    encoding: z.string().optional().meta({ description: 'The audio output encoding' }),
    sample_rate: sampleRate().optional().meta({ description: 'Audio sample rate, in Hz' }),
    speed: z.number().min(0.1).max(5).optional().meta({ description: 'Speaking speed, 1 being normal' }),
    stability: fraction().optional().meta({ description: 'How steady the voice stays' }),
    similarity_boost: fraction().optional().meta({ description: 'How closely the voice keeps to the original' }),
    style: fraction().optional().meta({ description: 'How much style the voice adds' }),
    use_speaker_boost: z.boolean().optional().meta({ description: 'Whether the likeness to the speaker is boosted' }),
    volume: z.number().min(0.5).max(10).optional().meta({ description: 'Loudness, 1 being normal' }),
    pitch: z.number().min(-12).max(12).optional().meta({ description: 'Pitch shift in semitones (one vendor only)' }),
    intensity: z.number().min(-100).max(100).optional().meta({ description: 'Intensity (one vendor only)' }),
    timbre: z.number().min(-100).max(100).optional().meta({ description: 'Timbre (one vendor only)' }),
    enable_ssml_parsing: z
      .boolean()
      .optional()
      .meta({ description: 'Whether SSML in the text is read as markup (one vendor only)' }),
    enable_ssml_tags: z
      .boolean()
      .optional()
      .meta({ description: 'Whether SSML tags are read as markup (another vendor; kept for backward compatibility)' }),
    enhanced_named_entities: z
      .boolean()
      .optional()
      .meta({ description: 'Whether names are pronounced with more care (one vendor only)' }),
    preprocessing: z
      .boolean()
      .optional()
      .meta({ description: 'Whether the text is cleaned before it is spoken (one vendor only)' }),
    text_normalization: z
      .boolean()
      .optional()
      .meta({ description: 'Whether numbers and abbreviations are spelled out (two vendors only)' }),
    instructions: z.string().optional().meta({ description: 'How to speak: tone, accent, pace' }),
    user_instructions: z
      .string()
      .min(3)
      .max(1000)
      .optional()
      .meta({ description: 'How to speak, in the words of one vendor’s API' }),
    get fallbacks() {
      return z
        .array(voiceConfig)
        .optional()
        .meta({ description: 'Voices tried in order when the primary provider fails' });
    },
  })
  .meta({
    id: 'VoiceConfig',
    description: 'Text to speech; `fallbacks` are tried in order when the primary provider fails.',
  });

/** The configuration members of an agent, by wire name, each stored as its JSON value. */
export const agentConfigMembers = {
  background_sound: backgroundSound,
  extra_config: extraConfig,
  goodbye_config: goodbyeConfig,
  greeting_config: greetingConfig,
  llm_config: llmConfig,
  precall_webhook: precallWebhook,
  room_duration_config: roomDurationConfig,
  transcriber_config: transcriberConfig,
  vad_config: vadConfig,
  voice_config: voiceConfig,
} as const;
