// The server as one JavaScript file, dist/main.js, bundled by esbuild from
// src/main.ts in about a second (`npm run build` runs it through
// scripts/build.js, the tests once per run in test/support/global-setup.ts). Packages stay external: node_modules is read at run time,
// as under tsx. Running compiled JavaScript instead of TypeScript through
// tsx's loader keeps the loader out of the server's memory (BENCHMARKS.md (f)).
// The CLI (bin/gateway.js) still runs the TypeScript through tsx; so do the
// tests in their own process, while the servers they start as child processes
// run this bundle, as `npm start` does.
//
// The bundle sits in dist/, beside src/ and prisma/, and needs them at run
// time: a source file that finds its files through `import.meta`
// (src/http/pages.ts its pages, src/db/migrator.ts the migrations in
// prisma/) gets the `import.meta.url`, `dirname` and `filename` it has in src/.
//
// dist/main.js.map maps the bundle back to src/ (`node --enable-source-maps
// dist/main.js` for stack traces in TypeScript lines).
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import * as esbuild from 'esbuild';

const root = path.resolve(import.meta.dirname, '..');
export const serverFile = path.join(root, 'dist', 'main.js');

const sourceImportMeta = {
  name: 'source-import-meta',
  setup(build) {
    build.onLoad({ filter: /\.[cm]?ts$/ }, async (args) => {
      if (args.path.includes(`${path.sep}node_modules${path.sep}`)) return undefined;
      let contents = await readFile(args.path, 'utf8');
      if (contents.includes('import.meta.')) {
        const relative = path.relative(path.dirname(serverFile), args.path).split(path.sep).join('/');
        const url = `new URL(${JSON.stringify(relative)}, import.meta.url).href`;
        contents = contents
          .replaceAll('import.meta.url', url)
          .replaceAll('import.meta.filename', `__sourceFile(${url})`)
          .replaceAll('import.meta.dirname', `__sourceDir(${url})`);
      }
      return { contents, loader: 'ts' };
    });
  },
};

/** dist/main.js from src/main.ts. */
export async function buildServer() {
  await esbuild.build({
    entryPoints: [path.join(root, 'src', 'main.ts')],
    outfile: serverFile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    sourcemap: true,
    sourcesContent: false,
    legalComments: 'none',
    logLevel: 'warning',
    banner: {
      js: [
        "import { dirname as __dirnameOf } from 'node:path';",
        "import { fileURLToPath as __fileURLToPath } from 'node:url';",
        'const __sourceFile = (url) => __fileURLToPath(url);',
        'const __sourceDir = (url) => __dirnameOf(__fileURLToPath(url));',
      ].join('\n'),
    },
    plugins: [sourceImportMeta],
  });
}
