// SIP trunks and phone numbers.
//
// POST /sip-trunks creates an inbound and an outbound trunk sharing one `pairId`, the
// address and the credentials. A number row has a single `sipTrunkId`, so the
// numbers POST /sip-trunks creates are stored on the outbound trunk: the product's calls are
// outbound (runs call prospects) and the numbers are their caller ids. Inbound
// calls to those numbers arrive on the inbound trunk of the same pair, so for
// reading, a number belongs to the whole pair: both trunks list the pair's
// numbers and report the same `phoneCount`, whichever trunk of the pair a
// number was stored on (POST /phone-numbers and /phone-numbers/bulk store it on the trunk the client named). A
// dashboard showing the pair therefore never shows "0 numbers" on one half.
//
// When calls go through LiveKit (DIALER=livekit), the trunks live there too
// (a `TrunkDirectory`): POST /sip-trunks creates the pair there first and stores its ids
// here, POST /phone-numbers and /phone-numbers/bulk add the numbers there first. A LiveKit failure is a
// BAD_GATEWAY (502) with nothing written here; a local write that fails after
// LiveKit accepted is compensated (the pair deleted, the numbers removed there).
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { isUniqueViolation } from '../db/prisma-errors.ts';
import { numbersOfPairs as numbersOfPairRows } from '../db/sql/numbers-of-pairs.ts';
import type { TenantClient } from '../db/tenant.ts';
import { rowKey } from '../db/tenant.ts';
import type { Tx } from '../db/tx.ts';
import type { PhoneNumber, SipTrunk } from '../generated/prisma/client.ts';
import { int } from '../records/values.ts';
import { conflict, notFound } from './errors.ts';
import { limits } from './limits.ts';
import type { Scope } from './scope.ts';
import type { SecretBox } from './secrets.ts';

/** SIP trunk providers, in SPEC.md's order. */
export const sipTrunkProviders = ['twilio', 'telnyx', 'custom', 'plivo', 'vonage', 'other'] as const;

const DEFAULT_MAX_CONCURRENCY = 10;

export const e164 = z
  .string()
  .regex(/^\+[0-9]{8,15}$/, { message: 'must be E.164: + and 8 to 15 digits' })
  .meta({ description: 'E.164: + and 8 to 15 digits' });

const label = z.string().max(200).meta({ description: 'a free label, default empty;' });

/** The trunk a number is added to (POST /phone-numbers, /phone-numbers/bulk). */
const numberTrunkId = z.string().min(1).meta({
  description:
    'the trunk the numbers are stored on (`trk_…`); an unknown one, or another organization’s, is NOT_FOUND (404);',
});

export const sipTrunkCreate = z
  .strictObject({
    name: z.string().min(1).max(200).meta({ description: 'the name both trunks of the pair get;' }),
    address: z
      .string()
      .min(1)
      .max(500)
      .meta({ description: 'the SIP address the trunks connect to, shared by the pair;' }),
    provider: z.enum(sipTrunkProviders).meta({ description: 'the SIP provider;' }),
    phone_numbers: z
      .array(e164)
      .min(1)
      .max(limits.bulkItems)
      .meta({ description: 'E.164 numbers, created on the outbound trunk;' }),
    auth_username: z
      .string()
      .max(200)
      .optional()
      .meta({ description: 'SIP authentication user name, shared by the pair;' }),
    auth_password: z.string().max(500).optional().meta({ description: 'encrypted at rest and never returned;' }),
    max_concurrency: int(1)
      .optional()
      .meta({
        description: `calls in flight at once on each trunk, over every instance; default ${DEFAULT_MAX_CONCURRENCY};`,
      }),
  })
  .meta({
    id: 'SipTrunkCreate',
    description:
      "E15's body: a pair of trunks (inbound and outbound) sharing name, address and credentials, and the pair's numbers.",
  });
type SipTrunkCreate = z.output<typeof sipTrunkCreate>;

export const phoneNumberCreate = z
  .strictObject({ number: e164, sip_trunk_id: numberTrunkId, label: label.optional() })
  .meta({ id: 'PhoneNumberCreate', description: "E16's body: one number to add to a trunk." });
type PhoneNumberCreate = z.output<typeof phoneNumberCreate>;

const phoneNumberEntry = z
  .strictObject({ number: e164, label: label.optional() })
  .meta({ id: 'PhoneNumberEntry', description: 'A number to add, with its label.' });

export const phoneNumbersCreate = z
  .strictObject({
    numbers: z
      .array(phoneNumberEntry)
      .min(1)
      .max(limits.bulkItems)
      .meta({ description: 'the numbers; one given twice is a CONFLICT (409);' }),
    sip_trunk_id: numberTrunkId,
  })
  .meta({ id: 'PhoneNumbersCreate', description: "E17's body: numbers to add to one trunk, all or nothing." });
type PhoneNumbersCreate = z.output<typeof phoneNumbersCreate>;

