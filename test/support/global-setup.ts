// Builds dist/main.js, and prepares, once per run, the database every test file starts from: migrated
// and seeded exactly as a server's first start leaves it (prepareDatabase).
// Files then clone it (test/support/storage.ts) instead of migrating their own:
// a fresh embedded database takes seconds of initdb and migrations, a copy of
// this one a fraction of that.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { buildServer } from '../../scripts/build-server.js';
import { prepareDatabase } from '../../src/domain/prepare-database.ts';
import { adminDatabaseUrl, dropDatabase, onPostgres, type StorageTemplate, withAdminClient } from './storage.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    storageTemplate: StorageTemplate;
  }
}

async function createTemplate(): Promise<StorageTemplate> {
  if (!onPostgres) return { kind: 'embedded', dataDir: await mkdtemp(path.join(os.tmpdir(), 'gateway-template-')) };
  // Named for this run: other runs may share the server.
  const database = `gateway_template_${randomBytes(6).toString('hex')}`;
  await withAdminClient((client) => client.query(`CREATE DATABASE "${database}"`));
  return { kind: 'postgres', database };
}

async function disposeTemplate(template: StorageTemplate) {
  if (template.kind === 'embedded') await rm(template.dataDir, { recursive: true, force: true });
  else await dropDatabase(template.database);
}

export default async function setup(project: TestProject) {
  // The servers tests start as child processes run the bundle `npm start` runs (test/support/processes.ts).
  await buildServer();
  const template = await createTemplate();
  try {
    const db = await prepareDatabase(
      template.kind === 'embedded'
        ? { kind: 'embedded', dataDir: template.dataDir }
        : { kind: 'postgres', url: adminDatabaseUrl(template.database), poolSize: 1 },
    );
    await db.close();
  } catch (error) {
    await disposeTemplate(template);
    throw error;
  }
  project.provide('storageTemplate', template);
  return () => disposeTemplate(template);
}
