// The audit trail: every write an API caller (or the CLI) makes appends one
// event, in the write's own transaction, so a write that fails leaves none
// and one that commits always has its event. The GraphQL mutations (and the
// REST routes, which run them) go through one wrapper (src/schema/audited-mutations.ts),
// the CSV upload route and the CLI call `recordWrite` themselves. The engine's
// own writes (runs progressing) are not the callers' and are not recorded.
// The table refuses UPDATE, DELETE and TRUNCATE; only `deleteExpiredEvents`
// passes, past the retention period. docs/security.md#audit-log.

import type { Viewer } from '../auth/authenticate.ts';
import { joinedTransaction } from '../db/joined-transaction.ts';
import { deleteExpiredAuditEvents } from '../db/sql/delete-expired-audit-events.ts';
import type { Prisma, PrismaClient } from '../generated/prisma/client.ts';
import { AUDIT_RETENTION_BATCH, MAX_AUDIT_USER_AGENT } from './limits.ts';

/** Who made a write: the key (id and name, never its secret) and where the request came from. */
export interface AuditActor {
  keyId: string | null;
  keyName: string | null;
  sourceIp: string | null;
  userAgent: string | null;
}

/** Where a request came from: its peer's address and its User-Agent, when known. */
export interface RequestOrigin {
  sourceIp?: string;
  userAgent?: string;
}

/** Who a caller's writes are recorded as: its key, and where its request came from. */
export const actorOf = (viewer: Viewer, origin: RequestOrigin = {}): AuditActor => ({
  keyId: viewer.apiKeyId,
  keyName: viewer.apiKeyName ?? null,
  sourceIp: origin.sourceIp ?? null,
  userAgent: origin.userAgent?.slice(0, MAX_AUDIT_USER_AGENT) ?? null,
});

/** The object a write changed: its GraphQL type and id. */
export interface AuditTarget {
  type: string;
  id: string;
}

/** An object a write names before it runs, and how its row is read (before and after, for the changes). */
export interface ChangedObject {
  target: AuditTarget;
  read(tx: unknown): Promise<Record<string, unknown> | null>;
}

export interface AuditedWrite<T> {
  organizationId: string;
  actor: AuditActor;
  /** The GraphQL mutation the write is (REST and the CLI name the one they do the work of). */
  operation: string;
  /** The object the write changes, when it names one. */
  changed?: ChangedObject | null;
  /** Otherwise the object it made, from its answer. */
  made?: (result: T) => AuditTarget | null;
}

/** The interactive form of `$transaction`, which the tenant client and the plain one both have (among overloads). */
interface Transactional {
  $transaction<R>(work: (tx: never) => Promise<R>, options?: { timeout?: number; maxWait?: number }): Promise<R>;
}

/** The longest write (a 100,000-row import) fits: the write's own transaction is this one. */
const WRITE_TRANSACTION = { timeout: 120_000, maxWait: 10_000 };

/** What stands for a masked value. The request log censors keys with the same word. */
const MASKED = '[redacted]';

// Members whose values never enter the trail, at any depth: sealed secrets,
// hashes, passwords, tokens, credentials, and every header a request is sent with.
const SECRET_MEMBER = /secret|password|credential|token|hash|authorization|api_?key/i;
const HEADERS_MEMBER = /headers$/i;
// A person's own data (what erasure empties, src/db/sql/erase-prospect.ts): changed, but not shown.
const PERSONAL_MEMBERS: Record<string, ReadonlySet<string>> = {
  Prospect: new Set(['firstName', 'lastName', 'email', 'phone', 'timezone', 'attributes']),
};
// Changed by every write: noise in a trail.
const UNRECORDED_MEMBERS = new Set(['updatedAt', 'lastUsedAt']);

/** A stored value as JSON; with `mask`, its secrets and headers masked at any depth. */
function jsonOf(value: unknown, mask: boolean): unknown {
  if (value === null || value === undefined) return null;
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'bigint') return value.toString();
  if (value instanceof Uint8Array) return mask ? MASKED : Buffer.from(value).toString('base64');
  if (Array.isArray(value)) return value.map((item) => jsonOf(item, mask));
  if (typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([member, inner]) => {
      if (!mask) return [member, jsonOf(inner, false)];
      if (SECRET_MEMBER.test(member)) return [member, MASKED];
      if (HEADERS_MEMBER.test(member) && inner && typeof inner === 'object' && !Array.isArray(inner)) {
        return [member, Object.fromEntries(Object.keys(inner).map((name) => [name, MASKED]))];
      }
      return [member, jsonOf(inner, true)];
    }),
  );
}

const same = (a: unknown, b: unknown) => JSON.stringify(jsonOf(a, false)) === JSON.stringify(jsonOf(b, false));

/**
 * The members that differ between two rows of `type`: {member: {before,
 * after}}; a secret's or a person's member shows that it changed, both sides
 * masked. Null when none differs.
 */
function changesOf(type: string, before: Record<string, unknown>, after: Record<string, unknown>) {
  const personal = PERSONAL_MEMBERS[type];
  const changes: Record<string, { before: unknown; after: unknown }> = {};
  for (const member of new Set([...Object.keys(before), ...Object.keys(after)])) {
    if (UNRECORDED_MEMBERS.has(member) || same(before[member], after[member])) continue;
    changes[member] =
      SECRET_MEMBER.test(member) || personal?.has(member)
        ? { before: MASKED, after: MASKED }
        : { before: jsonOf(before[member], true), after: jsonOf(after[member], true) };
  }
  return Object.keys(changes).length > 0 ? changes : null;
}

/**
 * Runs `work` and appends its audit event, in one transaction: `work` gets
 * that transaction as its client, and the domain's own `$transaction` calls
 * join it (src/db/joined-transaction.ts). A write that throws appends nothing.
 */
export async function recordWrite<Client extends { $transaction: unknown }, T>(
  client: Client,
  write: AuditedWrite<T>,
  work: (tx: Client) => Promise<T>,
): Promise<T> {
  return (client as unknown as Transactional).$transaction(async (tx: never) => {
    const { changed } = write;
    const before = changed ? await changed.read(tx) : null;
    const result = await work(joinedTransaction<Client>(tx));
    const after = changed && before ? await changed.read(tx) : null;
    const target = changed?.target ?? write.made?.(result) ?? null;
    const changes = before && after && changed ? changesOf(changed.target.type, before, after) : null;
    await (tx as unknown as PrismaClient).auditEvent.create({
      data: {
        organizationId: write.organizationId,
        ...write.actor,
        operation: write.operation,
        resourceType: target?.type ?? null,
        resourceId: target?.id ?? null,
        ...(changes ? { changes: changes as Prisma.InputJsonValue } : {}),
      },
    });
    return result;
  }, WRITE_TRANSACTION);
}

const DAY_MS = 86_400_000;

/**
 * Deletes the audit events older than `days` before `now`, every
 * organization's, in transactions of AUDIT_RETENTION_BATCH events; answers how many.
 */
export async function deleteExpiredEvents(prisma: PrismaClient, now: Date, days: number): Promise<number> {
  const before = new Date(now.getTime() - days * DAY_MS);
  let deleted = 0;
  for (;;) {
    const count = await prisma.$transaction((tx) => deleteExpiredAuditEvents(tx, before, AUDIT_RETENTION_BATCH));
    deleted += count;
    if (count < AUDIT_RETENTION_BATCH) return deleted;
  }
}
