import type { SqlClient } from '../tx.ts';

/**
 * Empties the organization's prospect `prospectId`'s personal members (names,
 * e-mail, phone, zone, attributes: '' and '{}', a zone null) and stamps when
 * it was erased, once: a second erasure keeps the first's time. Answers the
 * prospect's id and whether this erasure was its first; no row for an
 * unknown prospect or another organization's.
 * Index: "Prospect_pkey" (the row is taken, so concurrent erasures run one after the other).
 */
export async function eraseProspect(tx: SqlClient, organizationId: string, prospectId: string, now: Date) {
  const rows = await tx.$queryRaw<{ id: string; first: boolean }[]>`
    WITH before AS (
      SELECT id, "erasedAt" FROM "Prospect"
      WHERE id = ${prospectId} AND "organizationId" = ${organizationId} FOR UPDATE
    )
    UPDATE "Prospect" AS p SET "firstName" = '', "lastName" = '', email = '', phone = '', timezone = NULL,
      attributes = '{}'::jsonb, "erasedAt" = COALESCE(before."erasedAt", ${now}), "updatedAt" = ${now}
    FROM before WHERE p.id = before.id
    RETURNING p.id, before."erasedAt" IS NULL AS first`;
  return rows[0] ?? null;
}
