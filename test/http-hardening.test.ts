import { createHash } from 'node:crypto';
import { PassThrough } from 'node:stream';
import { createClient } from 'graphql-ws';
import { describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { openDatabase } from '../src/db/database.ts';
import { eventually } from './support/flows.ts';
import { freePort, orgRest, runCli, startServerProcess } from './support/processes.ts';
import { startTestServer } from './support/server.ts';
import { createTestStorage } from './support/storage.ts';

describe('HTTP hardening', () => {
  it('sends security headers on every answer, and GraphiQL without any CDN', async () => {
    const server = await startTestServer();
    try {
      for (const path of ['/health', '/graphql', '/org/x/workflows']) {
        const response = await fetch(`${server.url}${path}`);
        expect(response.headers.get('x-content-type-options')).toBe('nosniff');
        expect(response.headers.get('content-security-policy')).toContain("default-src 'self'");
        expect(response.headers.get('x-frame-options')).toBe('SAMEORIGIN');
        expect(response.headers.get('strict-transport-security')).toContain('max-age');
      }
      const graphiql = await (await fetch(`${server.url}/graphql`, { headers: { accept: 'text/html' } })).text();
      expect(graphiql).toContain('Agent gateway');
      expect(graphiql).not.toMatch(/<script[^>]+src="https?:/);
      expect(graphiql).not.toMatch(/<link[^>]+href="https?:/);
    } finally {
      await server.close();
    }
  });

  it('allows no inline script: every page loads its scripts from files, GraphiQL its inline one by its hash', async () => {
    const server = await startTestServer();
    try {
      const directives = (response: Response) =>
        Object.fromEntries(
          (response.headers.get('content-security-policy') ?? '').split(';').map((directive) => {
            const [name, ...sources] = directive.trim().split(/\s+/);
            return [name, sources];
          }),
        ) as Record<string, string[]>;
      for (const path of ['/health', '/docs', '/dashboard', '/graphql', '/org/x/workflows']) {
        const policy = directives(await fetch(`${server.url}${path}`));
        expect(policy['script-src'], path).toEqual(["'self'"]);
        expect(policy['script-src-attr'], path).toEqual(["'none'"]);
        expect(policy['style-src'], path).toEqual(["'self'"]);
      }
      const docs = await (await fetch(`${server.url}/docs`)).text();
      expect(docs).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
      const start = await fetch(`${server.url}/docs/start.js`);
      expect(start.headers.get('content-type')).toContain('javascript');
      expect(await start.text()).toContain("SwaggerUIBundle({ url: '/openapi.json'");

      const graphiql = await fetch(`${server.url}/graphql`, { headers: { accept: 'text/html' } });
      const page = await graphiql.text();
      const inline = [...page.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((match) => match[1]!);
      expect(inline).toHaveLength(1);
      const hash = `'sha256-${createHash('sha256').update(inline[0]!).digest('base64')}'`;
      const policy = directives(graphiql);
      expect(policy['script-src']).toEqual(["'self'", hash]);
      expect(policy['worker-src']).toEqual(["'self'", 'blob:']);
      expect(policy['connect-src']).toEqual(["'self'"]);
      // The same page, the same policy: made once.
      expect(directives(await fetch(`${server.url}/graphql`, { headers: { accept: 'text/html' } }))).toEqual(policy);
    } finally {
      await server.close();
    }
  });

  it('answers CORS for the configured origins only', async () => {
    const server = await startTestServer({ corsOrigins: ['https://dash.example.com'] });
    try {
      const preflight = (origin: string) =>
        fetch(`${server.url}/graphql`, {
          method: 'OPTIONS',
          headers: {
            origin,
            'access-control-request-method': 'POST',
            'access-control-request-headers': 'content-type,x-api-key',
          },
        });
      const allowed = await preflight('https://dash.example.com');
      expect(allowed.headers.get('access-control-allow-origin')).toBe('https://dash.example.com');
      expect(allowed.headers.get('access-control-allow-headers')).toContain('x-api-key');
      expect((await preflight('https://evil.example.com')).headers.get('access-control-allow-origin')).toBeNull();
    } finally {
      await server.close();
    }
  });

  it('writes no API key and no credential to its logs, even at trace level', async () => {
    const stream = new PassThrough();
    let logs = '';
    stream.on('data', (chunk) => (logs += chunk));
    const server = await startTestServer({ log: { level: 'trace', stream } });
    try {
      const { apiKey, organizationId } = await server.createOrganization();
      await fetch(`${server.url}/org/${organizationId}/integrations`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': apiKey, 'idempotency-key': 'secret-idem' },
        body: JSON.stringify({ slug: 'hubspot', credentials: { private_app_token: 'super-secret-token' } }),
      });
      await fetch(`${server.url}/graphql`, { headers: { 'x-api-key': apiKey } });
      await fetch(`${server.url}/org/${organizationId}/nope`, { headers: { 'x-api-key': 'gwk_wrong' } });
    } finally {
      await server.close();
    }
    expect(logs.length).toBeGreaterThan(0);
    expect(logs).not.toContain('gwk_');
    expect(logs).not.toContain('super-secret-token');
  });
});

describe('graceful shutdown (SIGTERM)', () => {
  it('closes subscriptions with 1001, hands runs back (a call cut short is an interrupted attempt) and exits within 10 s', async () => {
    const storage = await createTestStorage();
    try {
      const org = JSON.parse((await runCli(['orgs', 'create', '--name', 'Shutdown'], storage.env)).stdout);
      const port = await freePort();
      const server = await startServerProcess(
        { ...storage.env, SIMULATED_CALL_MS: '600000', SIMULATED_CALL_OUTCOMES: 'answered=1', ENGINE_DRAIN_MS: '1000' },
        port,
      );
      const api = async (method: string, path: string, body?: unknown) =>
        (await orgRest(port, org)(method, path, body)).body;
      const agent = await api('POST', '/agents', { name: 'Caller' });
      const workflow = await api('POST', '/workflows', {
        name: 'S',
        definition: { steps: [{ id: 'dial', type: 'call', agent_id: agent.id }] },
      });
      const prospect = await api('POST', '/prospects', { first_name: 'A', phone: '+14155550100' });
      const batch = await api('POST', `/workflows/${workflow.id}/batches`, {
        prospect_ids: [prospect.created[0].id],
        retry: { max_attempts: 2, on: ['failed'], delay_seconds: 0 },
      });
      await eventually(async () =>
        (await api('GET', `/batches/${batch.id}`)).stats.in_progress_count === 1 ? true : undefined,
      );
      // Claimed is not yet calling: the call is in flight once its attempt is written open.
      const { data: runs } = await api('GET', `/workflows/${workflow.id}/runs?batch_id=${batch.id}`);
      await eventually(async () =>
        (await api('GET', `/runs/${runs[0].id}`)).call_attempts.length === 1 ? true : undefined,
      );

      let answered!: (error?: unknown) => void;
      const firstState = new Promise<void>(
        (resolve, reject) => (answered = (error) => (error ? reject(error) : resolve())),
      );
      const closeCode = new Promise<number>((resolve) => {
        const client = createClient({
          url: `ws://127.0.0.1:${port}/graphql`,
          webSocketImpl: WebSocket,
          connectionParams: { 'x-api-key': org.api_key },
          retryAttempts: 0,
          on: { closed: (event) => resolve((event as { code: number }).code) },
        });
        client.subscribe(
          { query: 'subscription($id: ID!) { batchProgress(batchId: $id) { status } }', variables: { id: batch.id } },
          { next: () => answered(), error: (error) => answered(error), complete: () => {} },
        );
      });
      // The subscription sends the batch's current state first: once it came, the subscription is open.
      await firstState;
      const started = Date.now();
      const exitCode = await server.stop('SIGTERM');
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(exitCode).toBe(0);
      expect(await closeCode).toBe(1001);

      const db = await openDatabase(storage.storage);
      try {
        const run = await db.prisma.run.findFirstOrThrow({
          where: { batchId: batch.id },
          include: { callAttempts: true },
        });
        expect(run).toMatchObject({ status: 'PENDING', leaseOwner: null, attempts: 1, lastOutcome: 'failed' });
        expect(run.callAttempts).toMatchObject([{ number: 1, outcome: 'failed', reason: 'interrupted' }]);
        const stored = await db.prisma.batch.findFirstOrThrow({ where: { id: batch.id } });
        expect(stored).toMatchObject({ pendingCount: 1, inProgressCount: 0 });
      } finally {
        await db.close();
      }
    } finally {
      await storage.dispose();
    }
  });
});
