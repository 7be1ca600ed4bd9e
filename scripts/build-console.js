#!/usr/bin/env node
// The operator console (src/console/, TypeScript and Preact) as static files
// in dist/console/: console.js and console.css, which the gateway serves under
// /dashboard/assets/ (src/http/pages.ts). `npm run build` (and so `npm start`)
// runs it through scripts/build.js; the browser test runs it alone
// (`node scripts/build-console.js`) so that it never serves a stale bundle.
//
// The console sends its GraphQL documents as persisted operations: their
// SHA-256 is computed here, from the same module the server allows them from
// (src/console-operations/console-operations.ts), and handed to the bundle by name.
import { createHash } from 'node:crypto';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import * as esbuild from 'esbuild';

const root = path.resolve(import.meta.dirname, '..');
const source = path.join(root, 'src', 'console');
export const consoleDir = path.join(root, 'dist', 'console');

/** `{ <operation name>: <SHA-256 of its text> }` for every operation of src/console-operations/console-operations.ts. */
async function operationHashes() {
  const { outputFiles } = await esbuild.build({
    entryPoints: [path.join(root, 'src', 'console-operations', 'console-operations.ts')],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'neutral',
    logLevel: 'warning',
  });
  const module = await import(`data:text/javascript;base64,${Buffer.from(outputFiles[0].text).toString('base64')}`);
  return Object.fromEntries(
    module.consoleOperations.map(({ name, text }) => [name, createHash('sha256').update(text).digest('hex')]),
  );
}

export async function buildConsole() {
  await esbuild.build({
    entryPoints: { console: path.join(source, 'main.tsx') },
    outdir: consoleDir,
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: ['chrome111', 'firefox111', 'safari16'],
    minify: true,
    sourcemap: true,
    legalComments: 'none',
    logLevel: 'warning',
    tsconfig: path.join(root, 'tsconfig.json'),
    define: {
      'process.env.NODE_ENV': '"production"',
      CONSOLE_OPERATION_HASHES: JSON.stringify(await operationHashes()),
    },
  });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await buildConsole();
  if (!process.argv.includes('--quiet'))
    process.stdout.write(`built ${path.relative(root, consoleDir)}/ from src/console/\n`);
}
