// Runs the gateway's own entry points as real child processes.
import { type ChildProcess, type SpawnOptions, spawn } from 'node:child_process';
import path from 'node:path';
import { afterAll } from 'vitest';
import { serverFile } from '../../scripts/build-server.js';
import { restClient } from './rest.ts';

const projectRoot = path.resolve(import.meta.dirname, '..', '..');

/** The children still running: a test that fails before stopping its server must not leave it behind. */
const running = new Set<ChildProcess>();
// Registered when a test file imports this module (each file loads it anew): after the file's tests.
afterAll(() => {
  for (const child of running) child.kill('SIGKILL');
});

/** Spawns a child that is killed, if still running, after the test file that started it. */
export function spawnChild(command: string, args: string[], options: SpawnOptions): ChildProcess {
  const child = spawn(command, args, options);
  running.add(child);
  child.once('exit', () => running.delete(child));
  return child;
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function runProcess(args: string[], env: Record<string, string>): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawnChild(process.execPath, args, {
      cwd: projectRoot,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (chunk) => (stdout += chunk));
    child.stderr!.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

export const runCli = (args: string[], env: Record<string, string>) =>
  runProcess([path.join(projectRoot, 'bin', 'gateway.js'), ...args], env);

export interface StartedServer {
  child: ChildProcess;
  output(): string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/**
 * Starts the server as `npm start` does, from dist/main.js (built once per run by
 * test/support/global-setup.ts: tsx would compile src/ in every child again), and waits until /health answers.
 */
export async function startServerProcess(env: Record<string, string>, port: number): Promise<StartedServer> {
  const child = spawnChild(process.execPath, [serverFile], {
    cwd: projectRoot,
    env: { ...process.env, LOG_LEVEL: 'warn', HOST: '127.0.0.1', PORT: String(port), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  // No deadline of its own: the test's timeout bounds the wait (a loaded machine may take long to start a
  // fresh embedded database), and the child is killed after the file (spawnChild).
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}: ${output}`);
    try {
      const response = await fetch(`http://127.0.0.1:${port}/health`);
      if (response.ok) break;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    child,
    output: () => output,
    async stop(signal = 'SIGTERM') {
      child.kill(signal);
      return exited;
    },
  };
}

/** A free loopback port. */
export async function freePort(): Promise<number> {
  const net = await import('node:net');
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** An organization as `gateway orgs create` prints it. */
export interface CliOrganization {
  organization_id: string;
  api_key: string;
}

/** Calls the REST API of the server process on `port` as `org`, under /org/{its id}: status, headers and JSON body. */
export function orgRest(port: number, org: CliOrganization) {
  const rest = restClient({ url: `http://127.0.0.1:${port}` }, org.organization_id, org.api_key);
  return (method: string, path: string, body?: unknown) => rest(method, `/org/{org}${path}`, { body });
}
