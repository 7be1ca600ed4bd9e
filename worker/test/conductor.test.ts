// The call's script played on a session, on the test's clock: what is said,
// when, and when the agent hangs up.
import { describe, expect, test } from 'vitest';
import { CallConductor, type ConductedSession, type EndReason } from '../src/conductor.ts';
import type { CallScript } from '../src/mapping/script.ts';
import { ManualTimers } from './support/manual-timers.ts';

const script = (members: Partial<CallScript> = {}): CallScript => ({
  agentSpeaksFirst: true,
  greeting: 'Hello Ada!',
  greetingIsGenerated: false,
  pauseBeforeGreetingMs: 0,
  waitForCallerMs: null,
  voicemailMessage: null,
  goodbye: 'Goodbye.',
  closeAtMs: null,
  closeMessage: null,
  warning: null,
  silenceMessage: null,
  ...members,
});

function conduct(members: Partial<CallScript> = {}) {
  const said: string[] = [];
  const hungUp: EndReason[] = [];
  const played = { waitForPlayout: async () => {} };
  const session: ConductedSession = {
    say: (text) => {
      said.push(text);
      return played;
    },
    generateReply: (options) => {
      said.push(`(generated: ${options?.instructions ?? 'a greeting'})`);
      return played;
    },
  };
  const clock = new ManualTimers();
  const conductor = new CallConductor(
    script(members),
    session,
    async (reason) => {
      hungUp.push(reason);
    },
    clock,
  );
  return { conductor, said, hungUp, clock };
}

describe('the opening', () => {
  test('the agent greets after its pause', () => {
    const { conductor, said, clock } = conduct({ pauseBeforeGreetingMs: 400 });
    conductor.start();
    clock.advance(399);
    expect(said).toEqual([]);
    clock.advance(1);
    expect(said).toEqual(['Hello Ada!']);
  });

  test('a generated greeting asks the model, with the greeting as its instructions', () => {
    const { conductor, said, clock } = conduct({ greetingIsGenerated: true });
    conductor.start();
    clock.advance(0);
    expect(said).toEqual(['(generated: Hello Ada!)']);
  });

  test('an agent that waits for the callee opens after wait_for_message_sec, unless the callee spoke', () => {
    const waiting = conduct({ agentSpeaksFirst: false, waitForCallerMs: 4000 });
    waiting.conductor.start();
    waiting.clock.advance(4000);
    expect(waiting.said).toEqual(['Hello Ada!']);

    const answered = conduct({ agentSpeaksFirst: false, waitForCallerMs: 4000 });
    answered.conductor.start();
    answered.clock.advance(1000);
    answered.conductor.callerSpoke();
    answered.clock.advance(3000);
    expect(answered.said).toEqual([]);
  });
});

describe('the end', () => {
  test('the warning, then the close message and the goodbye, then the hang-up', async () => {
    const { conductor, said, hungUp, clock } = conduct({
      agentSpeaksFirst: false,
      closeAtMs: 290_000,
      closeMessage: 'Time is up.',
      warning: { atMs: 230_000, message: 'One more minute.' },
    });
    conductor.start();
    clock.advance(230_000);
    expect(said).toEqual(['One more minute.']);
    clock.advance(60_000);
    await Promise.resolve();
    await conductor.agentEnds(); // the same ending: once
    expect(said).toEqual(['One more minute.', 'Time is up.', 'Goodbye.']);
    expect(hungUp).toEqual(['max_duration']);
    expect(clock.scheduled).toBe(0);
  });

  test('a silent callee hears the silence message and the goodbye', async () => {
    const { conductor, said, hungUp } = conduct({ agentSpeaksFirst: false, silenceMessage: 'Are you there?' });
    await conductor.callerSilent();
    expect(said).toEqual(['Are you there?', 'Goodbye.']);
    expect(hungUp).toEqual(['silence']);
  });

  test('a voice mail gets the voice mail message and no goodbye', async () => {
    const { conductor, said, hungUp } = conduct({ agentSpeaksFirst: false, voicemailMessage: 'Call us back.' });
    await conductor.voicemail();
    expect(said).toEqual(['Call us back.']);
    expect(hungUp).toEqual(['voicemail']);
  });

  test('goodbye_config off: the agent hangs up without a word', async () => {
    const { conductor, said, hungUp } = conduct({ agentSpeaksFirst: false, goodbye: null });
    await conductor.agentEnds();
    expect(said).toEqual([]);
    expect(hungUp).toEqual(['agent']);
  });
});
