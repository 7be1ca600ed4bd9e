// Offline access to Prisma's schema engine (the wasm build), which computes the
// SQL between the committed migrations and prisma/schema.prisma without the
// native engine binary the Prisma CLI would download. The shadow database is an
// in-memory PGlite, so no database server is needed either.
import { readdir, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { bindMigrationAwareSqlAdapterFactory } from '@prisma/driver-adapter-utils';
import { PrismaPGlite } from 'pglite-prisma-adapter';

const root = path.resolve(import.meta.dirname, '..');
export const schemaPath = path.join(root, 'prisma', 'schema.prisma');
export const migrationsDir = path.join(root, 'prisma', 'migrations');

async function loadSchemaEngine() {
  const require = createRequire(import.meta.url);
  const bgPath = require.resolve('@prisma/schema-engine-wasm/schema_engine_bg');
  const bindings = await import(bgPath);
  const wasmBytes = await readFile(bgPath.replace(/\.js$/, '.wasm'));
  // The module is built for bundlers: its only import namespace is the JS glue.
  const { instance } = await WebAssembly.instantiate(wasmBytes, {
    './schema_engine_bg.js': bindings,
  });
  bindings.__wbg_set_wasm(instance.exports);
  (instance.exports as { __wbindgen_start: () => void }).__wbindgen_start();
  return bindings.SchemaEngine as typeof import('@prisma/schema-engine-wasm').SchemaEngine;
}

async function migrationList() {
  const entries = (await readdir(migrationsDir, { withFileTypes: true }))
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
  return {
    baseDir: migrationsDir,
    lockfile: { path: 'migration_lock.toml', content: 'provider = "postgresql"\n' },
    shadowDbInitScript: '',
    migrationDirectories: await Promise.all(
      entries.map(async (name) => ({
        path: name,
        migrationFile: {
          path: 'migration.sql',
          content: { tag: 'ok', value: await readFile(path.join(migrationsDir, name, 'migration.sql'), 'utf8') },
        },
      })),
    ),
  };
}

/**
 * SQL that takes a database built from the committed migrations to the state
 * schema.prisma describes; an empty script means they agree.
 */
export async function pendingSchemaSql(): Promise<string> {
  const SchemaEngine = await loadSchemaEngine();
  const adapter = bindMigrationAwareSqlAdapterFactory(new PrismaPGlite(new PGlite()));
  const schema = { files: [{ path: schemaPath, content: await readFile(schemaPath, 'utf8') }] };
  const engine = await SchemaEngine.new(
    { datamodels: [[schemaPath, schema.files[0]!.content]] } as never,
    () => {},
    adapter,
  );
  try {
    const result = await engine.diff({
      from: { tag: 'migrations', ...(await migrationList()) } as never,
      to: { tag: 'schemaDatamodel', ...schema },
      script: true,
      exitCode: null,
      filters: { externalTables: [], externalEnums: [] },
    });
    return (result.stdout ?? '')
      .trim()
      .replace(/^-- This is an empty migration\.$/, '')
      .trim();
  } finally {
    engine.free();
  }
}
