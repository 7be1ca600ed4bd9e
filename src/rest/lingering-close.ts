// An answer given before an upload was read to its end (a refusal: 413, 400)
// closes the connection, but not at once: a client still sending its body
// would have its next write refused (EPIPE, or a reset that drops the answer
// it has not read yet) and never see the answer. The connection is closed the
// way RFC 9112 section 9.6 asks ("lingering close", as nginx and Apache do):
// the answer and a half-close go out, what the client still sends is read and
// dropped, and the socket is closed when the client closes its side, or after
// LINGER_MS whatever it does.
import type { IncomingMessage } from 'node:http';

const LINGER_MS = 5_000;

/** Makes the server's close of this request's connection, after its answer, a lingering one. */
export function lingerAfterAnswer(request: IncomingMessage) {
  const socket = request.socket;
  // Node's server ends a `Connection: close` answer's socket with destroySoon (node:_http_server).
  socket.destroySoon = () => {
    socket.end();
    request.resume();
    setTimeout(() => socket.destroy(), LINGER_MS).unref();
  };
}
