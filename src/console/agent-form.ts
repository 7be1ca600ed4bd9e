// The agent page's form: which members of each configuration object it
// edits, and how a configuration object goes from what the API shows (its
// `json`, REST's snake_case names) to what the agent update's mutation takes (GraphQL's
// camelCase input) and back. The agent update replaces a configuration object whole, so a
// section changed is sent whole, the members the form does not show included.
import type { ConfigMember, WireConfig } from '../console-operations/console-operations.ts';
import { camelCase, snakeCase } from '../records/names.ts';

type FieldKind = 'text' | 'textarea' | 'number' | 'checkbox' | 'select';

export interface FieldSpec {
  /** The member's wire name inside its object (`temperature`). */
  key: string;
  label: string;
  kind: FieldKind;
  options?: readonly string[];
  step?: number;
  min?: number;
  max?: number;
  hint?: string;
}

export interface SectionSpec {
  /** The configuration object, or null for the agent's own members. */
  member: ConfigMember | null;
  title: string;
  blurb: string;
  fields: FieldSpec[];
}

export const sections: SectionSpec[] = [
  {
    member: null,
    title: 'General',
    blurb: 'Who the agent is.',
    fields: [
      { key: 'name', label: 'Name', kind: 'text' },
      { key: 'type', label: 'Type', kind: 'select', options: ['voice', 'chat', 'video'] },
      { key: 'prompt_template', label: 'Prompt template', kind: 'textarea' },
    ],
  },
  {
    member: 'llmConfig',
    title: 'Language model',
    blurb: 'The model that writes what the agent says; fallbacks are tried in order when its provider fails.',
    fields: [
      {
        key: 'provider',
        label: 'Provider',
        kind: 'select',
        options: ['openai', 'anthropic', 'google', 'groq', 'azure'],
      },
      { key: 'model', label: 'Model', kind: 'text' },
      { key: 'temperature', label: 'Temperature', kind: 'number', step: 0.1, min: 0, max: 2, hint: '0 to 2' },
      { key: 'max_tokens', label: 'Max tokens', kind: 'number', step: 1, min: 1 },
      { key: 'top_p', label: 'Top p', kind: 'number', step: 0.05, min: 0, max: 1, hint: '0 to 1' },
      { key: 'system_prompt', label: 'System prompt', kind: 'textarea' },
    ],
  },
  {
    member: 'voiceConfig',
    title: 'Voice',
    blurb: 'Text to speech; fallback voices are tried in order when its provider fails.',
    fields: [
      { key: 'provider', label: 'Provider', kind: 'text' },
      { key: 'model', label: 'Model', kind: 'text' },
      { key: 'voice_id', label: 'Voice', kind: 'text' },
      { key: 'language', label: 'Language', kind: 'text' },
      { key: 'speed', label: 'Speed', kind: 'number', step: 0.1, min: 0.1, max: 5, hint: '1 is normal' },
      { key: 'stability', label: 'Stability', kind: 'number', step: 0.05, min: 0, max: 1 },
    ],
  },
  {
    member: 'transcriberConfig',
    title: 'Transcriber',
    blurb: 'Speech to text; fallbacks are tried in order when its provider fails.',
    fields: [
      {
        key: 'provider',
        label: 'Provider',
        kind: 'select',
        options: ['deepgram', 'assemblyai', 'elevenlabs', 'google', 'azure'],
      },
      { key: 'model', label: 'Model', kind: 'text' },
      { key: 'language', label: 'Language', kind: 'text' },
      { key: 'endpointing_ms', label: 'Endpointing (ms)', kind: 'number', step: 10, min: 0 },
    ],
  },
  {
    member: 'vadConfig',
    title: 'Voice activity detection',
    blurb: 'When the caller counts as speaking.',
    fields: [
      { key: 'activation_threshold', label: 'Activation threshold', kind: 'number', step: 0.05, min: 0, max: 1 },
      { key: 'min_speech_duration', label: 'Min speech (s)', kind: 'number', step: 0.05, min: 0 },
      { key: 'min_silence_duration', label: 'Min silence (s)', kind: 'number', step: 0.05, min: 0 },
    ],
  },
  {
    member: 'greetingConfig',
    title: 'Greeting',
    blurb: 'How the call opens.',
    fields: [
      { key: 'agent_speaks_first', label: 'Agent speaks first', kind: 'checkbox' },
      { key: 'greeting', label: 'Greeting', kind: 'textarea' },
      { key: 'voice_mail_message', label: 'Voice mail message', kind: 'textarea' },
    ],
  },
  {
    member: 'precallWebhook',
    title: 'Pre-call webhook',
    blurb: 'A request the gateway makes before each call; it may skip the call or add variables.',
    fields: [
      { key: 'method', label: 'Method', kind: 'select', options: ['POST', 'GET', 'PUT', 'PATCH'] },
      { key: 'url', label: 'URL', kind: 'text' },
      { key: 'timeout_seconds', label: 'Timeout (s)', kind: 'number', step: 1, min: 1, max: 60 },
    ],
  },
];

/** The configuration objects shown read-only, under "Other settings". */
export const otherMembers: ConfigMember[] = ['extraConfig', 'goodbyeConfig', 'roomDurationConfig', 'backgroundSound'];

/** Members whose value is free-form JSON: their keys are the user's, kept as they are. */
const FREE_FORM = new Set(['headers', 'body_template']);

/** A configuration object as REST shows it, as the GraphQL input takes it (fallbacks and their members too). */
export function inputOf(wire: unknown): unknown {
  if (Array.isArray(wire)) return wire.map(inputOf);
  if (wire === null || typeof wire !== 'object') return wire;
  return Object.fromEntries(
    Object.entries(wire).map(([key, value]) => [camelCase(key), FREE_FORM.has(key) ? value : inputOf(value)]),
  );
}

/** A problem the agent update reported, from `extensions.detail`. */
export interface Problem {
  path: string;
  rule?: string;
  message: string;
}

/** The id of a field's input (and, with `-error`, of its message), from its error path. */
export const fieldId = (path: string) => `field-${path.replace(/[^a-z0-9]+/gi, '-')}`;

/** The path an error names for a field: `llm_config.temperature`, or `name` for the agent's own. */
export const pathOf = (section: SectionSpec, field: FieldSpec) =>
  section.member ? `${snakeCase(section.member)}.${field.key}` : field.key;

export type Draft = { general: WireConfig } & Partial<Record<ConfigMember, WireConfig | null>>;

/** A value typed in a field, as its member holds it; undefined removes the member. */
export function parseField(field: FieldSpec, raw: string | boolean): unknown {
  if (field.kind === 'checkbox') return raw;
  const text = String(raw);
  if (text.trim() === '') return undefined;
  if (field.kind === 'number') return Number(text);
  return text;
}
