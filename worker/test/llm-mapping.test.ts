// llm_config member by member, read back from the requests the real plugins send.
import { llm } from '@livekit/agents';
import * as google from '@livekit/agents-plugin-google';
import { describe, expect, test } from 'vitest';
import { z } from 'zod';
import type { LlmConfig } from '../src/agent.ts';
import { buildLlm, OpenAICompatibleLLM } from '../src/mapping/llm.ts';
import type { Unhonoured } from '../src/mapping/unhonoured.ts';
import { chatRequest, membersOf, useCapturedVendors } from './support/plugins.ts';

const vendors = useCapturedVendors();

function build(config: LlmConfig, providers = vendors.providers) {
  const unhonoured: Unhonoured = [];
  const model = buildLlm(config, providers, unhonoured);
  return { model: model!, unhonoured };
}

describe('OpenAI (and the OpenAI-compatible vendors)', () => {
  const base: LlmConfig = { provider: 'openai', model: 'gpt-4.1-mini' };

  test.each([
    ['model', { model: 'gpt-4o' }, { model: 'gpt-4o' }],
    // The plugin drops a temperature of 0: the worker sends it itself.
    ['temperature', { temperature: 0 }, { temperature: 0 }],
    ['top_p', { top_p: 0.9 }, { top_p: 0.9 }],
    ['max_tokens', { max_tokens: 120 }, { max_completion_tokens: 120 }],
    ['frequency_penalty', { frequency_penalty: 0.4 }, { frequency_penalty: 0.4 }],
    ['presence_penalty', { presence_penalty: -0.5 }, { presence_penalty: -0.5 }],
  ])('%s reaches the request', async (_member, given, sent) => {
    const { model, unhonoured } = build({ ...base, ...given });
    expect(model).toBeInstanceOf(OpenAICompatibleLLM);
    const request = await chatRequest(vendors.capture, model);
    expect(request.path).toBe('/chat/completions');
    expect(request.headers.authorization).toBe('Bearer dummy-openai');
    expect(request.json).toMatchObject(sent);
    expect(unhonoured).toEqual([]);
  });

  test('parallel_tool_calls reaches the request when the agent has tools', async () => {
    const { model } = build({ ...base, parallel_tool_calls: false });
    const tools = {
      lookup: llm.tool({ description: 'Looks up', parameters: z.object({}), execute: async () => 'ok' }),
    };
    const request = await chatRequest(vendors.capture, model, tools);
    expect(request.json).toMatchObject({ parallel_tool_calls: false });
  });

  test('top_k has no option in the OpenAI plugin: it is unhonoured, by name', async () => {
    const { model, unhonoured } = build({ ...base, top_k: 40 });
    expect(unhonoured).toEqual([{ member: 'llm_config.top_k', reason: 'the OpenAI plugin has no such option' }]);
    const request = await chatRequest(vendors.capture, model);
    expect(request.json).not.toHaveProperty('top_k');
  });

  test('Groq and Anthropic go to their OpenAI-compatible endpoints with their own keys', async () => {
    const ownEndpoints = {
      ...vendors.providers,
      vendors: { groq: { apiKey: 'dummy-groq' }, anthropic: { apiKey: 'dummy-anthropic' } },
    };
    expect(build({ provider: 'groq', model: 'llama-3.3-70b-versatile' }, ownEndpoints).model.provider).toBe(
      'api.groq.com',
    );
    expect(build({ provider: 'anthropic', model: 'claude-sonnet-4-5' }, ownEndpoints).model.provider).toBe(
      'api.anthropic.com',
    );
    const request = await chatRequest(
      vendors.capture,
      build({ provider: 'anthropic', model: 'claude-sonnet-4-5' }).model,
    );
    expect(request.headers.authorization).toBe('Bearer dummy-anthropic');
    expect(request.json).toMatchObject({ model: 'claude-sonnet-4-5' });
  });

  test('Azure names the deployment by the model, with its key and API version', async () => {
    const request = await chatRequest(
      vendors.capture,
      build({ provider: 'azure', model: 'gpt-4o', temperature: 0.2 }).model,
    );
    expect(request.path).toBe('/openai/deployments/gpt-4o/chat/completions');
    expect(request.query.get('api-version')).toBe('2024-10-21');
    expect(request.headers['api-key']).toBe('dummy-azure');
    expect(request.json).toMatchObject({ temperature: 0.2 });
  });
});

