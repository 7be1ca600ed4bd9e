// The agent's configuration objects, exactly as SPEC.md's update request
// describes them (wire names, bounds inclusive, required members). These zod
// schemas are the single definition: they validate GraphQL input and REST
// bodies, generate the GraphQL object and input types (src/schema/
// json-schema-types.ts) and the OpenAPI document. Unknown members are refused.
import { z } from 'zod';
import { fraction, int } from './validation.ts';

export const llmProviders = ['openai', 'anthropic', 'google', 'groq', 'azure'] as const;
export const transcriberProviders = ['deepgram', 'assemblyai', 'elevenlabs', 'google', 'azure'] as const;
export const agentTypes = ['voice', 'chat', 'video'] as const;

const sampleRate = () => int(8000, 48000);

export const thinkingSound = z
  .strictObject({
    sound: z.string(),
    probability: fraction().optional(),
    volume: fraction().optional(),
  })
  .meta({ id: 'ThinkingSound' });

export const backgroundSound = z
  .strictObject({
    enabled: z.boolean().optional(),
    file: z.string(),
    initial_volume: fraction().optional(),
    volume: fraction().optional(),
    thinking_sound: z.array(thinkingSound).optional(),
  })
  .meta({ id: 'BackgroundSound', description: 'Ambient sound played during the call.' });

export const extraConfig = z
  .strictObject({
    allow_interruptions: z.boolean().optional(),
    interruption_sensitivity: fraction().optional(),
    min_words: int(0).optional(),
    turn_detector_enabled: z.boolean().optional(),
    turn_detector_is_multilingual: z.boolean().optional(),
    turn_detector_model_type: z.string().optional(),
    use_gender_plugin: z.enum(['none', 'pitch', 'enhanced', 'enhanced-multi']).optional(),
  })
  .meta({ id: 'ExtraConfig' });

export const goodbyeConfig = z
  .strictObject({
    enabled: z.boolean().optional(),
    message: z.string().max(500).optional(),
  })
  .meta({ id: 'GoodbyeConfig' });

export const greetingConfig = z
  .strictObject({
    agent_speaks_first: z.boolean().optional(),
    greeting: z.string().optional(),
    pause_before_first_message: int(0).optional(),
    voice_mail_message: z.string().optional(),
    welcome_message_is_generated: z.boolean().optional(),
  })
  .meta({ id: 'GreetingConfig' });

