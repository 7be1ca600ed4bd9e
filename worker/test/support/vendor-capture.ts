// A stand-in for the model vendors' endpoints, on a loopback port: it records
// each request a plugin makes (HTTP or WebSocket: method, path, query, headers,
// body or first message) and never answers it (the plugin waits until the test
// closes its stream), so a test reads back the options a plugin was built with
// from what it actually sends.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer } from 'ws';

export interface CapturedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  /** The HTTP body, or the WebSocket's first message. */
  body: string;
}

export interface VendorCapture {
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** The next request whose path starts with `pathPrefix`, now or when it arrives. */
  next(pathPrefix?: string): Promise<CapturedRequest>;
  close(): Promise<void>;
}

export async function startVendorCapture(): Promise<VendorCapture> {
  const seen: CapturedRequest[] = [];
  const waiting: { prefix: string; resolve: (request: CapturedRequest) => void }[] = [];
  const record = (request: CapturedRequest) => {
    const waiter = waiting.find((entry) => request.path.startsWith(entry.prefix));
    if (waiter) {
      waiting.splice(waiting.indexOf(waiter), 1);
      waiter.resolve(request);
    } else seen.push(request);
  };
  const server = createServer((request) => {
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
      });
    });
  });
  const sockets = new WebSocketServer({ server });
  sockets.on('connection', (socket, request) => {
    const url = new URL(request.url ?? '/', 'http://capture');
    const captured = { method: 'WS', path: url.pathname, query: url.searchParams, headers: request.headers };
    // The first message, or none: some plugins send their options only in the URL.
    const timer = setTimeout(() => finish(''), 100);
    const finish = (body: string) => {
      clearTimeout(timer);
      socket.removeAllListeners('message');
      record({ ...captured, body });
    };
    socket.once('message', (data) => finish(data.toString()));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    next(prefix = '/') {
      const index = seen.findIndex((request) => request.path.startsWith(prefix));
      if (index >= 0) return Promise.resolve(seen.splice(index, 1)[0]!);
      return new Promise((resolve) => waiting.push({ prefix, resolve }));
    },
    async close() {
      for (const client of sockets.clients) client.terminate();
      sockets.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
