// API keys: 256 random bits behind a recognisable prefix. Only a SHA-256 hash
// is stored (the key has full entropy, so a slow hash adds nothing), and the
// key itself is shown once, when it is issued.
import { createHash, randomBytes } from 'node:crypto';

const API_KEY_PREFIX = 'gwk_';
const DISPLAY_LENGTH = API_KEY_PREFIX.length + 8;

export interface NewApiKey {
  key: string;
  hash: string;
  displayPrefix: string;
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

export function newApiKey(): NewApiKey {
  const key = `${API_KEY_PREFIX}${randomBytes(32).toString('base64url')}`;
  return { key, hash: hashApiKey(key), displayPrefix: key.slice(0, DISPLAY_LENGTH) };
}

/** Cheap shape check so junk never reaches the database. */
export function looksLikeApiKey(value: string): boolean {
  return value.startsWith(API_KEY_PREFIX) && value.length === API_KEY_PREFIX.length + 43;
}