export interface LlmConfig {
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

export const llmConfig: z.ZodType<LlmConfig> = z
  .strictObject({
    provider: z.enum(llmProviders),
    model: z.string(),
    system_prompt: z.string().optional(),
    temperature: z.number().min(0).max(2).optional(),
    top_p: fraction().optional(),
    top_k: int(1).optional(),
    max_tokens: int(1).optional(),
    frequency_penalty: z.number().min(-2).max(2).optional(),
    presence_penalty: z.number().min(-2).max(2).optional(),
    parallel_tool_calls: z.boolean().optional(),
    get fallbacks() {
      return z.array(llmConfig).optional();
    },
  })
  .meta({
    id: 'LlmConfig',
    description: 'The language model; `fallbacks` are tried in order when the primary provider fails.',
  });

export const precallWebhook = z
  .strictObject({
    method: z.enum(['GET', 'POST', 'PUT', 'PATCH']),
    url: z.string(),
    headers: z.record(z.string(), z.string()).optional(),
    body_template: z.record(z.string(), z.unknown()).optional(),
    timeout_seconds: int(1, 60).optional(),
  })
  .meta({ id: 'PrecallWebhook', description: 'A request the service makes before each call.' });

export const roomDurationConfig = z
  .strictObject({
    close_room_message: z.string().optional(),
    duration_warning_message: z.string().optional(),
    max_duration_min: int(1).optional(),
    max_silence_sec: int(0).optional(),
    silence_message: z.string().optional(),
    wait_for_message_sec: int(0).optional(),
  })
  .meta({ id: 'RoomDurationConfig' });

export interface TranscriberConfig {
  provider: (typeof transcriberProviders)[number];
  fallbacks?: TranscriberConfig[];
  [member: string]: unknown;
}

export const transcriberConfig: z.ZodType<TranscriberConfig> = z
  .strictObject({
    provider: z.enum(transcriberProviders),
    model: z.string().optional(),
    language: z.string().optional(),
    get fallbacks() {
      return z.array(transcriberConfig).optional();
    },
    preemptive_generation: z.boolean().optional(),
    preemptive_min_confidence: fraction().optional(),
    eager_eot_threshold: fraction().optional(),
    eot_threshold: fraction().optional(),
    eot_timeout_ms: int(0).optional(),
    commit_strategy: z.enum(['manual', 'vad']).optional(),
    interim_results: z.boolean().optional(),
    keyterms: z.array(z.string()).optional(),
    keywords: z.array(z.string()).optional(),
    detect_language: z.boolean().optional(),
    enable_logging: z.boolean().optional(),
    endpointing: int(0).optional(),
    endpointing_ms: int(0).optional(),
    energy_filter: z.boolean().optional(),
    filler_words: z.boolean().optional(),
    include_language_detection: z.boolean().optional(),
    include_timestamps: z.boolean().optional(),
    min_speech_duration_ms: int(0).optional(),
    no_delay: z.boolean().optional(),
    num_channels: int(1).optional(),
    profanity_filter: z.boolean().optional(),
    punctuate: z.boolean().optional(),
    sample_rate: sampleRate().optional(),
    smart_format: z.boolean().optional(),
    vad_events: z.boolean().optional(),
  })
  .meta({
    id: 'TranscriberConfig',
    description: 'Speech to text; `fallbacks` are tried in order when the primary provider fails.',
  });

export const vadConfig = z
  .strictObject({
    activation_threshold: fraction().optional(),
    max_buffered_speech: int(1).optional(),
    min_silence_duration: z.number().min(0).optional(),
    min_speech_duration: z.number().min(0).optional(),
    prefix_padding_duration: z.number().min(0).optional(),
    sample_rate: sampleRate().optional(),
  })
  .meta({ id: 'VadConfig', description: 'Voice activity detection.' });

export interface VoiceConfig {
  provider: string;
  model: string;
  fallbacks?: VoiceConfig[];
  [member: string]: unknown;
}

export const voiceConfig: z.ZodType<VoiceConfig> = z
  .strictObject({
    provider: z.string(),
    model: z.string(),
    voice_id: z.string().optional(),
    language: z.string().optional(),
    emotion: z.array(z.string()).optional(),
    encoding: z.string().optional(),
    sample_rate: sampleRate().optional(),
    speed: z.number().min(0.1).max(5).optional(),
    stability: fraction().optional(),
    similarity_boost: fraction().optional(),
    style: fraction().optional(),
    use_speaker_boost: z.boolean().optional(),
    volume: z.number().min(0.5).max(10).optional(),
    pitch: z.number().min(-12).max(12).optional(),
    intensity: z.number().min(-100).max(100).optional(),
    timbre: z.number().min(-100).max(100).optional(),
    enable_ssml_parsing: z.boolean().optional(),
    enable_ssml_tags: z.boolean().optional(),
    enhanced_named_entities: z.boolean().optional(),
    preprocessing: z.boolean().optional(),
    text_normalization: z.boolean().optional(),
    instructions: z.string().optional(),
    user_instructions: z.string().min(3).max(1000).optional(),
    get fallbacks() {
      return z.array(voiceConfig).optional();
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

/**
 * SPEC.md's agent update request. Every member is optional (E1 is a partial
 * update); a config member given replaces that config object whole, and null
 * clears it. Agent creation uses the same shape with `name` required.
 */
export const agentUpdate = z
  .strictObject({
    name: z.string().min(1).optional(),
    type: z.enum(agentTypes).optional(),
    prompt_template: z.string().optional(),
    default_functions: z.array(z.string()).optional(),
    plugins: z.array(z.unknown()).optional(),
    ...Object.fromEntries(
      Object.entries(agentConfigMembers).map(([name, schema]) => [name, schema.nullable().optional()]),
    ),
  })
  .meta({ id: 'AgentUpdate' }) as z.ZodType<AgentUpdate>;

export type AgentConfigMember = keyof typeof agentConfigMembers;

export type AgentUpdate = {
  name?: string;
  type?: (typeof agentTypes)[number];
  prompt_template?: string;
  default_functions?: string[];
  plugins?: unknown[];
} & { [K in AgentConfigMember]?: z.output<(typeof agentConfigMembers)[K]> | null };

export const agentCreate = (agentUpdate as unknown as z.ZodObject).extend({ name: z.string().min(1) }).meta({
  id: 'AgentCreate',
}) as unknown as z.ZodType<AgentUpdate & { name: string }>;
