// Writes prisma/migrations/<timestamp>_<name>/migration.sql with the SQL that
// brings the committed migrations up to prisma/schema.prisma.
// Usage: npm run migration:new -- <name>
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { migrationsDir, pendingSchemaSql } from './schema-engine.ts';

const name = process.argv[2];
if (!name || !/^[a-z0-9_]+$/.test(name)) {
  console.error('usage: npm run migration:new -- <name in snake_case>');
  process.exit(2);
}
const sql = await pendingSchemaSql();
if (!sql) {
  console.error('schema.prisma and the committed migrations already agree: nothing to write');
  process.exit(1);
}
const stamp = new Date().toISOString().replace(/\D/g, '').slice(0, 14);
const dir = path.join(migrationsDir, `${stamp}_${name}`);
await mkdir(dir, { recursive: true });
await writeFile(path.join(dir, 'migration.sql'), `${sql}\n`);
console.log(path.relative(process.cwd(), path.join(dir, 'migration.sql')));
