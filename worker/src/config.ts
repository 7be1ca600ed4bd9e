// The worker's environment, read once: LiveKit (where it registers), the
// gateway (where it reads agents and reports calls) and the model vendors'
// credentials. A vendor's key is optional: a configuration naming a vendor
// without one is logged as unhonoured and its fallbacks take over.
import { tmpdir } from 'node:os';
import path from 'node:path';
import { z } from 'zod';

/** Vendors a configuration may name, as the environment spells them (`<VENDOR>_API_KEY`, `<VENDOR>_BASE_URL`). */
export const vendors = [
  'openai',
  'anthropic',
  'google',
  'groq',
  'azure',
  'deepgram',
  'elevenlabs',
  'cartesia',
] as const;
export type Vendor = (typeof vendors)[number];

export interface VendorAccess {
  apiKey?: string;
  /** Another endpoint than the vendor's own (a proxy, a region); Azure's is its resource endpoint. */
  baseUrl?: string;
}

/** What the mapping needs to build the plugins: each vendor's access, and LiveKit's keys (LiveKit Inference). */
export interface Providers {
  vendors: Partial<Record<Vendor, VendorAccess>>;
  /** Azure OpenAI's API version (`OPENAI_API_VERSION`). */
  azureApiVersion?: string;
  livekit: { url: string; apiKey: string; apiSecret: string };
}

export interface WorkerConfig {
  agentName: string;
  gateway: { url: string; apiKey: string };
  providers: Providers;
  /** Where calls in flight are journaled (src/journal.ts). */
  stateDir: string;
}

const required = z.string().min(1);

const environment = z.object({
  LIVEKIT_URL: required,
  LIVEKIT_API_KEY: required,
  LIVEKIT_API_SECRET: required,
  LIVEKIT_AGENT_NAME: required,
  GATEWAY_URL: z.url(),
  GATEWAY_API_KEY: required,
  OPENAI_API_VERSION: z.string().optional(),
  WORKER_STATE_DIR: z.string().optional(),
});

/** The worker's configuration from `env`; throws naming every missing or invalid variable. */
export function readConfig(env: NodeJS.ProcessEnv): WorkerConfig {
  const parsed = environment.safeParse(env);
  if (!parsed.success) {
    const names = parsed.error.issues.map((issue) => issue.path.join('.')).join(', ');
    throw new Error(`the worker's environment is incomplete: ${names}`);
  }
  const read = parsed.data;
  const access = (vendor: Vendor): VendorAccess | undefined => {
    const prefix = vendor.toUpperCase();
    const apiKey = env[`${prefix}_API_KEY`] || undefined;
    const baseUrl = env[`${prefix}_BASE_URL`] || undefined;
    return apiKey || baseUrl ? { apiKey, baseUrl } : undefined;
  };
  return {
    agentName: read.LIVEKIT_AGENT_NAME,
    gateway: { url: read.GATEWAY_URL.replace(/\/+$/, ''), apiKey: read.GATEWAY_API_KEY },
    stateDir: read.WORKER_STATE_DIR || path.join(tmpdir(), 'agent-gateway-worker'),
    providers: {
      vendors: Object.fromEntries(vendors.flatMap((vendor) => (access(vendor) ? [[vendor, access(vendor)]] : []))),
      azureApiVersion: read.OPENAI_API_VERSION,
      livekit: { url: read.LIVEKIT_URL, apiKey: read.LIVEKIT_API_KEY, apiSecret: read.LIVEKIT_API_SECRET },
    },
  };
}
