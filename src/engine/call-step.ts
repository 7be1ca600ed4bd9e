// A workflow's `call` step: one attempt to reach the run's prospect. Before
// dialling: the number must be E.164 (else the run fails, invalid_number),
// not on the organization's do-not-call list (else it is cancelled,
// do_not_call), with a live consent when its batch requires one (else it
// fails, no_consent; the consent is recorded on the attempt), and the agent's pre-call webhook, if any, may skip the call
// or hand it variables. The call holds one of the instance's lines (lines.ts)
// from writing its attempt open to its end, nothing longer. The attempt is
// written open before the call is placed (not at all when the batch was
// paused or cancelled while the run waited: the run goes back) and closed
// with the dialer's outcome; the batch's retry policy decides what follows.

import { BoundedMap } from '../bounded-map.ts';
import { nearestNumbers } from '../domain/local-presence.ts';
import { e164 } from '../domain/telephony.ts';
import { type CallStep, callStep, type Step } from '../domain/workflow-definition.ts';
import { tracing } from '../observability/tracing.ts';
import type { OutboundPolicy } from '../outbound/request.ts';
import type { Dialer } from './dialer.ts';
import type { FreeLine } from './lines.ts';
import { sendPrecallWebhook, templateVariables } from './precall-webhook.ts';
import type { ClaimedRun, RunStore } from './run-store.ts';
import { parseStep, type Signer, StepFailedError } from './steps.ts';

export interface CallStepDependencies {
  store: RunStore;
  dialer: Dialer;
  /**
   * Waits for the run's slot (a paced batch), a slot of its outbound trunk
   * (the trunk's max_concurrency) and a line of this instance (lines.ts); the
   * line is freed with `hangUp` as soon as the call ends, the trunk slot with
   * `releaseTrunk` after. Throws HandedBackError when the instance stops first.
   */
  takeLine(run: ClaimedRun, call: { trunkId?: string; slotAt: Date | null }, signal: AbortSignal): Promise<HeldLine>;
  /** Gives a run that will not call back at once (its batch was paused or cancelled meanwhile, or it stops). */
  handBack(run: ClaimedRun): Promise<void>;
  /** Tells the live-progress subscribers of these batches. */
  announce(batchIds: string[]): void;
  /** Signs the run organization's requests. */
  signerFor(run: ClaimedRun): Signer;
  /** Where the pre-call webhook may go (WEBHOOK_ALLOW_PRIVATE). */
  outbound: OutboundPolicy;
}

/** A line taken for one call, and the trunk slot taken with it. */
export interface HeldLine {
  hangUp: FreeLine;
  releaseTrunk(): Promise<void>;
}

/**
 * What the run does after its call step: go on with the next step, nothing
 * (it finished: the call was its last step), or stop (it ended otherwise, or
 * waits for a retry).
 */
export type CallStepResult = 'continue' | 'finished' | 'ended';

/** Trunks (and, with local presence, their callees' areas) whose turn is kept. */
const TURNS_KEPT = 10_000;

/** Each trunk's caller ids are used in turn, per instance (with `caller_id: "local"`, those nearest the callee). */
const turns = new BoundedMap<string, number>(TURNS_KEPT);

/**
 * The caller id: the step's from_number, else one of its trunk's numbers in
 * turn, leaving out those rested while others remain (number health); with
 * `caller_id: "local"`, one of those nearest the callee (local-presence.ts).
 */
async function callerId(store: RunStore, call: CallStep, callee: string) {
  if (call.from_number || !call.trunk_id) return call.from_number ?? null;
  let numbers = await store.numbersOfTrunk(call.trunk_id);
  if (numbers.length === 0) return null;
  let key = call.trunk_id;
  if (call.caller_id === 'local') {
    const nearest = await nearestNumbers(callee, numbers);
    numbers = nearest.numbers;
    key = `${call.trunk_id} ${nearest.level}`;
  }
  const turn = turns.get(key) ?? 0;
  turns.set(key, turn + 1);
  return numbers[turn % numbers.length]!;
}

