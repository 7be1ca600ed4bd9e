// What a workflow definition's steps do. A definition is
// `{ "steps": [{ "id": "...", "type": "call" | "webhook" | "wait", ... }] }`;
// each type has a handler, and more can be registered (pluggable). A handler
// throws StepFailed to fail the run; it must stop when its signal aborts.
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import type { ClaimedRun } from './run-store.ts';

export class StepFailed extends Error {}

export const step = z.looseObject({ id: z.string().min(1), type: z.string().min(1) });
export type Step = z.infer<typeof step>;

export const definitionSteps = z.looseObject({ steps: z.array(step).default([]) });

export interface StepContext {
  run: ClaimedRun;
  signal: AbortSignal;
  /** Takes a slot of an outbound trunk (its max_concurrency), waiting while it is full; release it after. */
  holdTrunk(trunkId: string): Promise<() => Promise<void>>;
}

export type StepHandler = (step: Step, context: StepContext) => Promise<void>;

export interface SimulatedCalls {
  durationMs: number;
  /** 0 to 1: the share of calls that fail. */
  failureRate: number;
}

const callStep = z.looseObject({ trunk_id: z.string().min(1).optional() });
const webhookStep = z.looseObject({
  url: z.url(),
  method: z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']).default('POST'),
  headers: z.record(z.string(), z.string()).default({}),
  timeout_ms: z.number().int().min(1).max(60_000).default(10_000),
});
const waitStep = z.looseObject({ seconds: z.number().min(0).max(86_400) });

function parseStep<S extends z.ZodType>(schema: S, value: Step): z.output<S> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const [issue] = parsed.error.issues;
    throw new StepFailed(`step ${value.id}: ${issue?.path.join('.') || 'step'} ${issue?.message ?? 'is invalid'}`);
  }
  return parsed.data;
}

/**
 * The telephony step. This build simulates the call (a configurable duration
 * and failure rate) so the whole loop runs on one laptop; a real dialer
 * registers its own `call` handler.
 */
export function simulatedCall(calls: SimulatedCalls): StepHandler {
  return async (value, context) => {
    const { trunk_id: trunkId } = parseStep(callStep, value);
    const release = trunkId ? await context.holdTrunk(trunkId) : async () => {};
    try {
      await sleep(calls.durationMs, undefined, { signal: context.signal });
      if (Math.random() < calls.failureRate) throw new StepFailed(`step ${value.id}: the call was not answered`);
    } finally {
      await release();
    }
  };
}

/** A real HTTP request with a timeout; any status but 2xx fails the run. */
export const webhook: StepHandler = async (value, context) => {
  const { url, method, headers, timeout_ms: timeoutMs } = parseStep(webhookStep, value);
  const body = { run_id: context.run.id, batch_id: context.run.batchId, prospect_id: context.run.prospectId, step_id: value.id };
  let response: Response;
  try {
    response = await fetch(url, {
      method,
      headers: { 'content-type': 'application/json', ...headers },
      body: method === 'GET' ? undefined : JSON.stringify(body),
      signal: AbortSignal.any([context.signal, AbortSignal.timeout(timeoutMs)]),
    });
  } catch (error) {
    if (context.signal.aborted) throw error;
    throw new StepFailed(`step ${value.id}: ${method} ${url} failed: ${(error as Error).message}`);
  }
  await response.body?.cancel();
  if (!response.ok) throw new StepFailed(`step ${value.id}: ${method} ${url} answered ${response.status}`);
};

export const wait: StepHandler = async (value, context) => {
  const { seconds } = parseStep(waitStep, value);
  await sleep(seconds * 1000, undefined, { signal: context.signal });
};

export function defaultStepHandlers(calls: SimulatedCalls): Map<string, StepHandler> {
  return new Map<string, StepHandler>([
    ['call', simulatedCall(calls)],
    ['webhook', webhook],
    ['wait', wait],
  ]);
}
