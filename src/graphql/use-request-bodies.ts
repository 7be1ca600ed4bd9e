// A GraphQL request's body is read once, here, before it is parsed: refused
// with 413 past MAX_REQUEST_BODY_BYTES, and with 400 when it is not UTF-8
// (src/requests/utf8.ts). This replaces yoga's own size limit (turned off in
// yoga.ts), which passes every body through a TransformStream and Node's
// stream pipeline: ~13% of a trivial query's CPU (BENCHMARKS.md (e)). Its
// 413 answer stays: the same message, code and status.
import { GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { INVALID_UTF8, utf8Text } from '../requests/utf8.ts';
import { badInputError } from './bad-input.ts';

/** The largest body /graphql reads (yoga's default limit, which applied before). */
export const MAX_REQUEST_BODY_BYTES = 25_000_000;

const tooLarge = () =>
  new GraphQLError('Request body too large', {
    extensions: { http: { status: 413 }, code: 'REQUEST_ENTITY_TOO_LARGE' },
  });

/**
 * The body's bytes. With a Content-Length, Node's HTTP parser delivers exactly
 * that many, so a declared length within the limit is read whole; a chunked
 * body is counted as it arrives and refused as soon as it passes the limit.
 */
async function bodyBytes(request: Request, declared: string | null): Promise<Uint8Array> {
  if (declared !== null) return new Uint8Array(await request.arrayBuffer());
  const reader = request.body!.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    size += read.value.byteLength;
    if (size > MAX_REQUEST_BODY_BYTES) {
      // Released, not cancelled: the rest is read and dropped once the 413 is sent, so the
      // client, still writing, gets to read it (cancelling would reset the connection).
      reader.releaseLock();
      throw tooLarge();
    }
    chunks.push(read.value);
  }
  return Buffer.concat(chunks, size);
}

export const useRequestBodies = (): Plugin => ({
  onRequestParse({ request, requestParser, setRequestParser, fetchAPI }) {
    // Node's HTTP parser has already refused a Content-Length that is not one non-negative integer.
    const declared = request.headers.get('content-length');
    if (declared !== null && Number(declared) > MAX_REQUEST_BODY_BYTES) throw tooLarge();
    if (!requestParser || request.method === 'GET' || !request.body) return;
    setRequestParser(async (raw) => {
      const text = utf8Text(await bodyBytes(raw, declared));
      if (text === null) throw badInputError(INVALID_UTF8);
      return requestParser(new fetchAPI.Request(raw.url, { method: raw.method, headers: raw.headers, body: text }));
    });
  },
});
