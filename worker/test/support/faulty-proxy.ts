// A proxy between the worker and the gateway that fails on demand: it answers
// 503 without forwarding, or forwards and then loses the gateway's answer (the
// connection cut), as a network or a restarting worker would. It records every
// request it receives.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Fault = 'unavailable' | 'lose-answer';

export interface ProxiedRequest {
  method: string;
  path: string;
  idempotencyKey: string | undefined;
  body: string;
}

export async function startFaultyProxy(target: string) {
  const faults: Fault[] = [];
  const received: ProxiedRequest[] = [];
  const server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const key = request.headers['idempotency-key'];
    received.push({
      method: request.method ?? 'GET',
      path: request.url ?? '/',
      idempotencyKey: typeof key === 'string' ? key : undefined,
      body,
    });
    const fault = faults.shift();
    if (fault === 'unavailable') {
      response.writeHead(503, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ status: false, message: 'unavailable', error: 'UNAVAILABLE', data: null }));
      return;
    }
    const headers = Object.fromEntries(
      Object.entries(request.headers).filter(
        (entry): entry is [string, string] => typeof entry[1] === 'string' && entry[0] !== 'host',
      ),
    );
    const answer = await fetch(`${target}${request.url}`, {
      method: request.method,
      headers,
      body: body || undefined,
    });
    const text = await answer.text();
    if (fault === 'lose-answer') {
      request.socket.destroy();
      return;
    }
    response.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
    response.end(text);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    /** Faults for the next requests, in order. */
    fail(...next: Fault[]) {
      faults.push(...next);
    },
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
