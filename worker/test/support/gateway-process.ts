// The real gateway for the worker's tests: the server bundle `npm start` runs
// (built once from the repository's src/ by its own build script), on a fresh
// embedded database, as a child process; an organization made by its CLI.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const repository = path.resolve(import.meta.dirname, '..', '..', '..');

export interface GatewayProcess {
  url: string;
  organizationId: string;
  apiKey: string;
  /** A request of the organization's key to `/org/{org}{route}`: its status and JSON body. */
  rest(method: string, route: string, body?: unknown): Promise<{ status: number; body: Record<string, any> }>;
  /** A new key of the organization with only `scopes` (POST /api-keys). */
  keyWith(scopes: string[]): Promise<string>;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** `env`: more of the gateway's environment (DIALER=livekit and its settings). */
export async function startGateway(env: Record<string, string> = {}): Promise<GatewayProcess> {
  // The bundle the gateway's build script made (test/support/build-gateway.ts, vitest's global setup).
  const { serverFile } = await import(path.join(repository, 'scripts', 'build-server.js'));
  const dataDir = await mkdtemp(path.join(tmpdir(), 'worker-gateway-'));
  const environment = { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'warn', ...env };
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [path.join(repository, 'bin', 'gateway.js'), 'orgs', 'create', '--name', 'Worker tests'],
    { cwd: repository, env: environment },
  );
  const organization = JSON.parse(stdout) as { organization_id: string; api_key: string };
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, [serverFile], {
    cwd: repository,
    env: { ...environment, HOST: '127.0.0.1', PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  const url = `http://127.0.0.1:${port}`;
  // No deadline of its own: the hook's timeout bounds the wait.
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the gateway exited with ${child.exitCode}: ${output}`);
    const healthy = await fetch(`${url}/health`).then(
      (response) => response.ok,
      () => false,
    );
    if (healthy) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const rest: GatewayProcess['rest'] = async (method, route, body) => {
    const response = await fetch(`${url}/org/${organization.organization_id}${route}`, {
      method,
      headers: { 'x-api-key': organization.api_key, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Record<string, any> };
  };
  return {
    url,
    organizationId: organization.organization_id,
    apiKey: organization.api_key,
    rest,
    async keyWith(scopes) {
      const issued = await rest('POST', '/api-keys', { name: scopes.join(' '), scopes });
      if (issued.status !== 201) throw new Error(`no key: ${issued.status} ${JSON.stringify(issued.body)}`);
      return issued.body.api_key as string;
    },
    async stop() {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
