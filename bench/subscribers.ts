// A second process holding many graphql-ws subscribers to one batch's
// progress. It prints `ready` once every subscriber has its first state, then
// for each `change <status> <sentAt>` line on stdin, waits until every
// subscriber saw that status and prints the delays (ms) as one JSON line.
import { createInterface } from 'node:readline';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';

const [url, apiKey, batchId, countText] = process.argv.slice(2);
const count = Number(countText);
const seen: { status: string; at: number }[] = [];
const waiting = new Set<number>();

const clients = Array.from({ length: count }, (_, index) => {
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
        seen[index] = { status: data!.batchProgress.status, at: performance.timeOrigin + performance.now() };
        waiting.delete(index);
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
});

const until = async (done: () => boolean) => {
  while (!done()) await new Promise((resolve) => setTimeout(resolve, 2));
};

await until(() => waiting.size === 0);
console.log('ready');
for await (const line of createInterface({ input: process.stdin })) {
  const [command, status, sentAt] = line.split(' ');
  if (command === 'quit') break;
  await until(() => seen.every((state) => state.status === status));
  console.log(JSON.stringify(seen.map((state) => state.at - Number(sentAt))));
}
await Promise.all(clients.map((client) => client.dispose()));
process.exit(0);
