// Reads a GraphQL over SSE answer (yoga's distinct connections mode) from outside, as a browser's EventSource would.

export interface SseStream {
  /** The next `next` event's payload; throws once the stream completes or ends first. */
  next<T = unknown>(): Promise<T>;
  /** The `next` payloads left until the stream completes (`event: complete`) and ends. */
  rest<T = unknown>(): Promise<T[]>;
}

/** POSTs `query` to /graphql asking for an event stream; the response must be one. */
export async function sseOperation(
  url: string,
  apiKey: string,
  query: string,
  variables: Record<string, unknown> = {},
  signal?: AbortSignal,
): Promise<SseStream> {
  const response = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'x-api-key': apiKey },
    body: JSON.stringify({ query, variables }),
    signal,
  });
  if (response.status !== 200 || !response.headers.get('content-type')?.includes('text/event-stream'))
    throw new Error(`not an event stream: ${response.status} ${await response.text()}`);
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  /** The next event (null: the response ended), keep-alive comments skipped. */
  const event = async (): Promise<{ event: string; data: string } | null> => {
    for (;;) {
      const end = buffer.indexOf('\n\n');
      if (end >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const name = block.match(/^event: (.*)$/m)?.[1];
        if (name) return { event: name, data: block.match(/^data: ?(.*)$/m)?.[1] ?? '' };
        continue;
      }
      const { value, done } = await reader.read();
      if (done) return null;
      buffer += decoder.decode(value, { stream: true });
    }
  };
  return {
    async next<T>() {
      const read = await event();
      if (read?.event !== 'next') throw new Error(`stream ended (${read?.event ?? 'closed'})`);
      return JSON.parse(read.data) as T;
    },
    async rest<T>() {
      const payloads: T[] = [];
      for (let read = await event(); read; read = await event()) {
        if (read.event === 'complete') {
          if ((await event()) !== null) throw new Error('the stream went on after its complete event');
          return payloads;
        }
        payloads.push(JSON.parse(read.data) as T);
      }
      throw new Error('the stream ended without its complete event');
    },
  };
}
