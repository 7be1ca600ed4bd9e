// The real gateway on a loopback port, over fresh storage, for HTTP tests.
import type { FastifyInstance } from 'fastify';
import type { Database } from '../../src/db/database.ts';
import { createOrganization } from '../../src/domain/organizations.ts';
import { buildApp } from '../../src/http/app.ts';
import type { RateLimits } from '../../src/http/rate-limits.ts';
import { SecretBox } from '../../src/domain/secrets.ts';
import { randomBytes } from 'node:crypto';
import { prepareDatabase } from '../../src/server.ts';
import { createTestStorage, type TestStorage } from './storage.ts';

export interface TestServer {
  url: string;
  db: Database;
  app: FastifyInstance;
  secrets: SecretBox;
  storage: TestStorage;
  /** A new organization and its API key. */
  createOrganization(name?: string): Promise<{ organizationId: string; apiKey: string }>;
  /** POSTs a GraphQL operation with the given key and returns status and body. */
  graphql(
    apiKey: string | null,
    query: string,
    variables?: Record<string, unknown>,
  ): Promise<{ status: number; body: { data?: any; errors?: any } }>;
  close(): Promise<void>;
}

// Generous: tests that exercise the limits start a server with their own.
const testRateLimits = { perKey: 100_000, agentUpdate: 100_000, windowMs: 60_000 };

export async function startTestServer(options: { rateLimits?: RateLimits } = {}): Promise<TestServer> {
  const storage = await createTestStorage();
  const db = await prepareDatabase({
    port: 0,
    host: '127.0.0.1',
    storage: storage.storage,
    redisUrl: undefined,
    encryptionKey: undefined,
    rateLimits: testRateLimits,
    logLevel: 'silent',
  });
  const secrets = new SecretBox(randomBytes(32));
  const app = await buildApp({ db, secrets, rateLimits: options.rateLimits ?? testRateLimits });
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  return {
    url,
    db,
    app,
    secrets,
    storage,
    async createOrganization(name = 'Test organization') {
      const { organization, apiKey } = await createOrganization(db.prisma, name);
      return { organizationId: organization.id, apiKey };
    },
    async graphql(apiKey, query, variables) {
      const response = await fetch(`${url}/graphql`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/graphql-response+json',
          ...(apiKey ? { 'x-api-key': apiKey } : {}),
        },
        body: JSON.stringify({ query, variables }),
      });
      return { status: response.status, body: await response.json() };
    },
    async close() {
      await app.close();
      await db.close();
      await storage.dispose();
    },
  };
}
