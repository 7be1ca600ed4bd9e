// The clients SQL runs on: a transaction's client, and what a raw statement needs.
import type { PrismaClient } from '../generated/prisma/client.ts';

/**
 * The client a transaction's callback receives: of the plain client by
 * default, or of an extended one (`Tx<TenantClient>`, src/db/tenant.ts).
 */
export type Tx<Client = PrismaClient> = Client extends {
  $transaction(work: (tx: infer Transaction) => Promise<unknown>, ...options: never[]): unknown;
}
  ? Transaction
  : never;

/**
 * What a raw statement (src/db/sql/) needs: any client or transaction, tenant
 * ones included; the unsafe form for DDL, which takes no parameters
 * (src/db/sql/create-run-partition.ts).
 */
export type SqlClient = Pick<PrismaClient, '$executeRaw' | '$queryRaw' | '$executeRawUnsafe'>;
