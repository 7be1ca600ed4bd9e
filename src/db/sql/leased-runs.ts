// Which runs in progress are taken back (src/engine/run-recovery.ts): the
// condition shared by batches-of-leased-runs.ts and lock-leased-runs.ts.
import { Prisma } from '../../generated/prisma/client.ts';

/** `owner`'s `runIds` (it is stopping), or any run whose lease ran out before `expiredBefore`. */
export type LeasedRuns = { runIds: string[]; owner: string } | { expiredBefore: Date };

/** The condition on the run `r`: on "Run_pkey" for ids, on "Run_leaseExpiresAt_idx" for expired leases. */
export const leasedRunCondition = (runs: LeasedRuns) =>
  'runIds' in runs
    ? Prisma.sql`r.id = ANY(${runs.runIds}::text[]) AND r."leaseOwner" = ${runs.owner}`
    : Prisma.sql`r."leaseExpiresAt" < ${runs.expiredBefore}`;
