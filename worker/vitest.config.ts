import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // LiveKit Agents' logger, which its classes need before they are built (the CLI sets it up in the worker).
    setupFiles: ['test/support/logger.ts'],
    // The gateway's server bundle, built once for the files that start the gateway.
    globalSetup: ['test/support/build-gateway.ts'],
    // The gateway test starts the gateway's server as a process (a fresh embedded database).
    testTimeout: 120_000,
    // A gateway starting on a fresh embedded database takes long on a loaded machine.
    hookTimeout: 240_000,
    pool: 'forks',
    maxWorkers: 2,
  },
});
