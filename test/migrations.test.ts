import { cp, mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Database, openDatabase } from '../src/db/database.ts';
import { defaultMigrationsDir, migrate, MigrationError } from '../src/db/migrator.ts';
import { pendingSchemaSql } from '../scripts/schema-engine.ts';
import { createTestStorage, type TestStorage } from './support/storage.ts';

describe('schema.prisma and the committed migrations', () => {
  it('agree: the schema engine finds nothing left to migrate', async () => {
    expect(await pendingSchemaSql()).toBe('');
  });
});

describe('the migrator', () => {
  let storage: TestStorage;
  let db: Database;

  beforeEach(async () => {
    storage = await createTestStorage();
    db = await openDatabase(storage.storage);
  });
  afterEach(async () => {
    await db.close();
    await storage.dispose();
  });

  async function migrationsCopy() {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'gateway-migrations-'));
    await cp(defaultMigrationsDir, dir, { recursive: true });
    return dir;
  }

  it('applies every migration once, with the bookkeeping prisma migrate deploy keeps', async () => {
    const applied = await migrate(db.sql);
    expect(applied.length).toBeGreaterThan(0);
    const { rows } = await db.sql.query<{ migration_name: string; checksum: string; finished_at: Date | null }>(
      'SELECT migration_name, checksum, finished_at FROM "_prisma_migrations" ORDER BY migration_name',
    );
    expect(rows.map((row) => row.migration_name)).toEqual(applied);
    for (const row of rows) {
      expect(row.checksum).toMatch(/^[0-9a-f]{64}$/);
      expect(row.finished_at).not.toBeNull();
    }
    expect(await migrate(db.sql)).toEqual([]);
    // The tables exist and take rows.
    await db.prisma.organization.create({ data: { name: 'Acme' } });
    expect(await db.prisma.organization.count()).toBe(1);
  });

  it('refuses a migration that was edited after it was applied', async () => {
    const dir = await migrationsCopy();
    await migrate(db.sql, dir);
    const [first] = (await import('node:fs')).readdirSync(dir).filter((name) => !name.endsWith('.toml'));
    await writeFile(path.join(dir, first!, 'migration.sql'), '-- edited\n');
    await expect(migrate(db.sql, dir)).rejects.toThrow(/changed after it was applied/);
  });

  it('leaves nothing of a failing migration behind', async () => {
    const dir = await migrationsCopy();
    const broken = path.join(dir, '99990101000000_broken');
    await mkdir(broken);
    await writeFile(
      path.join(broken, 'migration.sql'),
      'CREATE TABLE "HalfDone" (id int);\nALTER TABLE "NoSuchTable" ADD COLUMN x int;\n',
    );
    await expect(migrate(db.sql, dir)).rejects.toBeInstanceOf(MigrationError);
    const { rows } = await db.sql.query<{ name: string | null }>(
      `SELECT to_regclass('"HalfDone"')::text AS name`,
    );
    expect(rows[0]!.name).toBeNull();
    // The good migrations before it went with it (one transaction), and apply cleanly on their own.
    expect(await migrate(db.sql)).not.toEqual([]);
  });
});
