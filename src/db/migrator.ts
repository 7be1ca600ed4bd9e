// Applies the committed SQL migrations in prisma/migrations, keeping the same
// `_prisma_migrations` bookkeeping as `prisma migrate deploy`, so either tool
// can take over from the other. Each migration and its bookkeeping row commit
// in one transaction: a crash leaves a migration wholly applied or not at all.
import { createHash, randomUUID } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { SqlRunner } from './database.ts';

export const defaultMigrationsDir = path.resolve(import.meta.dirname, '../../prisma/migrations');

// The advisory lock key `prisma migrate` itself takes, so instances starting
// together (or a concurrent `prisma migrate deploy`) apply migrations one at a time.
const PRISMA_ADVISORY_LOCK = 72707369;

const BOOKKEEPING_TABLE = `
CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id"                    VARCHAR(36) PRIMARY KEY NOT NULL,
    "checksum"              VARCHAR(64) NOT NULL,
    "finished_at"           TIMESTAMPTZ,
    "migration_name"        VARCHAR(255) NOT NULL,
    "logs"                  TEXT,
    "rolled_back_at"        TIMESTAMPTZ,
    "started_at"            TIMESTAMPTZ NOT NULL DEFAULT now(),
    "applied_steps_count"   INTEGER NOT NULL DEFAULT 0
)`;

export class MigrationError extends Error {}

interface Migration {
  name: string;
  sql: string;
  checksum: string;
}

async function readMigrations(dir: string): Promise<Migration[]> {
  const names = (await readdir(dir, { withFileTypes: true }))
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
  return Promise.all(
    names.map(async (name) => {
      const sql = await readFile(path.join(dir, name, 'migration.sql'), 'utf8');
      return { name, sql, checksum: createHash('sha256').update(sql).digest('hex') };
    }),
  );
}

/** Applies every pending migration; returns the names of those it applied. */
export async function migrate(sql: SqlRunner, dir = defaultMigrationsDir): Promise<string[]> {
  const migrations = await readMigrations(dir);
  return sql.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [PRISMA_ADVISORY_LOCK]);
    await tx.exec(BOOKKEEPING_TABLE);
    const { rows } = await tx.query<{ migration_name: string; checksum: string; finished_at: Date | null }>(
      'SELECT migration_name, checksum, finished_at FROM "_prisma_migrations" WHERE rolled_back_at IS NULL',
    );
    const applied = new Map(rows.map((row) => [row.migration_name, row]));
    const known = new Set(migrations.map((migration) => migration.name));
    const unknown = rows.filter((row) => !known.has(row.migration_name)).map((row) => row.migration_name);
    if (unknown.length > 0) {
      throw new MigrationError(
        `the database has migrations this version does not know (${unknown.join(', ')}); run a newer version`,
      );
    }
    const appliedNow: string[] = [];
    for (const migration of migrations) {
      const previous = applied.get(migration.name);
      if (previous?.finished_at) {
        if (previous.checksum !== migration.checksum) {
          throw new MigrationError(`migration ${migration.name} was changed after it was applied`);
        }
        continue;
      }
      if (previous) {
        throw new MigrationError(`migration ${migration.name} failed earlier and needs an operator's attention`);
      }
      // Savepoint-free: a failure aborts the whole transaction, so nothing of
      // this run's migrations survives and the error names the culprit.
      try {
        await tx.exec(migration.sql);
      } catch (error) {
        throw new MigrationError(`migration ${migration.name} failed: ${(error as Error).message}`);
      }
      await tx.query(
        `INSERT INTO "_prisma_migrations" (id, checksum, migration_name, finished_at, applied_steps_count)
         VALUES ($1, $2, $3, now(), 1)`,
        [randomUUID(), migration.checksum, migration.name],
      );
      appliedNow.push(migration.name);
    }
    return appliedNow;
  });
}
