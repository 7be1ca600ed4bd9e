// The database as requests use it: work that meets a transient error (a lost
// connection, a deadlock, a serialization failure: src/db/transient.ts) is run
// again instead of failing the request. A transaction is retried whole; a
// statement outside a transaction on its own. A statement inside a transaction
// is never retried by itself: after such an error the transaction is gone, and
// only running all of it again can succeed.
//
// The run engine does not use this: it retries its own writes (src/engine/).
import { AsyncLocalStorage } from 'node:async_hooks';
import { Prisma, PrismaClient } from '../generated/prisma/client.ts';
import type { Database, SqlRunner } from './database.ts';
import { retryTransient } from './transient.ts';

/** Set while a transaction's work runs: its statements are retried with it, not one by one. */
const insideTransaction = new AsyncLocalStorage<true>();

const runTransaction = PrismaClient.prototype.$transaction as (...args: unknown[]) => Promise<unknown>;

function retryingClient(prisma: PrismaClient): PrismaClient {
  return prisma.$extends({
    name: 'transient-retries',
    client: {
      $transaction(...args: unknown[]) {
        // The client this was called on, with every extension made on top of this one
        // (tenancy, src/db/tenant.ts): the transaction's client must carry them all.
        const client = Prisma.getExtensionContext(this);
        const run = () => insideTransaction.run(true, () => runTransaction.apply(client, args));
        // Retried whole; not when nested in a transaction (retried with that one), nor a list of
        // queries (made before this call: they cannot be made again here).
        return typeof args[0] === 'function' && !insideTransaction.getStore() ? retryTransient(run) : run();
      },
    },
    query: {
      $allOperations({ args, query }) {
        return insideTransaction.getStore() ? query(args) : retryTransient(() => query(args));
      },
    },
  }) as unknown as PrismaClient;
}

function retryingRunner(sql: SqlRunner): SqlRunner {
  return {
    query: (text, params, options) => retryTransient(() => sql.query(text, params, options)),
    exec: (text) => retryTransient(() => sql.exec(text)),
    // The transaction's own queryable is the inner one: its statements are not retried one by one.
    transaction: (work) => retryTransient(() => sql.transaction(work)),
  };
}

/** The same database, retrying what meets a transient error (for requests). */
export function retryingDatabase(db: Database): Database {
  return { ...db, prisma: retryingClient(db.prisma), sql: retryingRunner(db.sql) };
}
