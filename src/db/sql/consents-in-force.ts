import type { SqlClient } from '../tx.ts';

/** A run's live consent: the newest of its batch's consent_scope (any scope without one); null: none. */
interface ConsentInForce {
  runId: string;
  consentId: string | null;
}

/**
 * For each run about to place a call, at `now`: the live consent (docs/consent.md),
 * which its batch may require and its attempt records either way. A consent is live when it is
 * not expired and no revocation of its scope is dated at or after its capture.
 * Index: "Run_pkey" and "Batch_pkey", a probe per run; the prospect's entries
 * on "Consent_prospectId_scope_capturedAt_idx" (its newest first).
 */
export function consentsInForce(client: SqlClient, runIds: string[], now: Date) {
  return client.$queryRaw<ConsentInForce[]>`
    SELECT r.id AS "runId", live.id AS "consentId"
    FROM unnest(${runIds}::text[]) AS given(id)
    JOIN "Run" r ON r.id = given.id
    JOIN "Batch" b ON b.id = r."batchId"
    LEFT JOIN LATERAL (
      SELECT c.id FROM "Consent" c
      WHERE c."prospectId" = r."prospectId" AND c."organizationId" = r."organizationId"
        AND c."revokedAt" IS NULL AND c.channel = 'voice'
        AND (b."consentScope" IS NULL OR c.scope = b."consentScope")
        AND (c."expiresAt" IS NULL OR c."expiresAt" > ${now})
        AND NOT EXISTS (
          SELECT 1 FROM "Consent" k
          WHERE k."prospectId" = c."prospectId" AND k.scope = c.scope AND k."organizationId" = c."organizationId"
            AND k."revokedAt" IS NOT NULL AND k."revokedAt" >= c."capturedAt")
      ORDER BY c."capturedAt" DESC, c.id DESC LIMIT 1
    ) AS live ON true`;
}
