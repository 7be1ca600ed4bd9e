// Requests of one turn of the event loop share one command, sent after the last of them joined.
import { describe, expect, it } from 'vitest';
import { OneCommandPerTurn } from '../src/redis/one-command-per-turn.ts';

describe('one command per turn', () => {
  it('sends one command for the requests of a key that joined in one turn, and tells each its place', async () => {
    const sent: [string, number][] = [];
    const commands = new OneCommandPerTurn(async (key, count) => {
      sent.push([key, count]);
      return `${key}:${sent.length}`;
    });
    const joined = await Promise.all([commands.join('a'), commands.join('b'), commands.join('a'), commands.join('a')]);
    expect(sent).toEqual([
      ['a', 3],
      ['b', 1],
    ]);
    expect(joined).toEqual([
      { result: 'a:1', count: 3, index: 0 },
      { result: 'b:2', count: 1, index: 0 },
      { result: 'a:1', count: 3, index: 1 },
      { result: 'a:1', count: 3, index: 2 },
    ]);
  });

  it('never joins a request to a command already sent: it waits for the next', async () => {
    const sent: number[] = [];
    let answer: (value: string) => void = () => {};
    const commands = new OneCommandPerTurn(
      (_key, count) =>
        new Promise<string>((resolve) => {
          sent.push(count);
          answer = resolve;
        }),
    );
    const early = commands.join('a');
    await new Promise((resolve) => setImmediate(resolve));
    // The first command is sent and not answered yet; a request now is not given its answer.
    const late = commands.join('a');
    answer('first');
    expect(await early).toEqual({ result: 'first', count: 1, index: 0 });
    await new Promise((resolve) => setImmediate(resolve));
    expect(sent).toEqual([1, 1]);
    answer('second');
    expect(await late).toEqual({ result: 'second', count: 1, index: 0 });
  });

  it('fails every request of a command that failed', async () => {
    const commands = new OneCommandPerTurn(async () => {
      throw new Error('Redis away');
    });
    const joined = [commands.join('a'), commands.join('a')];
    for (const request of joined) await expect(request).rejects.toThrow('Redis away');
  });
});
