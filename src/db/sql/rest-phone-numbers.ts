import type { SqlClient } from '../tx.ts';

/**
 * Rests the organization's numbers given (by id) until `until`, for `reason`,
 * those not rested already when `onlyAwake` (the breaker rests a number once,
 * not again while it rests); its figures start afresh when the rest ends
 * (number-health-figures.ts).
 * Answers the ids rested.
 * Index: "PhoneNumber_pkey", one probe per id.
 */
export async function restPhoneNumbers(
  tx: SqlClient,
  organizationId: string,
  ids: string[],
  until: Date,
  reason: string,
  awakeAt: Date | null,
) {
  const rows = await tx.$queryRaw<{ id: string }[]>`
    UPDATE "PhoneNumber" SET "restedUntil" = ${until}, "restedReason" = ${reason},
      "updatedAt" = now()
    WHERE "organizationId" = ${organizationId} AND id = ANY(${ids}::text[])
      AND (${awakeAt}::timestamptz IS NULL OR "restedUntil" IS NULL OR "restedUntil" <= ${awakeAt}::timestamptz)
    RETURNING id`;
  return rows.map((row) => row.id);
}
