// What a server's start and the CLI's commands do first: open the storage and
// bring its schema and the integration catalog up to date.
import type { Storage } from '../config.ts';
import { type Database, openDatabase } from '../db/database.ts';
import { migrate } from '../db/migrator.ts';
import { seedIntegrationCatalog } from './integration-catalog.ts';

/** Opens the storage and brings its schema and catalog up to date. */
export async function prepareDatabase(storage: Storage): Promise<Database> {
  const db = await openDatabase(storage);
  try {
    await migrate(db.sql);
    await seedIntegrationCatalog(db.prisma);
    return db;
  } catch (error) {
    await db.close();
    throw error;
  }
}
