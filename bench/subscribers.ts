// A second process holding many graphql-ws subscribers to one batch's
// progress. It prints `ready` once every subscriber has its first state, then
// for each `change <status> <sentAt>` line on stdin, waits until every
// subscriber saw that status and prints the delays (ms) as one JSON line.
// An optional fifth argument connects them in waves of that many, each wave
// once the one before holds its first state (thousands of connections opened
// in the same instant overflow the server's listen backlog).
import { createInterface } from 'node:readline';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';

const [url, apiKey, batchId, countText, waveText] = process.argv.slice(2);
const count = Number(countText);
const wave = Number(waveText ?? count);
const seen: { status: string; at: number }[] = [];
/** The status being waited for (none while connecting: any first state will do). */
let target: string | undefined;
/** The subscribers that do not hold `target` yet; whoever waits is told when none is left. */
const waiting = new Set<number>();
let settled: (() => void) | null = null;
const untilNoneWaiting = () =>
  waiting.size === 0 ? Promise.resolve() : new Promise<void>((resolve) => (settled = resolve));

const connect = (index: number) => {
  const client = createClient({
    url: url!,
    webSocketImpl: WebSocket,
    connectionParams: { 'x-api-key': apiKey },
    retryAttempts: 0,
    lazy: false,
  });
  client.subscribe<{ batchProgress: { status: string } }>(
    { query: 'subscription($id: ID!) { batchProgress(batchId: $id) { status } }', variables: { id: batchId } },
    {
      next: ({ data }) => {
        const { status } = data!.batchProgress;
        seen[index] = { status, at: performance.timeOrigin + performance.now() };
        if (target === undefined || status === target) waiting.delete(index);
        else waiting.add(index);
        if (waiting.size === 0) settled?.();
      },
      error: (error) => {
        console.error(JSON.stringify(error));
        process.exit(1);
      },
      complete: () => {},
    },
  );
  waiting.add(index);
  return client;
};

const clients: ReturnType<typeof createClient>[] = [];
while (clients.length < count) {
  const end = Math.min(count, clients.length + wave);
  while (clients.length < end) clients.push(connect(clients.length));
  await untilNoneWaiting();
}
console.log('ready');
for await (const line of createInterface({ input: process.stdin })) {
  const [command, status, sentAt] = line.split(' ');
  if (command === 'quit') break;
  // Some may hold it already: their events can be read before this line.
  target = status;
  waiting.clear();
  for (const [index, state] of seen.entries()) if (state.status !== status) waiting.add(index);
  await untilNoneWaiting();
  console.log(JSON.stringify(seen.map((state) => state.at - Number(sentAt))));
}
await Promise.all(clients.map((client) => client.dispose()));
process.exit(0);
