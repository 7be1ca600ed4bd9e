// Drives the real plugins against the vendor capture (./vendor-capture.ts):
// each helper makes a plugin send its first request and returns it.
import { type APIConnectOptions, llm, type stt, type tts } from '@livekit/agents';
import { AudioFrame } from '@livekit/rtc-node';
import { afterAll, beforeAll } from 'vitest';
import type { Providers, Vendor } from '../../src/config.ts';
import type { Unhonoured } from '../../src/mapping/unhonoured.ts';
import { startVendorCapture, type VendorCapture } from './vendor-capture.ts';

/** One attempt, no retry: the capture never answers. */
export const once: APIConnectOptions = { maxRetry: 0, timeoutMs: 60_000, retryIntervalMs: 0 };

/** Each vendor's dummy key is `dummy-<vendor>`. */
export const dummyKey = (vendor: Vendor) => `dummy-${vendor}`;

/**
 * A capture for the file's tests; `providers` are every vendor with a dummy key
 * (`dummy-<vendor>`), answering at the capture in a new session each time they are read.
 */
export function useCapturedVendors() {
  let capture: VendorCapture;
  beforeAll(async () => {
    capture = await startVendorCapture();
  });
  afterAll(() => capture.close());
  return {
    get capture() {
      return capture;
    },
    get providers(): Providers {
      const url = capture.newSession();
      const at = (vendor: Vendor) => ({
        apiKey: dummyKey(vendor),
        // ElevenLabs' plugin takes its base URL with the API version.
        baseUrl: vendor === 'elevenlabs' ? `${url}/v1` : url,
      });
      return {
        vendors: {
          openai: at('openai'),
          anthropic: at('anthropic'),
          google: at('google'),
          groq: at('groq'),
          azure: at('azure'),
          deepgram: at('deepgram'),
          elevenlabs: at('elevenlabs'),
          cartesia: at('cartesia'),
        },
        livekit: { url: 'ws://127.0.0.1:1', apiKey: 'dummy-livekit-key', apiSecret: 'dummy-livekit-secret' },
      };
    },
  };
}

const drain = (stream: AsyncIterable<unknown>) =>
  (async () => {
    try {
      for await (const _ of stream);
    } catch {
      // closed by the test
    }
  })();

/** The chat request `model` sends (its JSON body), with `toolCtx` when given. */
export async function chatRequest(capture: VendorCapture, model: llm.LLM, toolCtx?: llm.ToolContextLike) {
  model.on('error', () => {});
  const chatCtx = llm.ChatContext.empty();
  chatCtx.addMessage({ role: 'user', content: 'Hello?' });
  const stream = model.chat({ chatCtx, toolCtx, connOptions: once });
  drain(stream);
  const request = await capture.next();
  stream.close();
  return { ...request, json: JSON.parse(request.body) as Record<string, unknown> };
}

/** The streaming connection `transcriber` opens (its URL's query says its options). */
export async function sttConnection(capture: VendorCapture, transcriber: stt.STT) {
  transcriber.on('error', () => {});
  const stream = transcriber.stream({ connOptions: once });
  // 200 ms of silence: enough for every plugin to send audio once connected.
  for (let frame = 0; frame < 20; frame++) stream.pushFrame(new AudioFrame(new Int16Array(160), 16000, 1, 160));
  const request = await capture.next();
  // Audio arrives once the plugin's side is open too: closing before then is a plugin's unhandled error.
  await request.message();
  stream.close();
  return request;
}

/** The streaming connection `voice` opens, and its first message (JSON). */
export async function ttsStream(capture: VendorCapture, voice: tts.TTS) {
  voice.on('error', () => {});
  const stream = voice.stream({ connOptions: once });
  stream.pushText('Hello there.');
  stream.flush();
  drain(stream);
  const request = await capture.next();
  const message = await request.message();
  stream.close();
  return { ...request, json: JSON.parse(message) as Record<string, unknown> };
}

/** The request `voice` makes to synthesize one sentence (its JSON body); answered with no audio. */
export async function ttsSynthesis(capture: VendorCapture, voice: tts.TTS) {
  voice.on('error', () => {});
  const drained = drain(voice.synthesize('Hello there.', once));
  const request = await capture.next();
  request.reply(200, '');
  await drained;
  return { ...request, json: request.body ? (JSON.parse(request.body) as Record<string, unknown>) : {} };
}

/** The unhonoured members' paths. */
export const membersOf = (unhonoured: Unhonoured) => unhonoured.map((entry) => entry.member);
