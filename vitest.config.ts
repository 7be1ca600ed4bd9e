import { createRequire } from 'node:module';
import { defineConfig } from 'vitest/config';

const require = createRequire(import.meta.url);

// Tests that set the process's global OpenTelemetry provider and environment:
// they get a process each, as every file did before.
const ownProcess = ['test/tracing.test.ts', 'test/tracing-off.test.ts'];

export default defineConfig({
  resolve: {
    // graphql 16 has no exports map: Node loads its CommonJS build (as the
    // Pothos and yoga packages do) while Vite would pick index.mjs, leaving two
    // copies that reject each other's types. Use the one Node uses.
    alias: [{ find: /^graphql$/, replacement: require.resolve('graphql') }],
  },
  test: {
    // Generous: the files that start, kill and restart server processes took over a minute when
    // the machine's two cores were shared with other work (a test that hangs still fails, later).
    testTimeout: 180_000,
    hookTimeout: 120_000,
    // Builds the server bundle and migrates one database per run for every file to copy (test/support/global-setup.ts).
    globalSetup: ['test/support/global-setup.ts'],
    // Each file gets its own database and server; two workers match the machine's two cores.
    pool: 'forks',
    maxWorkers: 2,
    projects: [
      {
        extends: true,
        test: {
          name: 'shared',
          include: ['test/**/*.test.ts'],
          exclude: ownProcess,
          // A worker loads src/ once for all the files it runs (about 3 s of CPU a file otherwise):
          // files share modules, not state (each starts its own server on its own database).
          isolate: false,
        },
      },
      { extends: true, test: { name: 'isolated', include: ownProcess } },
    ],
  },
});
