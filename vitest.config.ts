import { createRequire } from 'node:module';
import { defineConfig } from 'vitest/config';

const require = createRequire(import.meta.url);

export default defineConfig({
  resolve: {
    // graphql 16 has no exports map: Node loads its CommonJS build (as the
    // Pothos and yoga packages do) while Vite would pick index.mjs, leaving two
    // copies that reject each other's types. Use the one Node uses.
    alias: [{ find: /^graphql$/, replacement: require.resolve('graphql') }],
  },
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Migrates one database per run for every file to copy (test/support/storage.ts).
    globalSetup: ['test/support/global-setup.ts'],
    // Each file gets its own database; two workers match the machine's two cores.
    pool: 'forks',
    maxWorkers: 2,
  },
});
