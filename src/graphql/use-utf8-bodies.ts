// A body that is not UTF-8 is refused before it is parsed (src/web/utf8.ts).
import type { Plugin } from 'graphql-yoga';
import { INVALID_UTF8, utf8Text } from '../web/utf8.ts';
import { badInputError } from './bad-input.ts';

export const useUtf8Bodies = (): Plugin => ({
  onRequestParse({ request, requestParser, setRequestParser, fetchAPI }) {
    if (!requestParser || request.method === 'GET') return;
    setRequestParser(async (raw) => {
      const text = utf8Text(new Uint8Array(await raw.arrayBuffer()));
      if (text === null) throw badInputError(INVALID_UTF8);
      return requestParser(new fetchAPI.Request(raw.url, { method: raw.method, headers: raw.headers, body: text }));
    });
  },
});
