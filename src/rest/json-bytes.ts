// SPEC.md types several JSON members as "array of integer": an artifact of a
// raw-JSON type in its source schema. Requests may send either the JSON value
// or its UTF-8 bytes as an array of integers 0-255 (DECISIONS.md).
import { badInput } from '../domain/errors.ts';

const isByteArray = (value: unknown): value is number[] =>
  Array.isArray(value) && value.length > 0 && value.every((byte) => Number.isInteger(byte) && byte >= 0 && byte <= 255);

function decode(bytes: number[]): { ok: true; value: unknown } | { ok: false } {
  try {
    const text = new TextDecoder('utf-8', { fatal: true }).decode(Uint8Array.from(bytes));
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

/**
 * Decodes byte-array members of `body` in place of the JSON they encode.
 * `objectMembers` expect a JSON object: bytes that are not UTF-8 JSON there
 * are a 400. `listMembers` (plugins) are lists already, so they are decoded
 * only when the bytes spell a JSON array.
 */
export function decodeJsonMembers(body: unknown, objectMembers: string[], listMembers: string[] = []): unknown {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return body;
  const decoded: Record<string, unknown> = { ...(body as Record<string, unknown>) };
  for (const member of objectMembers) {
    const value = decoded[member];
    if (!isByteArray(value)) continue;
    const result = decode(value);
    if (!result.ok) {
      throw badInput([{ path: member, rule: 'json bytes', message: 'is an array of bytes that is not UTF-8 JSON' }]);
    }
    decoded[member] = result.value;
  }
  for (const member of listMembers) {
    const value = decoded[member];
    if (!isByteArray(value)) continue;
    const result = decode(value);
    if (result.ok && Array.isArray(result.value)) decoded[member] = result.value;
  }
  return decoded;
}
