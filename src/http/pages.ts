// The pages a person opens: REST docs at /docs (Swagger UI over
// /openapi.json) and the live batch page at /dashboard. Every asset comes
// from this package or an npm package: no CDN.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
// Only the package's directory is needed: its main module would load the whole Swagger UI bundle into the server.
import getAbsoluteFSPath from 'swagger-ui-dist/absolute-path.js';
import { unlimited } from './rate-limits.ts';

const pagesDir = path.join(import.meta.dirname, 'pages');

export async function registerPages(app: FastifyInstance) {
  await app.register(fastifyStatic, {
    root: getAbsoluteFSPath(),
    prefix: '/docs/assets/',
    decorateReply: false,
    allowedPath: (file) => ['/swagger-ui.css', '/swagger-ui-bundle.js'].includes(file),
  });
  await app.register(fastifyStatic, {
    root: pagesDir,
    prefix: '/dashboard/',
    decorateReply: false,
    allowedPath: (file) => ['/dashboard.js', '/dashboard.css'].includes(file),
  });
  const page = (name: string) => readFileSync(path.join(pagesDir, name), 'utf8');
  const docs = page('docs.html');
  const dashboard = page('dashboard.html');
  app.get('/docs', { config: unlimited }, (_request, reply) => reply.type('text/html; charset=utf-8').send(docs));
  app.get('/dashboard', { config: unlimited }, (_request, reply) => reply.type('text/html; charset=utf-8').send(dashboard));
}
