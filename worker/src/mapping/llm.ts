// llm_config → a language model of LiveKit Agents: OpenAI, Groq and Anthropic
// through the OpenAI plugin (Groq's and Anthropic's OpenAI-compatible
// endpoints: Agents for Node has no Anthropic plugin), Azure OpenAI through the
// same plugin with Azure's client, Google through the Google plugin; fallbacks
// through llm.FallbackAdapter, tried in order.
import { llm } from '@livekit/agents';
import * as google from '@livekit/agents-plugin-google';
import * as openai from '@livekit/agents-plugin-openai';
import { AzureOpenAI } from 'openai';
import type { LlmConfig } from '../agent.ts';
import type { Providers, VendorAccess } from '../config.ts';
import { type OptionTable, optionsFrom, type Unhonoured, withFallbacks } from './unhonoured.ts';

/** Request members the OpenAI plugin has no option for, sent with every request it makes. */
type ExtraMembers = Record<string, number>;

/**
 * The OpenAI plugin's LLM, sending `extra` members in each request: the plugin
 * takes no frequency or presence penalty, and drops a temperature of 0.
 */
export class OpenAICompatibleLLM extends openai.LLM {
  constructor(
    options: Partial<openai.LLMOptions>,
    readonly extra: ExtraMembers,
  ) {
    super(options);
  }

  override chat(options: Parameters<openai.LLM['chat']>[0]) {
    return super.chat({ ...options, extraKwargs: { ...this.extra, ...options.extraKwargs } });
  }
}

/** Where the OpenAI-compatible vendors answer, unless the environment says otherwise. */
const compatibleEndpoints = {
  openai: undefined,
  groq: 'https://api.groq.com/openai/v1',
  anthropic: 'https://api.anthropic.com/v1/',
} as const;

type OpenAIOptions = Partial<openai.LLMOptions> & { extra?: ExtraMembers };

const openAITable: OptionTable<OpenAIOptions> = {
  model: (model: string) => ({ model }),
  temperature: (temperature: number) => ({ extra: { temperature } }),
  top_p: (topP: number) => ({ topP }),
  max_tokens: (maxCompletionTokens: number) => ({ maxCompletionTokens }),
  frequency_penalty: (frequency_penalty: number) => ({ extra: { frequency_penalty } }),
  presence_penalty: (presence_penalty: number) => ({ extra: { presence_penalty } }),
  parallel_tool_calls: (parallelToolCalls: boolean) => ({ parallelToolCalls }),
};

const googleTable: OptionTable<google.LLMOptions> = {
  model: (model: string) => ({ model }),
  temperature: (temperature: number) => ({ temperature }),
  top_p: (topP: number) => ({ topP }),
  top_k: (topK: number) => ({ topK }),
  max_tokens: (maxOutputTokens: number) => ({ maxOutputTokens }),
  frequency_penalty: (frequencyPenalty: number) => ({ frequencyPenalty }),
  presence_penalty: (presencePenalty: number) => ({ presencePenalty }),
};

/** Members the caller maps: the prompt (the agent's instructions) and the fallbacks. */
const mappedElsewhere = ['provider', 'system_prompt', 'fallbacks'];

function openAIOptions(config: LlmConfig, path: string, unhonoured: Unhonoured) {
  const { extra = {}, ...options } = optionsFrom(
    config,
    openAITable,
    path,
    'the OpenAI plugin',
    unhonoured,
    mappedElsewhere,
  );
  return { options, extra };
}

function buildOne(config: LlmConfig, path: string, providers: Providers, unhonoured: Unhonoured): llm.LLM | null {
  const access: VendorAccess = providers.vendors[config.provider] ?? {};
  if (!access.apiKey) {
    unhonoured.push({
      member: `${path}.provider`,
      reason: `no ${config.provider.toUpperCase()}_API_KEY in the worker's environment`,
    });
    return null;
  }
  switch (config.provider) {
    case 'openai':
    case 'groq':
    case 'anthropic': {
      const { options, extra } = openAIOptions(config, path, unhonoured);
      const baseURL = access.baseUrl ?? compatibleEndpoints[config.provider];
      return new OpenAICompatibleLLM({ ...options, apiKey: access.apiKey, baseURL }, extra);
    }
    case 'azure': {
      if (!access.baseUrl) {
        unhonoured.push({
          member: `${path}.provider`,
          reason: 'no AZURE_BASE_URL (the Azure OpenAI resource endpoint)',
        });
        return null;
      }
      const { options, extra } = openAIOptions(config, path, unhonoured);
      // Azure names deployments, not models: the model names the deployment.
      const client = new AzureOpenAI({
        apiKey: access.apiKey,
        endpoint: access.baseUrl,
        deployment: config.model,
        apiVersion: providers.azureApiVersion ?? '2024-10-21',
        maxRetries: 0,
      });
      return new OpenAICompatibleLLM({ ...options, client }, extra);
    }
    case 'google': {
      const options = optionsFrom(config, googleTable, path, 'the Google plugin', unhonoured, mappedElsewhere);
      return new google.LLM({
        ...options,
        model: config.model,
        apiKey: access.apiKey,
        vertexai: false,
        ...(access.baseUrl ? { httpOptions: { baseUrl: access.baseUrl } } : {}),
      });
    }
  }
}

/**
 * The agent's language model: its llm_config, with its fallbacks behind a
 * FallbackAdapter; null when none can be built (each reason in `unhonoured`).
 * A fallback's own system_prompt cannot be honoured: the adapter's models share
 * one conversation, whose instructions are the primary's.
 */
export function buildLlm(config: LlmConfig, providers: Providers, unhonoured: Unhonoured): llm.LLM | null {
  const models: llm.LLM[] = [];
  for (const entry of withFallbacks(config, 'llm_config')) {
    if (entry.path !== 'llm_config' && entry.config.system_prompt !== undefined) {
      if (entry.config.system_prompt !== config.system_prompt) {
        unhonoured.push({
          member: `${entry.path}.system_prompt`,
          reason: "a fallback model answers in the primary's conversation, under its system prompt",
        });
      }
    }
    const model = buildOne(entry.config, entry.path, providers, unhonoured);
    if (model) models.push(model);
  }
  if (models.length <= 1) return models[0] ?? null;
  return new llm.FallbackAdapter({ llms: models });
}
