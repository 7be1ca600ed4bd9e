// What places a call. The engine hands a dialer one call request per attempt
// and records the outcome it answers; the simulated dialer is the default, a
// real one (LiveKit SIP) implements the same interface.
import { setTimeout as sleep } from 'node:timers/promises';
import type { OutcomeShares, SimulatedCalls } from '../config/simulated-calls.ts';
import { type CallOutcomeName, callOutcomes } from '../records/campaign-settings.ts';

export interface CallRequest {
  organizationId: string;
  runId: string;
  batchId: string;
  /** 1, 2, … within the run. */
  attempt: number;
  agentId: string;
  trunkId: string | null;
  fromNumber: string | null;
  /** The prospect's phone, E.164. */
  toNumber: string;
  prospect: { id: string; firstName: string; lastName: string; email: string; phone: string };
  /** From the agent's pre-call webhook, if it answered some. */
  dynamicVariables: Record<string, unknown> | null;
}

export interface CallResult {
  outcome: CallOutcomeName;
  durationSeconds: number;
  reason: string | null;
}

export interface Dialer {
  /** Places the call and resolves when it has ended; rejects only when `signal` aborts (hang up). */
  dial(request: CallRequest, signal: AbortSignal): Promise<CallResult>;
}

/** Draws an outcome by its share; `random` is injectable for tests. */
export function drawOutcome(shares: OutcomeShares, random = Math.random): CallOutcomeName {
  let draw = random();
  for (const outcome of callOutcomes) {
    draw -= shares[outcome] ?? 0;
    if (draw < 0) return outcome;
  }
  return 'answered';
}

/**
 * Calls that last `durationMs` and end with an outcome drawn from the shares,
 * so the whole campaign loop (retries, the circuit breaker) runs on a laptop.
 */
export function simulatedDialer(calls: SimulatedCalls): Dialer {
  return {
    async dial(_request, signal) {
      await sleep(calls.durationMs, undefined, { signal });
      const outcome = drawOutcome(calls.outcomes);
      return {
        outcome,
        durationSeconds: outcome === 'answered' || outcome === 'voicemail' ? calls.durationMs / 1000 : 0,
        reason: outcome === 'failed' ? 'simulated failure' : null,
      };
    },
  };
}
