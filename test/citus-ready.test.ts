// Ready for Citus (docs/scaling.md#ready-for-citus): a sharded database
// places an organization's rows by organizationId, and refuses a primary key,
// unique constraint or foreign key of a distributed table that lacks it. This
// reads the migrated database's catalog, on either database, and the
// statements in src/db/sql, so a new table or statement that would not shard
// fails here instead of on the day the database is sharded.
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './support/server.ts';

/** Copied to every node, or kept on the coordinator: read before an organization is known, or shared by all. */
const REFERENCE_TABLES = ['Organization', 'ApiKey', 'Integration'];

/**
 * Statements that read or write every organization's rows on purpose, each
 * with its reason. On a sharded database each fans out to every shard.
 */
const CROSS_TENANT: Record<string, string> = {
  'organizations-with-due-batches.ts':
    "the engine's fair picking of organizations; each one's batches are then locked by its own statement",
  'organizations-with-due-deliveries.ts':
    "the webhook worker's picking of organizations; each one's deliveries are then claimed by its own statement",
  'run-partitions.ts': 'partition maintenance: lists the months of Run and RunAttempt',
  'create-run-partition.ts': "partition maintenance: creates a month of Run and RunAttempt, every organization's",
  'drop-run-partition.ts': "partition maintenance: drops a whole month, every organization's, once it is final",
  'delete-call-records-of-month.ts': "partition retention: a dropped month's call records, whatever their organization",
  'open-summaries-of-month.ts':
    "partition retention: whether a month's runs are all final and its days summarised, whatever their organization",
  'delete-expired-audit-events.ts': 'the retention sweep of audit events past the period, whatever their organization',
  'batches-of-leased-runs.ts': "recovery: the runs of an instance that stopped, or whose leases ran out, are anyone's",
  'runs-leased-by.ts': "an instance's own leased runs (its shutdown), over every organization it called for",
  'renew-run-leases.ts': 'an instance renews the leases it holds, over every organization it calls for',
  'queue-depth.ts': 'a gauge of /metrics: the due runs of every organization',
  'outbox-depth.ts': 'a gauge of /metrics: the pending deliveries of every organization',
};

/**
 * A condition on organizationId (`"organizationId" = …`, `… = x."organizationId"`, `IN`), an insert that
 * writes it, or a condition of src/db/parts built from it (`${callRecordWhere(organizationId, …)}`).
 */
const ORGANIZATION_FILTER =
  /"organizationId"\s*(=|IN\s*\(|= ANY)|=\s*\w+\."organizationId"|INSERT INTO "\w+"\s*\([^)]*"organizationId"|\$\{\w+Where\(organizationId\b/;

/**
 * The statements of a file: each raw template (`$queryRaw`…`, `$executeRaw`…`), or the whole file
 * when it builds its statement from parts (Prisma.sql, src/db/parts).
 */
const statementsOf = (source: string) => {
  const templates = [...source.matchAll(/\$(?:queryRaw|executeRaw)(?:<[^`(]*?>)?\s*`([\s\S]*?)`/g)].map(
    (match) => match[1]!,
  );
  return templates.length > 0 ? templates : [source];
};

const withoutComments = (source: string) => source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');

describe('ready for Citus', () => {
  let server: TestServer;
  const query = async <T>(text: string, values: unknown[] = []) =>
    (await server.db.sql.query<T & Record<string, unknown>>(text, values)).rows;
  let tenantTables: string[];

  beforeAll(async () => {
    server = await startTestServer();
    // Every table (a partitioned parent, not its partitions) with an organizationId column.
    tenantTables = (
      await query<{ name: string }>(
        `SELECT c.relname AS name FROM pg_class c
         JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = current_schema()
         JOIN pg_attribute a ON a.attrelid = c.oid AND a.attname = 'organizationId' AND NOT a.attisdropped
         WHERE c.relkind IN ('r', 'p') AND NOT c.relispartition ORDER BY c.relname`,
      )
    )
      .map((row) => row.name)
      .filter((name) => !REFERENCE_TABLES.includes(name));
  });
  afterAll(() => server?.close());

  it('finds the tenant tables', () => {
    expect(tenantTables).toEqual(expect.arrayContaining(['Agent', 'Batch', 'Run', 'RunAttempt', 'WebhookDelivery']));
    expect(tenantTables).not.toContain('ApiKey');
  });

  it("holds organizationId in every tenant table's primary key, unique constraint and unique index", async () => {
    // Unique indexes too: Prisma's @@unique is an index, not a constraint.
    const keys = await query<{ tableName: string; indexName: string }>(
      `SELECT c.relname AS "tableName", i.relname AS "indexName" FROM pg_index x
       JOIN pg_class c ON c.oid = x.indrelid JOIN pg_class i ON i.oid = x.indexrelid
       JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = current_schema()
       WHERE x.indisunique AND c.relname = ANY($1::text[])
         AND NOT EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname = 'organizationId'
           AND a.attnum = ANY(x.indkey::int2[]))
       ORDER BY 1, 2`,
      [tenantTables],
    );
    expect(keys).toEqual([]);
  });

  it("holds organizationId in every tenant table's foreign key to another tenant table", async () => {
    // A key to a reference table (the organization, the integration catalog) is one Citus allows.
    const foreignKeys = await query<{ tableName: string; constraintName: string }>(
      `SELECT c.relname AS "tableName", k.conname AS "constraintName" FROM pg_constraint k
       JOIN pg_class c ON c.oid = k.conrelid JOIN pg_class r ON r.oid = k.confrelid
       JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = current_schema()
       WHERE k.contype = 'f' AND c.relname = ANY($1::text[]) AND NOT r.relname = ANY($2::text[])
         AND NOT EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname = 'organizationId'
           AND a.attnum = ANY(k.conkey)
           AND EXISTS (SELECT 1 FROM pg_attribute ra WHERE ra.attrelid = r.oid AND ra.attname = 'organizationId'
             AND ra.attnum = k.confkey[array_position(k.conkey, a.attnum)]))
       ORDER BY 1, 2`,
      [tenantTables, REFERENCE_TABLES],
    );
    expect(foreignKeys).toEqual([]);
  });

  it('filters each statement in src/db/sql that touches a tenant table by organizationId', async () => {
    const directory = path.join(import.meta.dirname, '..', 'src', 'db', 'sql');
    const unfiltered: string[] = [];
    for (const file of (await readdir(directory)).filter((name) => name.endsWith('.ts')).sort()) {
      if (file in CROSS_TENANT) continue;
      const source = withoutComments(await readFile(path.join(directory, file), 'utf8'));
      const touches = (statement: string) => tenantTables.some((table) => statement.includes(`"${table}"`));
      const statements = statementsOf(source).filter(touches);
      if (statements.some((statement) => !ORGANIZATION_FILTER.test(statement))) unfiltered.push(file);
    }
    expect(unfiltered).toEqual([]);
  });
});
