// A load generator's HTTP/1.1 client that costs the cores it shares with the
// server as little as it can: one keep-alive socket per connection, each
// request's bytes written in one call (its head as text, its body a Buffer
// made once by the caller), each answer read to its end by its
// Content-Length, only its status and, when asked, its body handed back.
// The server sees what any client's request is (the same method, path,
// headers and body); only the client's own CPU per request is smaller than
// fetch's (bench/records.ts: 1.2 ms of a 5 ms report was fetch's, on the
// same two cores as the gateway and PostgreSQL).
import net from 'node:net';

export interface RawAnswer {
  status: number;
  body: Buffer;
}

const HEAD_END = Buffer.from('\r\n\r\n');

/** One keep-alive connection; one request at a time on it. */
export class RawHttpConnection {
  private readonly socket: net.Socket;
  private chunks: Buffer[] = [];
  private waiting: { resolve: (answer: RawAnswer) => void; reject: (error: Error) => void } | null = null;
  private readonly connected: Promise<void>;

  constructor(url: string) {
    const { hostname, port } = new URL(url);
    this.socket = net.connect({ host: hostname, port: Number(port), noDelay: true });
    this.connected = new Promise((resolve, reject) => {
      this.socket.once('connect', resolve);
      this.socket.once('error', reject);
    });
    this.socket.on('data', (chunk: Buffer) => this.read(chunk));
    this.socket.on('error', (error) => this.fail(error));
    this.socket.on('close', () => this.fail(new Error('the server closed the connection')));
  }

  /** Sends `head` (the request line and headers, without the blank line) and `body`; answers the status and body. */
  async request(head: string, body: Buffer): Promise<RawAnswer> {
    await this.connected;
    if (this.waiting) throw new Error('one request at a time on a connection');
    const answer = new Promise<RawAnswer>((resolve, reject) => (this.waiting = { resolve, reject }));
    this.socket.write(Buffer.concat([Buffer.from(`${head}content-length: ${body.length}\r\n\r\n`, 'latin1'), body]));
    return answer;
  }

  close() {
    this.socket.removeAllListeners('close');
    this.socket.destroy();
  }

  private read(chunk: Buffer) {
    this.chunks.push(chunk);
    const received = this.chunks.length === 1 ? chunk : Buffer.concat(this.chunks);
    this.chunks = [received];
    const headEnd = received.indexOf(HEAD_END);
    if (headEnd < 0) return;
    const head = received.toString('latin1', 0, headEnd);
    const length = /\r\ncontent-length: *(\d+)/i.exec(head);
    if (!length) return this.fail(new Error(`an answer without content-length: ${head}`));
    const end = headEnd + HEAD_END.length + Number(length[1]);
    if (received.length < end) return;
    if (received.length > end) return this.fail(new Error('bytes after the answer: one request at a time'));
    this.chunks = [];
    const waiting = this.waiting;
    this.waiting = null;
    waiting?.resolve({ status: Number(head.slice(9, 12)), body: received.subarray(headEnd + HEAD_END.length) });
  }

  private fail(error: Error) {
    const waiting = this.waiting;
    this.waiting = null;
    waiting?.reject(error);
  }
}
