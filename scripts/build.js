#!/usr/bin/env node
// `npm run build`, and `npm start` before it starts (prestart): the server as
// dist/main.js (scripts/build-server.js) and the operator console as
// dist/console/ (scripts/build-console.js).
import path from 'node:path';
import { buildConsole, consoleDir } from './build-console.js';
import { buildServer, serverFile } from './build-server.js';

const root = path.resolve(import.meta.dirname, '..');
await buildServer();
await buildConsole();
if (!process.argv.includes('--quiet')) {
  process.stdout.write(
    `built ${path.relative(root, serverFile)} from src/main.ts, ${path.relative(root, consoleDir)}/ from src/console/\n`,
  );
}
