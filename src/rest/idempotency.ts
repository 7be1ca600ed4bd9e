// `Idempotency-Key` on creates: the first request with a key runs and its
// answer is kept (24 hours); a retry with the same key and the same request
// gets that answer again and creates nothing. The same key with another
// request, or while the first is still running, is a 409.
//
// An answer that shows a secret (a webhook endpoint's, on creation) is kept
// with that secret sealed by the SecretBox, like every secret at rest, and
// opened for the replay: a client whose first answer was lost still gets the
// secret, and the record never holds it in the clear.
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { insertIdempotencyRecord } from '../db/sql/insert-idempotency-record.ts';
import { rowKey } from '../db/tenant.ts';
import { badInput, conflict } from '../domain/errors.ts';
import type { SecretBox } from '../domain/secrets.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';

const TTL_MS = 24 * 60 * 60 * 1000;

export type IdempotencyClaim =
  | { kind: 'first'; complete(status: number, body: unknown): Promise<void>; abandon(): Promise<void> }
  | { kind: 'replay'; status: number; body: unknown };

export const requestHashOf = (method: string, path: string, body: unknown) =>
  createHash('sha256')
    .update(JSON.stringify([method, path, body ?? null]))
    .digest('hex');

/** An Idempotency-Key header's value. */
export const idempotencyKey = z
  .string()
  .regex(/^[\x21-\x7e]{1,255}$/)
  .meta({
    description:
      'Makes the create safe to retry: the same key with the same request within 24 hours gets the first answer again ' +
      '(`Idempotent-Replayed: true`) and creates nothing; with another request, or while the first runs, a 409. ' +
      '1 to 255 visible ASCII characters.',
  });

export function validKey(value: unknown): string {
  const key = idempotencyKey.safeParse(value);
  if (!key.success) {
    throw badInput([{ path: 'Idempotency-Key', rule: 'format', message: 'must be 1 to 255 visible ASCII characters' }]);
  }
  return key.data;
}

export async function claimIdempotencyKey(
  prisma: PrismaClient,
  organizationId: string,
  key: string,
  requestHash: string,
): Promise<IdempotencyClaim> {
  for (let attempt = 0; attempt < 2; attempt++) {
    const inserted = await insertIdempotencyRecord(prisma, organizationId, key, requestHash);
    if (inserted[0]) {
      const id = inserted[0].id;
      return {
        kind: 'first',
        complete: async (status, body) => {
          await prisma.idempotencyRecord.update({
            where: rowKey(organizationId, id),
            data: { responseStatus: status, responseBody: body as object, completedAt: new Date() },
          });
        },
        // The request failed: nothing was created, so the key may be used again.
        abandon: async () => {
          await prisma.idempotencyRecord.deleteMany({ where: { id, completedAt: null } });
        },
      };
    }
    const existing = await prisma.idempotencyRecord.findUnique({
      where: { organizationId_key: { organizationId, key } },
    });
    if (!existing) continue; // removed between the two statements: try again
    if (Date.now() - existing.createdAt.getTime() > TTL_MS) {
      await prisma.idempotencyRecord.deleteMany({ where: { id: existing.id } });
      continue;
    }
    if (existing.requestHash !== requestHash) {
      throw conflict('this Idempotency-Key was used with another request', { idempotency_key: key });
    }
    if (existing.completedAt === null || existing.responseStatus === null) {
      // Still running, or its process died before it answered: its outcome is unknown.
      throw conflict('a request with this Idempotency-Key has not completed; retry later', { idempotency_key: key });
    }
    return { kind: 'replay', status: existing.responseStatus, body: existing.responseBody };
  }
  throw conflict('this Idempotency-Key is in contention; retry', { idempotency_key: key });
}

/** `body` with its string `members` changed by `change` (an answer is a JSON object; anything else stays). */
function changeMembers(body: unknown, members: string[], change: (value: string) => string): unknown {
  if (members.length === 0 || typeof body !== 'object' || body === null || Array.isArray(body)) return body;
  const answer = body as Record<string, unknown>;
  const changed = members
    .filter((name) => typeof answer[name] === 'string')
    .map((name) => [name, change(answer[name] as string)]);
  return { ...answer, ...Object.fromEntries(changed) };
}

/** The answer as kept for its key: the `members` that are secrets sealed. */
export const sealMembers = (body: unknown, members: string[], secrets: SecretBox) =>
  changeMembers(body, members, (value) => secrets.seal(value));

/** A kept answer as replayed: its sealed `members` opened. */
export const openMembers = (body: unknown, members: string[], secrets: SecretBox) =>
  changeMembers(body, members, (value) => secrets.open(value));
