import type { SqlClient } from '../tx.ts';

/**
 * Empties the evidence of an erased prospect's consent entries (a signed
 * form's address, a note of what the person said); the entries stay, dated,
 * so the history still tells what was allowed when. Answers how many changed.
 * Index: "Consent_prospectId_scope_capturedAt_idx" (its leading column).
 */
export function eraseProspectConsents(tx: SqlClient, organizationId: string, prospectId: string) {
  return tx.$executeRaw`
    UPDATE "Consent" SET evidence = NULL
    WHERE "prospectId" = ${prospectId} AND "organizationId" = ${organizationId} AND evidence IS NOT NULL`;
}
