// Starting and stopping the gateway: storage, migrations, catalog, first
// organization, HTTP. The entry point (src/main.ts) only calls these.
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import type { Config } from './config.ts';
import { type Database, openDatabase } from './db/database.ts';
import { migrate } from './db/migrator.ts';
import { seedIntegrationCatalog } from './domain/integration-catalog.ts';
import { createOrganization } from './domain/organizations.ts';
import { buildApp } from './http/app.ts';
import { loadSecretBox } from './domain/secrets.ts';

export interface RunningServer {
  app: FastifyInstance;
  db: Database;
  url: string;
  close(): Promise<void>;
}

/** Opens the storage and brings its schema and catalog up to date. */
export async function prepareDatabase(config: Config): Promise<Database> {
  const db = await openDatabase(config.storage);
  try {
    await migrate(db.sql);
    await seedIntegrationCatalog(db.prisma);
    return db;
  } catch (error) {
    await db.close();
    throw error;
  }
}

/**
 * A fresh embedded install has no organization; create one so a newcomer can
 * call the API at once. Its key is returned to be printed once, never stored.
 */
export async function bootstrapFirstOrganization(db: Database) {
  if (db.storage.kind !== 'embedded' || (await db.prisma.organization.count()) > 0) return null;
  const { organization, apiKey } = await createOrganization(db.prisma, 'My organization');
  return { organizationId: organization.id, apiKey };
}

export async function startServer(config: Config): Promise<RunningServer> {
  const db = await prepareDatabase(config);
  // Shared state between instances (rate-limit counters, events) lives in Redis when there is one.
  const redis = config.redisUrl ? new Redis(config.redisUrl, { maxRetriesPerRequest: 3 }) : undefined;
  let app: FastifyInstance | undefined;
  try {
    const firstOrganization = await bootstrapFirstOrganization(db);
    app = await buildApp({
      db,
      secrets: loadSecretBox(config.storage, config.encryptionKey),
      rateLimits: config.rateLimits,
      redis,
      logLevel: config.logLevel,
    });
    const url = await app.listen({ port: config.port, host: config.host });
    if (firstOrganization) {
      // Printed once: the key is stored only as a hash.
      process.stdout.write(
        `\nCreated organization ${firstOrganization.organizationId}.\n` +
          `Its API key (shown once, keep it): ${firstOrganization.apiKey}\n\n`,
      );
    }
    const running = app;
    return {
      app: running,
      db,
      url,
      async close() {
        await running.close();
        await redis?.quit();
        await db.close();
      },
    };
  } catch (error) {
    await app?.close();
    redis?.disconnect();
    await db.close();
    throw error;
  }
}
