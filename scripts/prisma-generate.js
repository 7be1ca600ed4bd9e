#!/usr/bin/env node
// `prisma generate` without network access. The Prisma CLI fetches its native
// schema engine at every command; generate never runs it, so any existing file
// satisfies the check (here: the running node binary). Runs after `npm ci`.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);
const prismaCli = require.resolve('prisma/build/index.js');
const result = spawnSync(process.execPath, [prismaCli, 'generate'], {
  stdio: ['ignore', 'inherit', 'inherit'],
  env: {
    ...process.env,
    // The Pothos generator is a bin of node_modules, found on PATH as npm scripts have it.
    PATH: [path.resolve(import.meta.dirname, '..', 'node_modules', '.bin'), process.env.PATH].join(path.delimiter),
    PRISMA_SCHEMA_ENGINE_BINARY: process.env.PRISMA_SCHEMA_ENGINE_BINARY ?? process.execPath,
    PRISMA_HIDE_UPDATE_MESSAGE: '1',
    CHECKPOINT_DISABLE: '1',
  },
});
process.exit(result.status ?? 1);
