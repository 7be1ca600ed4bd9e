// What the engine, tracing and fan-out benches seed alike: an organization made as the
// gateway makes one, then rows written in one transaction of plain SQL.
import pg from 'pg';
import { createOrganization } from '../src/domain/organizations.ts';
import { prepareDatabase } from '../src/domain/prepare-database.ts';

/** Migrates the database if needed, then makes an organization with its API key (and the key's row id). */
export async function seedOrganization(url: string, name: string) {
  const db = await prepareDatabase({ kind: 'postgres', url, poolSize: 2 });
  try {
    const { organization, apiKey } = await createOrganization(db.prisma, name);
    const { id: apiKeyId } = await db.prisma.apiKey.findFirstOrThrow({ where: { organizationId: organization.id } });
    return { organizationId: organization.id, apiKey, apiKeyId };
  } finally {
    await db.close();
  }
}

/** Runs a statement and returns the `id` of the row it returns. */
export type InsertOne = (text: string, params: unknown[]) => Promise<string>;

/**
 * Runs `seed` in one transaction on a connection of its own, then VACUUM
 * ANALYZE (the planner's statistics, and the visibility map autovacuum would set).
 */
export async function seedInTransaction<T>(url: string, seed: (one: InsertOne, sql: pg.Client) => Promise<T>) {
  const sql = new pg.Client({ connectionString: url });
  sql.on('error', () => {});
  await sql.connect();
  try {
    await sql.query('BEGIN');
    const result = await seed(async (text, params) => (await sql.query<{ id: string }>(text, params)).rows[0]!.id, sql);
    await sql.query('COMMIT');
    await sql.query('VACUUM ANALYZE');
    return result;
  } finally {
    await sql.end();
  }
}

/** A published workflow named `name` whose version 1 has `steps` (default: one call step); its and the version's ids. */
export async function insertWorkflow(
  one: InsertOne,
  {
    organizationId,
    apiKeyId,
    name,
    steps = [{ id: 'dial', type: 'call' }],
  }: {
    organizationId: string;
    apiKeyId: string;
    name: string;
    steps?: Record<string, unknown>[];
  },
) {
  const workflowId = await one(
    `INSERT INTO "Workflow" ("organizationId", name, "updatedAt", "publishedAt") VALUES ($1, $2, now(), now()) RETURNING id`,
    [organizationId, name],
  );
  const versionId = await one(
    `INSERT INTO "WorkflowVersion" ("organizationId", "workflowId", version, definition, "createdBy") VALUES ($1, $2, 1, $3, $4) RETURNING id`,
    [organizationId, workflowId, JSON.stringify({ steps }), apiKeyId],
  );
  return { workflowId, versionId };
}

/** `count` prospects of the organization, numbered 1 to `count`. */
export const insertProspects = (sql: pg.Client, organizationId: string, count: number) =>
  sql.query(
    `INSERT INTO "Prospect" ("organizationId", "firstName", "lastName", email, phone, "updatedAt")
     SELECT $1, 'First' || n, 'Last' || n, 'prospect' || n || '@example.com', '+1415' || lpad(n::text, 7, '0'), now()
     FROM generate_series(1, $2::int) AS n`,
    [organizationId, count],
  );
