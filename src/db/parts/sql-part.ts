import type { Prisma } from '../../generated/prisma/client.ts';

/** A piece of SQL with a key naming it, so requests with equal SQL can share one statement. */
export interface SqlPart {
  sql: Prisma.Sql;
  key: string;
}