type NumberEntry = z.output<typeof phoneNumberEntry>;

/** A trunk as the SIP service (LiveKit) knows it. */
export interface RemoteTrunk {
  id: string;
  direction: 'inbound' | 'outbound';
}

/**
 * The SIP service calls go through (src/livekit/trunks.ts), where trunks must
 * exist as well. Every method throws a BAD_GATEWAY DomainError when the
 * service fails.
 */
export interface TrunkDirectory {
  /** Creates an inbound and an outbound trunk with the pair's numbers; answers their ids there. */
  createPair(pair: {
    name: string;
    address: string;
    numbers: string[];
    authUsername: string | null;
    authPassword: string | null;
  }): Promise<{ inboundId: string; outboundId: string }>;
  deleteTrunks(ids: string[]): Promise<void>;
  addNumbers(trunks: RemoteTrunk[], numbers: string[]): Promise<void>;
  removeNumbers(trunks: RemoteTrunk[], numbers: string[]): Promise<void>;
}

/**
 * Makes a change in the SIP service, then the same change here; when the local
 * write fails, `undo` takes the change back there (its own failure cannot be
 * helped, and the write's error is the one to report).
 */
async function remoteThenLocal<R, T>(
  remote: () => Promise<R>,
  write: (made: R) => Promise<T>,
  undo: (made: R) => Promise<void>,
): Promise<T> {
  const made = await remote();
  try {
    return await write(made);
  } catch (error) {
    await undo(made).catch(() => {});
    throw error;
  }
}

type NumberClient = Pick<TenantClient, 'phoneNumber'>;

const described = (numbers: string[]) => numbers.slice(0, 20).join(', ') + (numbers.length > 20 ? ', …' : '');

/** A number given twice in one request is a conflict with itself: nothing is written. */
function refuseRepeats(numbers: string[]) {
  const seen = new Set<string>();
  const repeated = new Set(numbers.filter((number) => seen.has(number) || !seen.add(number)));
  if (repeated.size > 0) {
    throw conflict(`phone number given more than once: ${described([...repeated])}`, { numbers: [...repeated] });
  }
}

async function existingNumbers(prisma: NumberClient, numbers: string[]) {
  const rows = await prisma.phoneNumber.findMany({ where: { number: { in: numbers } }, select: { number: true } });
  return rows.map((row) => row.number);
}

const alreadyExist = (numbers: string[]) => conflict(`phone number already exists: ${described(numbers)}`, { numbers });

/**
 * Runs `write` in one transaction after refusing numbers the organization
 * already has. The check makes the usual 409 name the numbers; the unique
 * index (organizationId, number) is what stops two concurrent requests, and
 * its violation becomes the same 409.
 */
async function writeNumbers<T>(scope: Scope, numbers: string[], write: (tx: Tx<TenantClient>) => Promise<T>) {
  refuseRepeats(numbers);
  try {
    return await scope.prisma.$transaction(async (tx) => {
      const existing = await existingNumbers(tx, numbers);
      if (existing.length > 0) throw alreadyExist(existing);
      return write(tx);
    });
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    const existing = await existingNumbers(scope.prisma, numbers);
    throw alreadyExist(existing.length > 0 ? existing : numbers);
  }
}

/** The usual 409s, before anything is sent to the SIP service; writeNumbers checks again (and the index decides). */
async function refuseTaken(scope: Scope, numbers: string[]) {
  refuseRepeats(numbers);
  const existing = await existingNumbers(scope.prisma, numbers);
  if (existing.length > 0) throw alreadyExist(existing);
}

// Rows per INSERT. Prisma splits a larger createMany by itself, but sends the
// parts of one transaction at once (pg warns that this stops working in pg 9);
// parts of this size fit one statement each, sent one after the other.
const INSERT_CHUNK = 1000;

async function insertNumbers(tx: NumberClient, trunk: SipTrunk, entries: NumberEntry[], now = new Date()) {
  const created: PhoneNumber[] = [];
  for (let start = 0; start < entries.length; start += INSERT_CHUNK) {
    const rows = await tx.phoneNumber.createManyAndReturn({
      data: entries.slice(start, start + INSERT_CHUNK).map((entry) => ({
        organizationId: trunk.organizationId,
        sipTrunkId: trunk.id,
        number: entry.number,
        label: entry.label ?? '',
        // The trunk's provider, copied so a number reads without its trunk.
        provider: trunk.provider,
        createdAt: now,
      })),
    });
    created.push(...rows);
  }
  return created;
}

