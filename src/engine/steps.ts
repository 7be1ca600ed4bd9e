// What a workflow definition's steps do besides calls (the engine places
// those itself, through its dialer: run-engine.ts). Each type has a handler,
// and more can be registered (pluggable). A handler throws StepFailedError to fail
// the run; it must stop when its signal aborts.
import { setTimeout as sleep } from 'node:timers/promises';
import type { z } from 'zod';
import { type Step, waitStep, webhookStep } from '../domain/workflow-definition.ts';
import { type OutboundPolicy, OutboundRequestError, sendOutbound } from '../outbound/request.ts';
import type { ClaimedRun } from './run-store.ts';

export class StepFailedError extends Error {}

/** The organization's signature headers for a request body (none when it has no signing secret). */
export type Signer = (body: string) => Promise<Record<string, string>>;

interface StepContext {
  run: ClaimedRun;
  signal: AbortSignal;
  sign: Signer;
  /** Where the step's requests may go (WEBHOOK_ALLOW_PRIVATE). */
  outbound: OutboundPolicy;
}

export type StepHandler = (step: Step, context: StepContext) => Promise<void>;

/** The step's members by its type's schema (checked at publish; a version older than a rule fails here). */
export function parseStep<S extends z.ZodType>(schema: S, value: Step): z.output<S> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const [issue] = parsed.error.issues;
    throw new StepFailedError(`step ${value.id}: ${issue?.path.join('.') || 'step'} ${issue?.message ?? 'is invalid'}`);
  }
  return parsed.data;
}

/** A real HTTP request (the guarded client) with a timeout; any status but 2xx fails the run. */
const webhook: StepHandler = async (value, context) => {
  const { url, method, headers, timeout_ms: timeoutMs } = parseStep(webhookStep, value);
  const body =
    method === 'GET'
      ? undefined
      : JSON.stringify({
          run_id: context.run.id,
          batch_id: context.run.batchId,
          prospect_id: context.run.prospectId,
          step_id: value.id,
        });
  const ownHeaders = { 'content-type': 'application/json', ...(await context.sign(body ?? '')) };
  let status: number;
  try {
    ({ status } = await sendOutbound(
      { method, url, headers, ownHeaders, body },
      { policy: context.outbound, timeoutMs, signal: context.signal, maxResponseBytes: 0 },
    ));
  } catch (error) {
    if (!(error instanceof OutboundRequestError)) throw error;
    throw new StepFailedError(`step ${value.id}: ${method} ${url} failed: ${error.message}`);
  }
  if (status < 200 || status >= 300) throw new StepFailedError(`step ${value.id}: ${method} ${url} answered ${status}`);
};

const wait: StepHandler = async (value, context) => {
  const { seconds } = parseStep(waitStep, value);
  await sleep(seconds * 1000, undefined, { signal: context.signal });
};

export function defaultStepHandlers(): Map<string, StepHandler> {
  return new Map<string, StepHandler>([
    ['webhook', webhook],
    ['wait', wait],
  ]);
}
