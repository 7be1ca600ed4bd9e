// The simulated dialer's settings (src/engine/dialer.ts): how long its calls
// last, and how often each outcome ends one (SIMULATED_CALL_OUTCOMES). The
// outcomes are the database's (prisma/schema.prisma's CallOutcome).
import { CallOutcome } from '../generated/prisma/enums.ts';

const outcomeNames = Object.values(CallOutcome);

/** Shares of each outcome, summing to 1: `answered=0.6,no_answer=0.2,…` (SIMULATED_CALL_OUTCOMES). */
export type OutcomeShares = Partial<Record<CallOutcome, number>>;

export interface SimulatedCalls {
  durationMs: number;
  outcomes: OutcomeShares;
}

/** Parses `answered=0.6,no_answer=0.4`; throws a message naming what is wrong. */
export function parseOutcomeShares(text: string): OutcomeShares {
  const shares: OutcomeShares = {};
  for (const part of text
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean)) {
    const [name, value] = part.split('=').map((item) => item.trim());
    if (!outcomeNames.includes(name as CallOutcome))
      throw new Error(`unknown outcome "${name}" (one of ${outcomeNames.join(', ')})`);
    const share = Number(value);
    if (!Number.isFinite(share) || share < 0 || share > 1)
      throw new Error(`the share of ${name} must be a number from 0 to 1`);
    shares[name as CallOutcome] = share;
  }
  const total = Object.values(shares).reduce((sum, share) => sum + share, 0);
  if (Math.abs(total - 1) > 1e-6) throw new Error(`the shares add up to ${total}, not 1`);
  return shares;
}