/** POST /sip-trunks: an inbound and an outbound trunk, and the numbers on the outbound one, all or nothing (in LiveKit too, with `directory`). */
export async function createSipTrunk(
  scope: Scope,
  secrets: SecretBox,
  data: SipTrunkCreate,
  directory: TrunkDirectory | null = null,
) {
  // One timestamp for the pair and its numbers, so lists sorted by creation keep them together.
  const now = new Date();
  const shared = {
    organizationId: scope.viewer.organizationId,
    pairId: `pair_${randomUUID().replaceAll('-', '')}`,
    name: data.name,
    provider: data.provider,
    address: data.address,
    authUsername: data.auth_username ?? null,
    // An empty password means none; the ciphertext is shared by both trunks of the pair.
    authPasswordEncrypted: data.auth_password ? secrets.seal(data.auth_password) : null,
    maxConcurrency: data.max_concurrency ?? DEFAULT_MAX_CONCURRENCY,
    createdAt: now,
  };
  const entries = data.phone_numbers.map((number) => ({ number }));
  const write = (remote: { inboundId: string; outboundId: string } | null) =>
    writeNumbers(scope, data.phone_numbers, async (tx) => {
      const inboundTrunk = await tx.sipTrunk.create({
        data: { ...shared, direction: 'inbound', livekitTrunkId: remote?.inboundId },
      });
      const outboundTrunk = await tx.sipTrunk.create({
        data: { ...shared, direction: 'outbound', livekitTrunkId: remote?.outboundId },
      });
      const phoneNumbers = await insertNumbers(tx, outboundTrunk, entries, now);
      return { inboundTrunk, outboundTrunk, phoneNumbers };
    });
  if (!directory) return write(null);
  await refuseTaken(scope, data.phone_numbers);
  return remoteThenLocal(
    () =>
      directory.createPair({
        name: data.name,
        address: data.address,
        numbers: data.phone_numbers,
        authUsername: shared.authUsername,
        authPassword: data.auth_password || null,
      }),
    write,
    ({ inboundId, outboundId }) => directory.deleteTrunks([inboundId, outboundId]),
  );
}

/** The trunks of a pair that the SIP service knows, outbound first (a pair made before DIALER=livekit has none there). */
async function remoteTrunksOfPair(scope: Scope, trunk: SipTrunk): Promise<RemoteTrunk[]> {
  const pair = trunk.pairId ? await scope.prisma.sipTrunk.findMany({ where: { pairId: trunk.pairId } }) : [trunk];
  return pair
    .flatMap((member) => (member.livekitTrunkId ? [{ id: member.livekitTrunkId, direction: member.direction }] : []))
    .sort((a, b) => (a.direction === b.direction ? 0 : a.direction === 'outbound' ? -1 : 1));
}

async function numbersOnTrunk(scope: Scope, trunkId: string, entries: NumberEntry[], directory: TrunkDirectory | null) {
  // Through the tenant client: another organization's trunk reads as missing,
  // and that answer comes before any about the numbers.
  const trunk = await scope.prisma.sipTrunk.findUnique({ where: rowKey(scope.viewer.organizationId, trunkId) });
  if (!trunk) throw notFound('sip trunk');
  const numbers = entries.map((entry) => entry.number);
  const write = () => writeNumbers(scope, numbers, (tx) => insertNumbers(tx, trunk, entries));
  const remoteTrunks = directory ? await remoteTrunksOfPair(scope, trunk) : [];
  if (!directory || remoteTrunks.length === 0) return write();
  // A number belongs to the whole pair: both trunks there get it (inbound: calls to it; outbound: it as caller id).
  await refuseTaken(scope, numbers);
  return remoteThenLocal(
    () => directory.addNumbers(remoteTrunks, numbers),
    write,
    () => directory.removeNumbers(remoteTrunks, numbers),
  );
}

/** POST /phone-numbers: one number on a trunk of the caller's organization. */
export async function createPhoneNumber(
  scope: Scope,
  data: PhoneNumberCreate,
  directory: TrunkDirectory | null = null,
) {
  const [created] = await numbersOnTrunk(scope, data.sip_trunk_id, [data], directory);
  return created!;
}

/** POST /phone-numbers/bulk: many numbers on one trunk, all or nothing. */
export async function createPhoneNumbers(
  scope: Scope,
  data: PhoneNumbersCreate,
  directory: TrunkDirectory | null = null,
) {
  const created = await numbersOnTrunk(scope, data.sip_trunk_id, data.numbers, directory);
  return { count: created.length, created };
}

/** Trunks of one pair share this key; a trunk made outside a pair is its own pair. */
export const pairKeyOf = (trunk: Pick<SipTrunk, 'id' | 'pairId'>) => trunk.pairId ?? trunk.id;

/**
 * The numbers of each pair, keyed by `pairKeyOf`, in one statement. Raw SQL is
 * not confined by the tenant client, so the organization is named here.
 */
export async function numbersOfPairs(prisma: TenantClient, organizationId: string, pairKeys: readonly string[]) {
  const rows = await numbersOfPairRows(prisma, organizationId, [...pairKeys]);
  const groups = new Map<string, PhoneNumber[]>(pairKeys.map((key) => [key, []]));
  for (const { pairKey, ...number } of rows) groups.get(pairKey)?.push(number);
  return pairKeys.map((key) => groups.get(key) ?? []);
}
