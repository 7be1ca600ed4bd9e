// Secrets at rest (integration credentials, SIP passwords) are sealed with
// AES-256-GCM under a key from ENCRYPTION_KEY. The embedded database makes
// its own key on first start (DATA_DIR/encryption.key, mode 0600), so a
// newcomer needs no set-up; a PostgreSQL deployment must be given one, the
// same on every instance.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Storage } from '../config.ts';

const VERSION = 'v1';

export class SecretBox {
  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new Error('the encryption key must be 32 bytes');
  }

  /** `v1:<iv>:<tag>:<ciphertext>`, base64url parts: a new random IV each time. */
  seal(plaintext: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return [VERSION, iv, cipher.getAuthTag(), ciphertext]
      .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
      .join(':');
  }

  open(sealed: string): string {
    const [version, iv, tag, ciphertext] = sealed.split(':');
    if (version !== VERSION || !iv || !tag || ciphertext === undefined) throw new Error('not a sealed secret');
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
  }
}

class EncryptionKeyError extends Error {}

function parseKey(text: string): Buffer {
  const trimmed = text.trim();
  const key = /^[0-9a-f]{64}$/i.test(trimmed) ? Buffer.from(trimmed, 'hex') : Buffer.from(trimmed, 'base64');
  if (key.length !== 32) {
    throw new EncryptionKeyError(
      'ENCRYPTION_KEY must be 32 bytes, as 64 hex digits or base64 (openssl rand -base64 32)',
    );
  }
  return key;
}

export function loadSecretBox(storage: Storage, encryptionKey: string | undefined): SecretBox {
  if (encryptionKey) return new SecretBox(parseKey(encryptionKey));
  if (storage.kind === 'postgres') {
    throw new EncryptionKeyError('ENCRYPTION_KEY is required with DATABASE_URL (the same key on every instance)');
  }
  const file = path.join(storage.dataDir, 'encryption.key');
  try {
    return new SecretBox(parseKey(readFileSync(file, 'utf8')));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  mkdirSync(storage.dataDir, { recursive: true });
  // 'wx': two first starts cannot both write a key; the loser reads the winner's.
  try {
    writeFileSync(file, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  return new SecretBox(parseKey(readFileSync(file, 'utf8')));
}
