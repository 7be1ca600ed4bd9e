// Bodies are UTF-8 (JSON, GraphQL over HTTP). Bytes that are not would be
// decoded into U+FFFD replacement characters and stored as such, so they are
// refused instead, on REST routes and /graphql alike.

export const INVALID_UTF8 = 'invalid UTF-8 in the body';

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** The bytes' text, or null when they are not valid UTF-8. */
export function utf8Text(bytes: Uint8Array): string | null {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    return null;
  }
}
