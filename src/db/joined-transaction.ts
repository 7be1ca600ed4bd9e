// A transaction handed to code written to open its own: the domain's
// operations call `$transaction` on the client they are given, and run in
// the caller's transaction instead when that client is one (a write and its
// audit event commit together, src/domain/audit-log.ts). The inner one is a
// savepoint: when it fails, its statements are undone and the caller's
// transaction goes on, as after a transaction of its own rolled back (a
// refused batch's creation reads which prospects were unknown, then refuses).

import type { PrismaClient } from '../generated/prisma/client.ts';

/** What a savepoint needs. */
type SqlClient = Pick<PrismaClient, '$executeRawUnsafe'>;

// biome-ignore lint/suspicious/noExplicitAny: Prisma's transaction clients vary per model and extension.
type Work = (client: any) => Promise<unknown>;

/**
 * `tx` as a client whose `$transaction` joins `tx`: a callback runs on it at
 * once, a list of queries runs in order; the options (timeouts) are the
 * outer transaction's. Typed as the client the callee expects (`Client`).
 */
export function joinedTransaction<Client>(tx: object): Client {
  const statement = (tx as SqlClient).$executeRawUnsafe.bind(tx);
  let savepoints = 0;
  const run = async (work: Work | Promise<unknown>[]) => {
    const savepoint = `joined_${++savepoints}`;
    await statement(`SAVEPOINT ${savepoint}`);
    try {
      let result: unknown;
      if (typeof work === 'function') result = await work(client);
      else {
        const results: unknown[] = [];
        for (const query of work) results.push(await query);
        result = results;
      }
      await statement(`RELEASE SAVEPOINT ${savepoint}`);
      return result;
    } catch (error) {
      await statement(`ROLLBACK TO SAVEPOINT ${savepoint}`);
      throw error;
    }
  };
  const client: object = new Proxy(tx, {
    get(target, property) {
      if (property === '$transaction') return run;
      const value = Reflect.get(target, property);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return client as Client;
}
