// What the console works out from a batch's numbers (src/console/pace.ts):
// answer rate, attempts per minute and the ETA at that pace.
import { describe, expect, it } from 'vitest';
import { answerRate, attemptsPerMinute, eta } from '../src/console/pace.ts';
import type { AttemptsInterval, Outcomes, Stats } from '../src/console-operations/console-operations.ts';

const MINUTE = 60_000;
const NOW = Date.parse('2026-11-22T15:30:30.000Z');
const none = { attempts: 0, answered: 0, noAnswer: 0, busy: 0, voicemail: 0, failed: 0, ivr: 0, callScreening: 0 };

/** A minute-by-minute timeline of the last hour ending with the minute holding NOW, `attempts(i)` in minute i (0 the oldest). */
const timeline = (attempts: (minute: number) => number): AttemptsInterval[] =>
  Array.from({ length: 60 }, (_, minute) => {
    const start = Date.parse('2026-11-22T14:31:00.000Z') + minute * MINUTE;
    return {
      ...none,
      attempts: attempts(minute),
      start: new Date(start).toISOString(),
      end: new Date(start + MINUTE).toISOString(),
    };
  });

const stats = (counts: Partial<Stats>): Stats => {
  const all = {
    pendingCount: 0,
    inProgressCount: 0,
    pausedCount: 0,
    finishedCount: 0,
    cancelledCount: 0,
    failedCount: 0,
    ...counts,
  };
  return { ...all, totalCount: Object.values(all).reduce((sum, value) => sum + value, 0) };
};

describe('the console pace', () => {
  it('answer rate: answered among the attempts that ended, none before one ended', () => {
    expect(answerRate({ ...none, attempts: 10, answered: 3, noAnswer: 4, busy: 1, failed: 1 })).toBeCloseTo(3 / 9);
    expect(answerRate({ ...none, attempts: 2 })).toBeNull();
  });

  it('attempts per minute: over the last 10 minutes, or since the first attempt when later', () => {
    // 6 a minute for the whole hour: the 11 minutes that reach into the last 10 hold 66, over 10.5 minutes.
    expect(
      attemptsPerMinute(
        timeline(() => 6),
        NOW,
      ),
    ).toBeCloseTo(66 / 10.5);
    // Started in the current minute, 30 s ago: measured over one minute at least.
    expect(
      attemptsPerMinute(
        timeline((minute) => (minute === 59 ? 12 : 0)),
        NOW,
      ),
    ).toBe(12);
    // Started 3.5 minutes ago.
    expect(
      attemptsPerMinute(
        timeline((minute) => (minute >= 56 ? 10 : 0)),
        NOW,
      ),
    ).toBeCloseTo(40 / 3.5);
    expect(
      attemptsPerMinute(
        timeline(() => 0),
        NOW,
      ),
    ).toBe(0);
    expect(attemptsPerMinute([], NOW)).toBeNull();
  });

  it('ETA: the remaining runs at the attempts per run so far, at the current pace', () => {
    const outcomes: Outcomes = { ...none, attempts: 150, answered: 60, noAnswer: 70, busy: 20 };
    // 100 runs ended after 150 attempts: 1.5 each; 200 left at 30 a minute: 10 minutes.
    expect(
      eta(
        'IN_PROGRESS',
        stats({ finishedCount: 60, failedCount: 40, pendingCount: 198, inProgressCount: 2 }),
        outcomes,
        30,
        null,
      ),
    ).toEqual({ kind: 'at', ms: 10 * MINUTE });
    expect(eta('FINISHED', stats({ finishedCount: 100 }), outcomes, 30, null)).toEqual({ kind: 'done' });
    expect(eta('PAUSED', stats({ pausedCount: 5 }), outcomes, 30, null)).toEqual({ kind: 'stopped', why: 'paused' });
    expect(eta('PENDING', stats({ pendingCount: 5 }), none, 0, 'waiting for Tue 09:00 UTC')).toEqual({
      kind: 'stopped',
      why: 'window closed',
    });
    expect(eta('PENDING', stats({ pendingCount: 5 }), none, 0, null)).toEqual({
      kind: 'unknown',
      why: 'no calls in the last 10 min',
    });
  });
});
