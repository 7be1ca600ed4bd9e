// A prospect's consent history (POST/GET /prospects/{prospect_id}/consents,
// POST …/consents/revoke; GraphQL `Prospect.consents`, `addConsent`,
// `revokeConsent`; CSV import's consent_* columns; a call record's
// `consent_revoked`). Append-only: a revocation is an entry of its own, dated
// `revoked_at`, that revokes the consents of its scope captured before it; a
// later consent is live again. The engine reads the live one before each call
// (src/db/sql/live-consents.ts). docs/consent.md.
import { z } from 'zod';
import type { Tx } from '../db/tx.ts';
import { consentChannels } from '../records/consents.ts';
import { notFound } from './errors.ts';
import type { Scope } from './scope.ts';

/** The bounds of an entry's members (docs/limits.md). */
const CONSENT_BOUNDS = { label: 100, evidence: 2_000, listed: 1_000 } as const;

/** A URI scheme followed at once by its address ("https://…", "javascript:…"), not words ("Note: …"). */
const ADDRESS = /^[a-z][a-z0-9+.-]*:\S/i;
const https = z.url({ protocol: /^https$/, hostname: z.regexes.domain });

/** Text, or an https address: any other address (http:, javascript:, data:) is refused. */
const consentEvidence = z
  .string()
  .trim()
  .min(1)
  .max(CONSENT_BOUNDS.evidence)
  .refine((text) => !ADDRESS.test(text) || https.safeParse(text).success, {
    message: 'must be text or an https address',
  });

export const consentScopeName = z
  .string()
  .trim()
  .min(1)
  .max(CONSENT_BOUNDS.label)
  .meta({ description: 'a free label of what the person agreed to be called about ("renewals")' });

const instant = () => z.iso.datetime({ offset: true });

export const consentAdd = z
  .strictObject({
    channel: z.enum(consentChannels).default('voice').meta({ description: 'the channel consented to;' }),
    scope: consentScopeName,
    source: z
      .string()
      .trim()
      .min(1)
      .max(CONSENT_BOUNDS.label)
      .meta({ description: 'where it was given: `web_form`, `call`, `import`, …;' }),
    captured_at: instant().meta({ description: 'RFC 3339: when the person gave it;' }),
    evidence: consentEvidence.meta({ description: 'what shows it: text, or an https address (a signed form);' }),
    expires_at: instant().optional().meta({ description: 'RFC 3339: when it lapses, after captured_at; none: never;' }),
  })
  .refine((input) => !input.expires_at || Date.parse(input.expires_at) > Date.parse(input.captured_at), {
    path: ['expires_at'],
    message: 'must be after captured_at',
    when: (payload) => payload.issues.length === 0,
  })
  .meta({ id: 'ConsentAdd', description: "A consent to add to the prospect's history." });
export type ConsentAdd = z.output<typeof consentAdd>;

export const consentRevoke = z
  .strictObject({ scope: consentScopeName })
  .meta({ id: 'ConsentRevoke', description: 'The scope whose consents are revoked from now on.' });
type ConsentRevoke = z.output<typeof consentRevoke>;

/** The consent columns a CSV row's consent_* cells or an input write. */
export const consentColumns = (input: ConsentAdd) => ({
  channel: input.channel,
  scope: input.scope,
  source: input.source,
  capturedAt: new Date(input.captured_at),
  evidence: input.evidence,
  expiresAt: input.expires_at ? new Date(input.expires_at) : null,
});

async function prospectOf(tx: Tx<Scope['prisma']>, prospectId: string) {
  const prospect = await tx.prospect.findFirst({ where: { id: prospectId }, select: { id: true } });
  if (!prospect) throw notFound('prospect');
  return prospect;
}

/** Adds a consent to the organization's prospect `prospectId` and answers it; NOT_FOUND for another's. */
export async function addConsent(scope: Scope, prospectId: string, input: ConsentAdd) {
  return scope.prisma.$transaction(async (tx) => {
    await prospectOf(tx, prospectId);
    return tx.consent.create({
      data: { organizationId: scope.viewer.organizationId, prospectId, ...consentColumns(input) },
    });
  });
}

/**
 * Appends a revocation of `scopes` for the prospect, dated `now`, unless the
 * scope's newest entry is a revocation already (a call record reported twice
 * revokes once).
 */
export async function appendRevocations(
  tx: Tx<Scope['prisma']>,
  organizationId: string,
  prospectId: string,
  scopes: string[],
  how: { source: string; evidence: string | null },
  now: Date,
) {
  for (const name of scopes) {
    const newest = await tx.consent.findFirst({
      where: { prospectId, scope: name },
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      select: { revokedAt: true },
    });
    if (newest?.revokedAt) continue;
    await tx.consent.create({
      data: {
        organizationId,
        prospectId,
        scope: name,
        source: how.source,
        capturedAt: now,
        evidence: how.evidence,
        revokedAt: now,
      },
    });
  }
}

/** Revokes the prospect's consents of a scope from now on (a revocation entry); answers the prospect. */
export async function revokeConsent(scope: Scope, prospectId: string, input: ConsentRevoke) {
  return scope.prisma.$transaction(async (tx) => {
    await prospectOf(tx, prospectId);
    await appendRevocations(
      tx,
      scope.viewer.organizationId,
      prospectId,
      [input.scope],
      { source: 'api', evidence: null },
      new Date(),
    );
    return (await tx.prospect.findFirst({ where: { id: prospectId } }))!;
  });
}

/** The prospect's history, newest first (the newest CONSENT_BOUNDS.listed entries). */
export const consentsOf = (scope: Pick<Scope, 'prisma'>, prospectId: string) =>
  scope.prisma.consent.findMany({
    where: { prospectId },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take: CONSENT_BOUNDS.listed,
  });
