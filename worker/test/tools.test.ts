// The model's tools as LiveKit Agents calls them: what each does in the call,
// and what it answers the model (the gateway's refusal in words).
import { describe, expect, test } from 'vitest';
import { GatewayRequestError } from '../src/gateway.ts';
import { type CallActions, callTools } from '../src/tools.ts';

const NOW = new Date('2030-01-07T12:00:00Z');
const toolCall = { ctx: undefined as never, toolCallId: 'call_1', abortSignal: new AbortController().signal };

function tools(transferTo: string | null = null, refuse: Error | null = null) {
  const done: string[] = [];
  const actions: CallActions = {
    end: () => done.push('end'),
    callback: async (at) => {
      if (refuse) throw refuse;
      done.push(`callback ${at}`);
    },
    transfer: async (to) => {
      if (refuse) throw refuse;
      done.push(`transfer ${to}`);
    },
  };
  return { tools: callTools(actions, NOW, transferTo), done };
}

describe('schedule_callback', () => {
  test('a time ahead is reported; the model is told the time it is now', async () => {
    const { tools: offered, done } = tools();
    expect(offered.schedule_callback.description).toContain('it is now 2030-01-07T12:00:00.000Z');
    expect(await offered.schedule_callback.execute({ at: '2030-01-08T15:00:00+01:00' }, toolCall)).toBe(
      'The call back is scheduled for 2030-01-08T15:00:00+01:00.',
    );
    expect(done).toEqual(['callback 2030-01-08T15:00:00+01:00']);
  });

  test('no time, or a time past, is not reported: the model asks again', async () => {
    const { tools: offered, done } = tools();
    expect(await offered.schedule_callback.execute({ at: 'tomorrow' }, toolCall)).toBe(
      '"tomorrow" is not a time: give RFC 3339 with an offset.',
    );
    expect(await offered.schedule_callback.execute({ at: '2030-01-07T11:00:00Z' }, toolCall)).toBe(
      'That time has passed: ask the callee for a later one.',
    );
    expect(done).toEqual([]);
  });

  test('the gateway’s refusal is the answer, in its words', async () => {
    const refusal = new GatewayRequestError('POST … answered 400', 400, 'callback_at: must be at most 14 days ahead');
    const { tools: offered } = tools(null, refusal);
    expect(await offered.schedule_callback.execute({ at: '2030-03-01T12:00:00Z' }, toolCall)).toBe(
      'The call back could not be scheduled: callback_at: must be at most 14 days ahead.',
    );
  });
});

describe('transfer_call and end_call', () => {
  test('transfer_call is offered only with a destination from the pre-call webhook, and takes no number', async () => {
    expect(Object.keys(tools().tools)).toEqual(['end_call', 'schedule_callback']);
    const { tools: offered, done } = tools('+14155550199');
    expect(await offered.transfer_call!.execute({}, toolCall)).toBe('The callee is with a person now.');
    expect(await offered.end_call.execute({}, toolCall)).toBe('The call is ending.');
    expect(done).toEqual(['transfer +14155550199', 'end']);
  });

  test('a transfer LiveKit refused is told to the model', async () => {
    const refusal = new GatewayRequestError('… 502', 502, 'LiveKit did not transfer the call: busy');
    const { tools: offered } = tools('+14155550199', refusal);
    expect(await offered.transfer_call!.execute({}, toolCall)).toBe(
      'The transfer failed: LiveKit did not transfer the call: busy. Tell the callee and go on.',
    );
  });
});
