// The simulated dialer's settings: SIMULATED_CALL_OUTCOMES is parsed into
// shares of each outcome, refused with a message naming what is wrong, and
// the outcomes drawn follow the shares.
import { describe, expect, it } from 'vitest';
import { parseOutcomeShares } from '../src/config/simulated-calls.ts';
import { ConfigError, loadConfig } from '../src/config.ts';
import { drawOutcome } from '../src/engine/dialer.ts';

describe('SIMULATED_CALL_OUTCOMES', () => {
  it('defaults to a realistic mix, and takes the shares given', () => {
    expect(loadConfig({}).engine.simulatedCalls.outcomes).toEqual({
      answered: 0.6,
      no_answer: 0.2,
      busy: 0.1,
      voicemail: 0.05,
      failed: 0.05,
    });
    expect(loadConfig({ SIMULATED_CALL_OUTCOMES: 'no_answer=1' }).engine.simulatedCalls.outcomes).toEqual({
      no_answer: 1,
    });
    expect(parseOutcomeShares(' answered = 0.5 , busy=0.5 ')).toEqual({ answered: 0.5, busy: 0.5 });
  });

  it('refuses unknown outcomes, shares out of range and shares that do not add up to 1, naming the variable', () => {
    for (const [text, message] of [
      ['answered=0.5,ringing=0.5', 'unknown outcome "ringing"'],
      ['answered=1.5', 'must be a number from 0 to 1'],
      ['answered=0.5,busy=0.4', 'add up to 0.9'],
      ['answered=x', 'must be a number from 0 to 1'],
    ]) {
      expect(() => loadConfig({ SIMULATED_CALL_OUTCOMES: text })).toThrow(ConfigError);
      expect(() => loadConfig({ SIMULATED_CALL_OUTCOMES: text })).toThrow(
        new RegExp(`SIMULATED_CALL_OUTCOMES: .*${message}`),
      );
    }
  });

  it('draws each outcome by its share', () => {
    const shares = { answered: 0.5, busy: 0.25, failed: 0.25 };
    expect([0, 0.49, 0.5, 0.74, 0.75, 0.999].map((value) => drawOutcome(shares, () => value))).toEqual([
      'answered',
      'answered',
      'busy',
      'busy',
      'failed',
      'failed',
    ]);
  });
});
