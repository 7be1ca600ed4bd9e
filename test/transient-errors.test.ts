// Which database errors are transient, judged on errors a real database
// produces, as they reach our code: through Prisma over its driver adapter,
// and through the driver directly. Then retryTransient's backoff.

import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../src/db/database.ts';
import { isTransientDatabaseError, retryTransient } from '../src/db/transient.ts';
import { notFound } from '../src/domain/errors.ts';
import { prepareDatabase } from '../src/domain/prepare-database.ts';
import { PrismaClient } from '../src/generated/prisma/client.ts';
import { freePort } from './support/processes.ts';
import { createTestStorage, onPostgres, type TestStorage } from './support/storage.ts';

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('expected a failure');
    },
    (error: unknown) => error,
  );

/** A statement that fails with the given SQLSTATE, raised by the database itself. */
const raise = (code: string) => `DO $$ BEGIN RAISE EXCEPTION 'raised by a test' USING ERRCODE = '${code}'; END $$`;

const TRANSIENT = ['57P01', '57P02', '57P03', '08000', '08003', '08006', '08P01', '40001', '40P01'];
const NOT_TRANSIENT = ['23505', '23503', '42601', '22023', 'P0001', '53300'];

let storage: TestStorage;
let db: Database;
beforeAll(async () => {
  storage = await createTestStorage();
  db = await prepareDatabase(storage.storage);
  // Inserting an organization fails with the SQLSTATE in raise_on_insert, when there is one.
  await db.sql.exec(`
    CREATE TABLE raise_on_insert (code text);
    CREATE FUNCTION raise_on_insert() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE wanted text;
    BEGIN
      SELECT code INTO wanted FROM raise_on_insert;
      IF wanted IS NOT NULL THEN RAISE EXCEPTION 'raised by a test' USING ERRCODE = wanted; END IF;
      RETURN NEW;
    END $$;
    CREATE TRIGGER raise_on_insert BEFORE INSERT ON "Organization" FOR EACH ROW EXECUTE FUNCTION raise_on_insert();`);
});
afterAll(async () => {
  await db.close();
  await storage.dispose();
});

/** The error a model query (not raw SQL) meets when the database raises `code`. */
async function modelQueryFailure(code: string) {
  await db.sql.query('DELETE FROM raise_on_insert');
  await db.sql.query('INSERT INTO raise_on_insert (code) VALUES ($1)', [code]);
  try {
    return await failure(db.prisma.organization.create({ data: { name: 'Raised' } }));
  } finally {
    await db.sql.query('DELETE FROM raise_on_insert');
  }
}

describe('isTransientDatabaseError, on errors the database raises', () => {
  it.each(TRANSIENT)(
    'recognises SQLSTATE %s through Prisma (raw and model queries) and through the driver',
    async (code) => {
      expect(isTransientDatabaseError(await failure(db.prisma.$executeRawUnsafe(raise(code))))).toBe(true);
      expect(isTransientDatabaseError(await modelQueryFailure(code))).toBe(true);
      expect(isTransientDatabaseError(await failure(db.sql.exec(raise(code))))).toBe(true);
    },
  );

  it.each(NOT_TRANSIENT)('does not take SQLSTATE %s for transient', async (code) => {
    expect(isTransientDatabaseError(await failure(db.prisma.$executeRawUnsafe(raise(code))))).toBe(false);
    expect(isTransientDatabaseError(await modelQueryFailure(code))).toBe(false);
    expect(isTransientDatabaseError(await failure(db.sql.exec(raise(code))))).toBe(false);
  });

  it('does not take a unique violation Prisma reports as P2002, nor errors of our own, for transient', async () => {
    const organization = await db.prisma.organization.create({ data: { name: 'Twice' } });
    const duplicate = await failure(db.prisma.organization.create({ data: { id: organization.id, name: 'Twice' } }));
    expect((duplicate as { code?: string }).code).toBe('P2002');
    expect(isTransientDatabaseError(duplicate)).toBe(false);
    for (const error of [
      notFound('batch'),
      new Error('boom'),
      null,
      undefined,
      'ECONNRESET',
      { message: 'Connection terminated' },
    ]) {
      expect(isTransientDatabaseError(error)).toBe(false);
    }
  });

  it('recognises a database that cannot be reached (ECONNREFUSED), through the driver and through Prisma', async () => {
    const port = await freePort();
    const client = new pg.Client({ host: '127.0.0.1', port, user: 'nobody', database: 'nothing' });
    expect(isTransientDatabaseError(await failure(client.connect()))).toBe(true);
    const prisma = new PrismaClient({
      adapter: new PrismaPg({ connectionString: `postgresql://nobody@127.0.0.1:${port}/nothing` }),
    });
    try {
      expect(isTransientDatabaseError(await failure(prisma.organization.count()))).toBe(true);
    } finally {
      await prisma.$disconnect();
    }
  });
});