export async function performCallStep(
  dependencies: CallStepDependencies,
  run: ClaimedRun,
  step: Step,
  /** The run's last step: an answered call finishes the run as its attempt is closed. */
  last: boolean,
  signal: AbortSignal,
): Promise<CallStepResult> {
  const { store, dialer, announce } = dependencies;
  const call = parseStep(callStep, step);
  const phone = run.prospect.phone;
  const endWithoutCall = async (to: 'FAILED' | 'CANCELLED', reason: string, error: string | null) => {
    announce(await store.endWithoutCall(run, to, reason, error));
    return 'ended' as const;
  };
  if (!e164.safeParse(phone).success) {
    return endWithoutCall('FAILED', 'invalid_number', `step ${step.id}: the prospect's phone "${phone}" is not E.164`);
  }
  // Read at once: the consent lookup adds no round trip to a call's start. The consent in force is
  // recorded on the attempt whether or not the batch requires one: evidence for a dispute (docs/consent.md).
  const [listed, consentId] = await Promise.all([
    store.onDoNotCallList(run.organizationId, phone),
    store.consentInForce(run.id),
  ]);
  if (listed) return endWithoutCall('CANCELLED', 'do_not_call', null);
  if (run.requireConsent && !consentId) return endWithoutCall('FAILED', 'no_consent', null);
  const webhook = await store.precallWebhookOf(run.organizationId, call.agent_id);
  if (webhook === undefined) throw new StepFailedError(`step ${step.id}: agent ${call.agent_id} no longer exists`);

  const number = run.attempts + 1;
  let dynamicVariables: Record<string, unknown> | null = null;
  if (webhook) {
    const answer = await sendPrecallWebhook(
      webhook,
      templateVariables(run, call.agent_id, number),
      dependencies.signerFor(run),
      dependencies.outbound,
      signal,
    );
    if (answer.kind === 'skip') return endWithoutCall('CANCELLED', 'precall_skip', null);
    if (answer.kind === 'failed') {
      // An attempt that never dialled: recorded, and retried like any failed one.
      const attempt = {
        number,
        stepId: step.id,
        fromNumber: call.from_number ?? null,
        toNumber: phone,
        dynamicVariables: null,
        startedAt: null,
        consentId,
      };
      if (!(await store.startAttempt(run, attempt))) {
        await dependencies.handBack(run);
        return 'ended';
      }
      run.attempts = number;
      const after = await store.endAttempt(run, number, step.id, {
        outcome: 'failed',
        reason: 'precall_webhook',
        durationSeconds: 0,
      });
      announce(after.batchIds);
      return after.next;
    }
    dynamicVariables = answer.variables;
  }

  const fromNumber = await callerId(store, call, phone);
  // A paced batch's attempt starts at its slot (calls_per_second): recorded so, and placed then, never before.
  const slotAt = run.slotAt;
  run.slotAt = null;
  const line = await dependencies.takeLine(run, { trunkId: call.trunk_id, slotAt }, signal);
  try {
    const attempt = {
      number,
      stepId: step.id,
      fromNumber,
      toNumber: phone,
      dynamicVariables,
      startedAt: slotAt,
      consentId,
    };
    if (!(await store.startAttempt(run, attempt))) {
      line.hangUp();
      await dependencies.handBack(run);
      return 'ended';
    }
    run.attempts = number;
    const placed = {
      organizationId: run.organizationId,
      runId: run.id,
      batchId: run.batchId,
      attempt: number,
      agentId: call.agent_id,
      trunkId: call.trunk_id ?? null,
      fromNumber,
      toNumber: phone,
      prospect: run.prospect,
      dynamicVariables,
    };
    const result = await tracing()
      .inSpan('run.dial', { 'run.attempt': number, 'dial.trunk_id': call.trunk_id }, () => dialer.dial(placed, signal))
      .catch((error: Error) => {
        // Hung up because this instance stops: stop() records the attempt. Any other failure is the call's.
        signal.throwIfAborted();
        return { outcome: 'failed' as const, reason: `dialer: ${error.message}`, durationSeconds: 0 };
      });
    // The line is free for the next run before this one's attempt is closed.
    line.hangUp();
    const close = () => store.endAttempt(run, number, step.id, result, last);
    // Closing the last step's call may finish the run: traced as the run's finish.
    const after = await (last ? tracing().inSpan('run.finish', { 'run.attempt': number }, close) : close());
    announce(after.batchIds);
    // The caller id's breaker (number_health); a failed review is tried again after its next call.
    if (fromNumber) await store.reviewCallerId(run.organizationId, fromNumber).catch(() => {});
    return after.next;
  } finally {
    line.hangUp();
    await line.releaseTrunk();
  }
}
