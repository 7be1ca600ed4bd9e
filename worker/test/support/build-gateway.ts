// Builds the gateway's server bundle once for the test run (vitest's global
// setup): the test files that start the gateway, in workers of their own, do
// not write the same bundle at once.
import path from 'node:path';

export default async function buildGateway() {
  const script = path.resolve(import.meta.dirname, '..', '..', '..', 'scripts', 'build-server.js');
  const { buildServer } = await import(script);
  await buildServer();
}
