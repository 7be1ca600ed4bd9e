// The agent as the gateway serves it (GET /org/{org}/agents/{id}): the members
// the worker reads, typed by the gateway's own schema (src/domain/agents.ts,
// a type-only import: nothing of the gateway is loaded at run time).
import type { AgentUpdate } from '../../src/domain/agents.ts';

type ConfigMember<K extends keyof AgentUpdate> = NonNullable<AgentUpdate[K]>;

export type LlmConfig = ConfigMember<'llm_config'>;
export type TranscriberConfig = ConfigMember<'transcriber_config'>;
export type VoiceConfig = ConfigMember<'voice_config'>;
export type VadConfig = ConfigMember<'vad_config'>;
export type ExtraConfig = ConfigMember<'extra_config'>;
export type GreetingConfig = ConfigMember<'greeting_config'>;
export type GoodbyeConfig = ConfigMember<'goodbye_config'>;
export type BackgroundSound = ConfigMember<'background_sound'>;
export type RoomDurationConfig = ConfigMember<'room_duration_config'>;

/** The agent's members the worker uses; every configuration is null when unset. */
export interface GatewayAgent {
  id: string;
  name: string;
  prompt_template: string;
  llm_config: LlmConfig | null;
  transcriber_config: TranscriberConfig | null;
  voice_config: VoiceConfig | null;
  vad_config: VadConfig | null;
  extra_config: ExtraConfig | null;
  greeting_config: GreetingConfig | null;
  goodbye_config: GoodbyeConfig | null;
  background_sound: BackgroundSound | null;
  room_duration_config: RoomDurationConfig | null;
  /** Sent by the gateway before the call: its answer reaches the worker as the dispatch's `dynamic_variables`. */
  precall_webhook: unknown;
}
