// What a workflow definition's steps do besides calls (the engine places
// those itself, through its dialer: run-engine.ts). Each type has a handler,
// and more can be registered (pluggable). A handler throws StepFailed to fail
// the run; it must stop when its signal aborts.
import { setTimeout as sleep } from 'node:timers/promises';
import type { z } from 'zod';
import { withDeadline } from '../deadline.ts';
import { type Step, waitStep, webhookStep } from '../domain/workflow-definition.ts';
import type { ClaimedRun } from './run-store.ts';

export class StepFailed extends Error {}

/** The organization's signature headers for a request body (none when it has no signing secret). */
export type Signer = (body: string) => Promise<Record<string, string>>;

interface StepContext {
  run: ClaimedRun;
  signal: AbortSignal;
  sign: Signer;
}

export type StepHandler = (step: Step, context: StepContext) => Promise<void>;

/** The step's members by its type's schema (checked at publish; a version older than a rule fails here). */
export function parseStep<S extends z.ZodType>(schema: S, value: Step): z.output<S> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const [issue] = parsed.error.issues;
    throw new StepFailed(`step ${value.id}: ${issue?.path.join('.') || 'step'} ${issue?.message ?? 'is invalid'}`);
  }
  return parsed.data;
}

/** A real HTTP request with a timeout; any status but 2xx fails the run. */
const webhook: StepHandler = async (value, context) => {
  const { url, method, headers, timeout_ms: timeoutMs } = parseStep(webhookStep, value);
  const body =
    method === 'GET'
      ? ''
      : JSON.stringify({
          run_id: context.run.id,
          batch_id: context.run.batchId,
          prospect_id: context.run.prospectId,
          step_id: value.id,
        });
  const signed = { 'content-type': 'application/json', ...headers, ...(await context.sign(body)) };
  let response: Response;
  try {
    response = await withDeadline(context.signal, timeoutMs, async (signal) => {
      const answer = await fetch(url, { method, headers: signed, body: method === 'GET' ? undefined : body, signal });
      await answer.body?.cancel();
      return answer;
    });
  } catch (error) {
    if (context.signal.aborted) throw error;
    throw new StepFailed(`step ${value.id}: ${method} ${url} failed: ${(error as Error).message}`);
  }
  if (!response.ok) throw new StepFailed(`step ${value.id}: ${method} ${url} answered ${response.status}`);
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
