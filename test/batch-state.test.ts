// Every client move of DECISIONS.md's batch state machine, allowed or refused.
import { describe, expect, it } from 'vitest';
import { batchStatuses, clientBatchStatuses, clientMove } from '../src/domain/batch-state.ts';
import { DomainError } from '../src/domain/errors.ts';

const allowed: Record<string, { from: string[]; runs: [string[], string] }> = {
  PAUSED: { from: ['PENDING', 'IN_PROGRESS'], runs: [['PENDING'], 'PAUSED'] },
  PENDING: { from: ['PAUSED'], runs: [['PAUSED'], 'PENDING'] },
  CANCELLED: { from: ['PENDING', 'IN_PROGRESS', 'PAUSED'], runs: [['PENDING', 'PAUSED'], 'CANCELLED'] },
};

describe('the batch state machine (client moves)', () => {
  for (const requested of clientBatchStatuses) {
    for (const current of batchStatuses) {
      it(`${current} -> ${requested}`, () => {
        if (current === requested) {
          expect(clientMove(current, requested)).toBeNull();
        } else if (allowed[requested]!.from.includes(current)) {
          const [from, to] = allowed[requested]!.runs;
          expect(clientMove(current, requested)).toEqual({ from, to });
        } else {
          let refusal: unknown;
          try {
            clientMove(current, requested);
          } catch (error) {
            refusal = error;
          }
          expect(refusal).toBeInstanceOf(DomainError);
          expect(refusal).toMatchObject({
            kind: 'CONFLICT',
            detail: { current_status: current, requested_status: requested },
          });
          expect((refusal as Error).message).toContain(current);
        }
      });
    }
  }
});