describe('Google', () => {
  test.each([
    ['temperature', { temperature: 0.3 }, { temperature: 0.3 }],
    ['top_p', { top_p: 0.8 }, { topP: 0.8 }],
    ['top_k', { top_k: 20 }, { topK: 20 }],
    ['max_tokens', { max_tokens: 64 }, { maxOutputTokens: 64 }],
    ['frequency_penalty', { frequency_penalty: 0.1 }, { frequencyPenalty: 0.1 }],
    ['presence_penalty', { presence_penalty: 0.2 }, { presencePenalty: 0.2 }],
  ])('%s reaches the generation config', async (_member, given, sent) => {
    const { model, unhonoured } = build({ provider: 'google', model: 'gemini-2.5-flash', ...given });
    expect(model).toBeInstanceOf(google.LLM);
    const request = await chatRequest(vendors.capture, model);
    expect(request.path).toBe('/v1beta/models/gemini-2.5-flash:streamGenerateContent');
    expect(request.headers['x-goog-api-key']).toBe('dummy-google');
    expect(request.json.generationConfig).toMatchObject(sent);
    expect(unhonoured).toEqual([]);
  });

  test('parallel_tool_calls has no option in the Google plugin', () => {
    const { unhonoured } = build({ provider: 'google', model: 'gemini-2.5-flash', parallel_tool_calls: true });
    expect(membersOf(unhonoured)).toEqual(['llm_config.parallel_tool_calls']);
  });
});

describe('fallbacks', () => {
  test('are tried in order behind the FallbackAdapter, depth first', async () => {
    const { model, unhonoured } = build({
      provider: 'openai',
      model: 'gpt-4.1-mini',
      fallbacks: [
        { provider: 'google', model: 'gemini-2.5-flash', fallbacks: [{ provider: 'groq', model: 'llama-3.3-70b' }] },
        { provider: 'anthropic', model: 'claude-haiku-4-5', temperature: 0.5 },
      ],
    });
    expect(unhonoured).toEqual([]);
    expect(model).toBeInstanceOf(llm.FallbackAdapter);
    const adapter = model as llm.FallbackAdapter;
    expect(adapter.llms.map((entry) => entry.model)).toEqual([
      'gpt-4.1-mini',
      'gemini-2.5-flash',
      'llama-3.3-70b',
      'claude-haiku-4-5',
    ]);
    // The fallback's own options are its own.
    const request = await chatRequest(vendors.capture, adapter.llms[3]!);
    expect(request.json).toMatchObject({ model: 'claude-haiku-4-5', temperature: 0.5 });
    expect(request.headers.authorization).toBe('Bearer dummy-anthropic');
  });

  test("a fallback's own system prompt and a vendor without a key are unhonoured; the others stand", () => {
    const { google: _google, ...others } = vendors.providers.vendors;
    const { model, unhonoured } = build(
      {
        provider: 'openai',
        model: 'gpt-4.1-mini',
        system_prompt: 'You are Ava.',
        fallbacks: [
          { provider: 'google', model: 'gemini-2.5-flash' },
          { provider: 'openai', model: 'gpt-4o', system_prompt: 'You are Bob.', top_k: 3 },
        ],
      },
      { ...vendors.providers, vendors: others },
    );
    expect(unhonoured).toEqual([
      { member: 'llm_config.fallbacks[0].provider', reason: "no GOOGLE_API_KEY in the worker's environment" },
      {
        member: 'llm_config.fallbacks[1].system_prompt',
        reason: "a fallback model answers in the primary's conversation, under its system prompt",
      },
      { member: 'llm_config.fallbacks[1].top_k', reason: 'the OpenAI plugin has no such option' },
    ]);
    expect((model as llm.FallbackAdapter).llms.map((entry) => entry.model)).toEqual(['gpt-4.1-mini', 'gpt-4o']);
  });

  test('a primary that cannot be built leaves its first fallback alone, without an adapter', () => {
    const { model, unhonoured } = build(
      { provider: 'azure', model: 'gpt-4o', fallbacks: [{ provider: 'openai', model: 'gpt-4o-mini' }] },
      { ...vendors.providers, vendors: { ...vendors.providers.vendors, azure: { apiKey: 'dummy-azure' } } },
    );
    expect(membersOf(unhonoured)).toEqual(['llm_config.provider']);
    expect(model).toBeInstanceOf(OpenAICompatibleLLM);
    expect(model.model).toBe('gpt-4o-mini');
  });
});