describe.runIf(onPostgres)('isTransientDatabaseError, on PostgreSQL connections broken under work', () => {
  let admin: pg.Client;
  const databaseName = () => new URL((storage.storage as { url: string }).url).pathname.slice(1);
  beforeAll(async () => {
    admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
    await admin.connect();
  });
  afterAll(() => admin.end());

  /** Terminates, as an administrator would, the test database's backends once one is in `state` running `like`. */
  async function terminateWhen(state: string, like: string) {
    for (;;) {
      const { rows } = await admin.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
         WHERE datname = $1 AND state = $2 AND query LIKE $3 AND pid <> pg_backend_pid()`,
        [databaseName(), state, like],
      );
      if (rows.length > 0) return;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  it('recognises a connection terminated mid-statement (57P01), through Prisma and through the driver', async () => {
    const [viaPrisma] = await Promise.all([
      failure(db.prisma.$queryRawUnsafe('SELECT pg_sleep(30)')),
      terminateWhen('active', '%pg_sleep(30)%'),
    ]);
    expect(isTransientDatabaseError(viaPrisma)).toBe(true);

    const client = new pg.Client({ connectionString: (storage.storage as { url: string }).url });
    client.on('error', () => {});
    await client.connect();
    const [viaDriver] = await Promise.all([
      failure(client.query('SELECT pg_sleep(31)')),
      terminateWhen('active', '%pg_sleep(31)%'),
    ]);
    expect((viaDriver as { code?: string }).code).toBe('57P01');
    expect(isTransientDatabaseError(viaDriver)).toBe(true);
    // The same client afterwards: pg's uncoded error for a broken connection.
    expect(isTransientDatabaseError(await failure(client.query('SELECT 1')))).toBe(true);
    await client.end().catch(() => {});
  });

  it('recognises a connection terminated between the statements of a transaction', async () => {
    let terminated!: () => void;
    const afterTermination = new Promise<void>((resolve) => (terminated = resolve));
    const [error] = await Promise.all([
      failure(
        db.prisma.$transaction(async (tx) => {
          await tx.$queryRawUnsafe('SELECT 1 AS between_statements');
          await afterTermination;
          return tx.organization.count();
        }),
      ),
      terminateWhen('idle in transaction', '%between_statements%').then(terminated),
    ]);
    expect(isTransientDatabaseError(error)).toBe(true);
  });

  it('recognises the loser of a real deadlock between two transactions (40P01)', async () => {
    const [first, second] = await Promise.all([
      db.prisma.organization.create({ data: { name: 'First' } }),
      db.prisma.organization.create({ data: { name: 'Second' } }),
    ]);
    let locked = 0;
    let bothLocked!: () => void;
    const barrier = new Promise<void>((resolve) => (bothLocked = resolve));
    const lockInOrder = (ids: string[]) =>
      db.prisma.$transaction(async (tx) => {
        await tx.organization.update({ where: { id: ids[0] }, data: { name: 'locked' } });
        if (++locked === 2) bothLocked();
        await barrier;
        await tx.organization.update({ where: { id: ids[1] }, data: { name: 'locked' } });
      });
    const outcomes = await Promise.allSettled([lockInOrder([first.id, second.id]), lockInOrder([second.id, first.id])]);
    const losers = outcomes.filter((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
    expect(losers).toHaveLength(1);
    expect(JSON.stringify(losers[0]!.reason.meta?.driverAdapterError?.cause)).toContain('40P01');
    expect(isTransientDatabaseError(losers[0]!.reason)).toBe(true);
  });

  it('recognises a serialization failure between two serializable transactions (40001)', async () => {
    const organization = await db.prisma.organization.create({ data: { name: 'Contended' } });
    let read = 0;
    let bothRead!: () => void;
    const barrier = new Promise<void>((resolve) => (bothRead = resolve));
    const readThenWrite = (name: string) =>
      db.prisma.$transaction(
        async (tx) => {
          await tx.organization.findUnique({ where: { id: organization.id } });
          if (++read === 2) bothRead();
          await barrier;
          await tx.organization.update({ where: { id: organization.id }, data: { name } });
        },
        { isolationLevel: 'Serializable' },
      );
    const outcomes = await Promise.allSettled([readThenWrite('one'), readThenWrite('two')]);
    const losers = outcomes.filter((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
    expect(losers).toHaveLength(1);
    expect(JSON.stringify(losers[0]!.reason.meta?.driverAdapterError?.cause)).toContain('40001');
    expect(isTransientDatabaseError(losers[0]!.reason)).toBe(true);
  });
});

describe('retryTransient', () => {
  /** Work that fails with a real transient error (a serialization failure) its first `failures` times. */
  function flaky(failures: number, code = '40001') {
    const attempts: number[] = [];
    const work = async () => {
      attempts.push(Date.now());
      if (attempts.length <= failures) await db.sql.exec(raise(code));
      return 'done';
    };
    return { attempts, work };
  }

  it('runs the work again after transient failures until it succeeds', async () => {
    const { attempts, work } = flaky(2);
    const retried: number[] = [];
    await expect(
      retryTransient(work, { baseDelayMs: 1, onRetry: (_error, attempt) => retried.push(attempt) }),
    ).resolves.toBe('done');
    expect(attempts).toHaveLength(3);
    expect(retried).toEqual([1, 2]);
  });

  it('throws any other error at once', async () => {
    const { attempts, work } = flaky(1, '23505');
    await expect(retryTransient(work, { baseDelayMs: 1 })).rejects.toMatchObject({
      message: expect.stringContaining('raised by a test'),
    });
    expect(attempts).toHaveLength(1);
  });

  it('gives up after five attempts by default, with the last error', async () => {
    const { attempts, work } = flaky(Number.POSITIVE_INFINITY);
    const error = await failure(retryTransient(work));
    expect(isTransientDatabaseError(error)).toBe(true);
    expect(attempts).toHaveLength(5);
  });

  it('waits longer after each failure, up to the cap', async () => {
    const { attempts, work } = flaky(3);
    await retryTransient(work, { baseDelayMs: 100, maxDelayMs: 150 });
    const waits = attempts.slice(1).map((at, index) => at - attempts[index]!);
    // Between half and all of 100, 200 and 400 ms, each capped at 150 (a timer is never early, but may be late).
    expect(waits[0]).toBeGreaterThanOrEqual(49);
    expect(waits[1]).toBeGreaterThanOrEqual(74);
    expect(waits[2]).toBeGreaterThanOrEqual(74);
    expect(waits[2]).toBeLessThan(200);
  });

  it('stops waiting when its signal is aborted, with the signal’s reason', async () => {
    const { attempts, work } = flaky(Number.POSITIVE_INFINITY);
    const controller = new AbortController();
    const started = Date.now();
    const outcome = failure(
      retryTransient(work, {
        baseDelayMs: 60_000,
        signal: controller.signal,
        onRetry: () => controller.abort(new Error('stopping')),
      }),
    );
    expect(await outcome).toMatchObject({ message: 'stopping' });
    expect(attempts).toHaveLength(1);
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});
