// A stand-in for the model vendors' endpoints, on a loopback port: it records
// each request a plugin makes (HTTP or WebSocket: method, path, query, headers,
// body or first message) and never answers it (the plugin waits until the test
// closes its stream), so a test reads back the options a plugin was built with
// from what it actually sends. Each plugin is built for a session of its own
// (a path prefix in its base URL): a request a closed stream makes late, into
// another test, is not taken for that test's.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer } from 'ws';

export interface CapturedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  /** The HTTP body (a WebSocket's is empty: see `message`). */
  body: string;
  /** A WebSocket's first message, when it comes (an HTTP request's body). */
  message(): Promise<string>;
  /** Answers an HTTP request (else it is left unanswered until the capture closes). */
  reply(status: number, body: string): void;
}

export interface VendorCapture {
  /** Starts a new session: the base URL (`http://127.0.0.1:<port>/s<n>`) its plugins are built with. */
  newSession(): string;
  /** The latest session's next request (its path without the session's prefix), now or when it arrives. */
  next(): Promise<CapturedRequest>;
  close(): Promise<void>;
}

export async function startVendorCapture(): Promise<VendorCapture> {
  let session = 0;
  const seen: CapturedRequest[] = [];
  let waiting: ((request: CapturedRequest) => void) | null = null;
  const record = (request: CapturedRequest) => {
    const prefix = `/s${session}/`;
    if (!request.path.startsWith(prefix)) return; // an earlier session's
    const own = { ...request, path: request.path.slice(prefix.length - 1) };
    if (waiting) {
      waiting(own);
      waiting = null;
    } else seen.push(own);
  };
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const url = new URL(request.url ?? '/', 'http://capture');
      record({
        method: request.method ?? 'GET',
        path: url.pathname,
        query: url.searchParams,
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        message() {
          return Promise.resolve(this.body);
        },
        reply: (status, body) => response.writeHead(status).end(body),
      });
    });
  });
  const sockets = new WebSocketServer({ server });
  sockets.on('connection', (socket, request) => {
    const url = new URL(request.url ?? '/', 'http://capture');
    const first = new Promise<string>((resolve) => socket.once('message', (data) => resolve(data.toString())));
    record({
      method: 'WS',
      path: url.pathname,
      query: url.searchParams,
      headers: request.headers,
      body: '',
      message: () => first,
      reply: () => {},
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    newSession() {
      session += 1;
      seen.length = 0;
      return `http://127.0.0.1:${port}/s${session}`;
    },
    next() {
      const request = seen.shift();
      if (request) return Promise.resolve(request);
      return new Promise((resolve) => {
        waiting = resolve;
      });
    },
    async close() {
      for (const client of sockets.clients) client.terminate();
      sockets.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
