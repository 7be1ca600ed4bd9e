import type { SqlClient } from '../tx.ts';

/**
 * Of these organizations' numbers, those on their organization's do-not-call list.
 * Index: "DoNotCallNumber_pkey" ("organizationId", number), one probe per number.
 */
export function doNotCallEntries(client: SqlClient, numbers: { organizationId: string; number: string }[]) {
  return client.$queryRaw<{ organizationId: string; number: string }[]>`
    SELECT d."organizationId", d.number FROM "DoNotCallNumber" AS d
    JOIN unnest(${numbers.map((entry) => entry.organizationId)}::text[], ${numbers.map((entry) => entry.number)}::text[])
      AS wanted("organizationId", number) ON d."organizationId" = wanted."organizationId" AND d.number = wanted.number`;
}
