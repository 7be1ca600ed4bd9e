// Configuration for the Prisma CLI (generate). The server and the migrator do
// not read it: they connect through driver adapters (src/db/connect.ts).
import { defineConfig } from 'prisma/config';

export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
  datasource: { url: process.env.DATABASE_URL ?? 'postgresql://localhost/unused' },
});
