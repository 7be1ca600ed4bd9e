// A real HTTP receiver for webhook deliveries, on the loopback interface. It
// records every request (raw body and headers) and answers as the test says:
// a status, or no answer at all (a hung receiver).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

interface ReceivedRequest {
  /** When it arrived (Date.now()). */
  at: number;
  headers: Record<string, string>;
  body: string;
}

/** How to answer a request: a status, or `hang` (never answer). */
type Answer = number | 'hang';

export interface Receiver {
  url: string;
  port: number;
  received: ReceivedRequest[];
  /** Decides each answer (default 204); gets the request and how many arrived before it. */
  answer: (request: ReceivedRequest, index: number) => Answer;
  /** The requests whose signature the secret verifies, as their parsed payloads with their `webhook-id`. */
  verified(secret: string): { id: string; payload: { type: string; timestamp: string; data: any } }[];
  close(): Promise<void>;
}

export async function startReceiver(port = 0): Promise<Receiver> {
  const received: ReceivedRequest[] = [];
  const hung = new Set<http.ServerResponse>();
  const receiver = {
    received,
    answer: (() => 204) as Receiver['answer'],
  } as Receiver;
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const entry: ReceivedRequest = {
        at: Date.now(),
        headers: Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, String(value)])),
        body: Buffer.concat(chunks).toString('utf8'),
      };
      const answer = receiver.answer(entry, received.length);
      received.push(entry);
      if (answer === 'hang') {
        hung.add(response);
        return;
      }
      response.writeHead(answer).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const { port: bound } = server.address() as AddressInfo;
  return Object.assign(receiver, {
    url: `http://127.0.0.1:${bound}/hook`,
    port: bound,
    verified(secret: string) {
      const webhook = new Webhook(secret);
      return received.flatMap((request) => {
        try {
          return [
            { id: request.headers['webhook-id']!, payload: webhook.verify(request.body, request.headers) as any },
          ];
        } catch {
          return [];
        }
      });
    },
    async close() {
      for (const response of hung) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  });
}
