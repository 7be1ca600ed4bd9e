// The pages a person opens: REST docs at /docs (Swagger UI over
// /openapi.json) and the operator console at /dashboard (src/console/, built
// into dist/console/ by `npm run build`). Every asset comes from this package
// or an npm package: no CDN, and no inline script (the CSP allows none:
// src/http/security-headers.ts).
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
// Only the package's directory is needed: its main module would load the whole Swagger UI bundle into the server.
import getAbsoluteFSPath from 'swagger-ui-dist/absolute-path.js';
import { sendError } from '../requests/error-body.ts';
import { unlimited } from '../requests/rate-limits.ts';

const pagesDir = path.join(import.meta.dirname, 'pages');
const consoleDir = path.resolve(import.meta.dirname, '..', '..', 'dist', 'console');
const consoleAssets = ['/console.js', '/console.css'];
const consoleFiles = [...consoleAssets, ...consoleAssets.map((asset) => `${asset}.map`)];

export async function registerPages(app: FastifyInstance) {
  await app.register(fastifyStatic, {
    root: getAbsoluteFSPath(),
    prefix: '/docs/assets/',
    decorateReply: false,
    allowedPath: (file) => ['/swagger-ui.css', '/swagger-ui-bundle.js'].includes(file),
  });
  await app.register(fastifyStatic, {
    root: consoleDir,
    prefix: '/dashboard/assets/',
    decorateReply: false,
    allowedPath: (file) => consoleFiles.includes(file),
  });
  const page = (name: string) => readFileSync(path.join(pagesDir, name), 'utf8');
  const docs = page('docs.html');
  const docsStart = page('docs.js');
  const dashboard = page('dashboard.html');
  app.get('/docs', { config: unlimited }, (_request, reply) => reply.type('text/html; charset=utf-8').send(docs));
  app.get('/docs/start.js', { config: unlimited }, (_request, reply) =>
    reply.type('text/javascript; charset=utf-8').send(docsStart),
  );
  app.get('/dashboard', { config: unlimited }, (_request, reply) => {
    // Tests and `tsx src/main.ts` run from source: the console exists once built.
    if (!consoleAssets.every((asset) => existsSync(path.join(consoleDir, asset)))) {
      return sendError(reply, 503, 'the console is not built: run `npm run build`');
    }
    return reply.type('text/html; charset=utf-8').send(dashboard);
  });
}
