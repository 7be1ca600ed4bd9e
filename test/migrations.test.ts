import { cp, mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { pendingSchemaSql } from '../scripts/schema-engine.ts';
import { type Database, openDatabase } from '../src/db/database.ts';
import { defaultMigrationsDir, MigrationError, migrate } from '../src/db/migrator.ts';
import { createTestStorage, onPostgres, type TestStorage } from './support/storage.ts';

describe('schema.prisma and the committed migrations', () => {
  it('agree: the schema engine finds nothing left to migrate', async () => {
    expect(await pendingSchemaSql()).toBe('');
  });
});

describe('the migrator', () => {
  let storage: TestStorage;
  let db: Database;

  beforeEach(async () => {
    storage = await createTestStorage({ empty: true });
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

  // Without Prisma's `partialIndexes` preview feature the schema engine ignores
  // an index's WHERE, and it has no statistics objects at all: the agreement
  // test above cannot see them go missing, so these are checked here.
  it("builds what schema.prisma cannot say: Run's partial indexes and its statistics", async () => {
    await migrate(db.sql);
    const { rows: indexes } = await db.sql.query<{ name: string; predicate: string | null }>(
      `SELECT c.relname AS name, pg_get_expr(i.indpred, i.indrelid) AS predicate
       FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
       WHERE i.indrelid = '"Run"'::regclass ORDER BY c.relname`,
    );
    expect(
      Object.fromEntries(indexes.filter((index) => index.predicate).map((index) => [index.name, index.predicate])),
    ).toEqual({
      Run_batchId_nextAttemptAt_id_idx: `(status = 'PENDING'::"RunStatus")`,
      Run_leaseExpiresAt_idx: `(status = 'IN_PROGRESS'::"RunStatus")`,
      Run_organizationId_endedAt_idx: '("endedAt" IS NOT NULL)',
      Run_trunkId_status_idx: '("trunkId" IS NOT NULL)',
    });
    expect(indexes).toHaveLength(11); // the primary key, 6 for E6, 4 for the engine
    const { rows: statistics } = await db.sql.query<{ name: string; kinds: string; columns: string }>(
      `SELECT s.stxname AS name, s.stxkind::text AS kinds,
              (SELECT string_agg(a.attname, ',' ORDER BY a.attname) FROM pg_attribute a
               WHERE a.attrelid = s.stxrelid AND a.attnum = ANY (s.stxkeys)) AS columns
       FROM pg_statistic_ext s WHERE s.stxrelid = '"Run"'::regclass`,
    );
    expect(statistics).toEqual([
      {
        name: 'Run_batchId_dependencies_stat',
        kinds: '{f}',
        columns: 'batchId,organizationId,workflowId,workflowVersionId',
      },
    ]);
  });

  it('partitions Run by its id and RunAttempt by its run id, by month, each with a default partition', async () => {
    await migrate(db.sql);
    const { rows } = await db.sql.query<{ name: string; key: string }>(
      `SELECT c.relname AS name, pg_get_partkeydef(c.oid) AS key FROM pg_class c
       WHERE c.relname IN ('Run', 'RunAttempt') ORDER BY c.relname`,
    );
    expect(rows).toEqual([
      { name: 'Run', key: 'RANGE (id)' },
      { name: 'RunAttempt', key: 'RANGE ("runId")' },
    ]);
    const { rows: defaults } = await db.sql.query<{ name: string }>(
      `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
       WHERE i.inhparent IN ('"Run"'::regclass, '"RunAttempt"'::regclass) AND c.relpartbound IS NOT NULL
         AND pg_get_expr(c.relpartbound, c.oid) = 'DEFAULT' ORDER BY c.relname`,
    );
    expect(defaults.map((row) => row.name)).toEqual(['RunAttempt_default', 'Run_default']);
  });

  it("compresses a call record's transcript and words with lz4 where the server has it, else keeps pglz", async () => {
    await migrate(db.sql);
    // PostgreSQL's packages are built with lz4; the embedded PGlite is not, and keeps pglz ('': the default).
    const method = onPostgres ? 'l' : '';
    const { rows } = await db.sql.query<{ name: string; method: string }>(
      `SELECT attname AS name, attcompression::text AS method FROM pg_attribute
       WHERE attrelid = '"CallRecord"'::regclass AND attname IN ('transcript', 'searchVector') ORDER BY attname`,
    );
    expect(rows).toEqual([
      { name: 'searchVector', method },
      { name: 'transcript', method },
    ]);
  });

  it("keeps a run's batch, workflow, version, organization and prospect together", async () => {
    await migrate(db.sql);
    const org = async (name: string) =>
      (
        await db.sql.query<{ id: string }>(
          `INSERT INTO "Organization" (name, "updatedAt") VALUES ($1, now()) RETURNING id`,
          [name],
        )
      ).rows[0]!.id;
    const [a, b] = [await org('A'), await org('B')];
    const workflow = async (organizationId: string) => {
      const { rows } = await db.sql.query<{ workflow: string; version: string }>(
        `WITH w AS (INSERT INTO "Workflow" ("organizationId", name, "updatedAt") VALUES ($1, 'W', now()) RETURNING id)
         INSERT INTO "WorkflowVersion" ("organizationId", "workflowId", version, "createdBy")
         SELECT $1, w.id, 1, 'test' FROM w RETURNING "workflowId" AS workflow, id AS version`,
        [organizationId],
      );
      return rows[0]!;
    };
    const [wa, wa2] = [await workflow(a), await workflow(a)];
    const batch = (
      await db.sql.query<{ id: string }>(
        `INSERT INTO "Batch" ("organizationId", "workflowId", "workflowVersionId", name, "sourceType", "createdBy", "updatedAt")
         VALUES ($1, $2, $3, 'B', 'prospect_ids', 'test', now()) RETURNING id`,
        [a, wa.workflow, wa.version],
      )
    ).rows[0]!.id;
    const prospect = async (organizationId: string) =>
      (
        await db.sql.query<{ id: string }>(
          `INSERT INTO "Prospect" ("organizationId", "updatedAt") VALUES ($1, now()) RETURNING id`,
          [organizationId],
        )
      ).rows[0]!.id;
    const [pa, pb] = [await prospect(a), await prospect(b)];
    const insertRun = (organizationId: string, workflowId: string, versionId: string, prospectId: string) =>
      db.sql.query<{ id: string }>(
        `INSERT INTO "Run" ("organizationId", "workflowId", "workflowVersionId", "batchId", "prospectId", "updatedAt")
         VALUES ($1, $2, $3, $4, $5, now()) RETURNING id`,
        [organizationId, workflowId, versionId, batch, prospectId],
      );

    const first = (await insertRun(a, wa.workflow, wa.version, pa)).rows[0]!.id;
    await new Promise((resolve) => setTimeout(resolve, 5)); // a later millisecond
    const second = (await insertRun(a, wa.workflow, wa.version, pa)).rows[0]!.id;
    // Ids keep their format, and are time-ordered: a later run's id sorts after.
    expect(first).toMatch(/^run_[0-9a-f]{32}$/);
    expect(second).toMatch(/^run_[0-9a-f]{32}$/);
    expect(second > first).toBe(true);
    // Another workflow's or version's ids, another organization, another organization's prospect: refused.
    await expect(insertRun(a, wa2.workflow, wa.version, pa)).rejects.toThrow(/foreign key/);
    await expect(insertRun(a, wa.workflow, wa2.version, pa)).rejects.toThrow(/foreign key/);
    await expect(insertRun(b, wa.workflow, wa.version, pb)).rejects.toThrow(/foreign key/);
    await expect(insertRun(a, wa.workflow, wa.version, pb)).rejects.toThrow(/foreign key/);
    // Deleting the organization still takes its runs with it (through the batch).
    await db.sql.query(`DELETE FROM "Organization" WHERE id = $1`, [a]);
    expect((await db.sql.query(`SELECT id FROM "Run"`)).rows).toEqual([]);
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
    const { rows } = await db.sql.query<{ name: string | null }>(`SELECT to_regclass('"HalfDone"')::text AS name`);
    expect(rows[0]!.name).toBeNull();
    // The good migrations before it went with it (one transaction), and apply cleanly on their own.
    expect(await migrate(db.sql)).not.toEqual([]);
  });
});
