// With Redis, the per-key counters are shared: two instances give a key one quota.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './support/server.ts';

describe.runIf(process.env.TEST_REDIS_URL)('rate limits across instances (Redis)', () => {
  let first: TestServer;
  let second: TestServer;
  const rateLimits = { perOrganization: 6, agentUpdate: 2, windowMs: 60_000 };
  beforeAll(async () => {
    first = await startTestServer({ rateLimits, redisUrl: process.env.TEST_REDIS_URL });
    second = await startTestServer({ rateLimits, redisUrl: process.env.TEST_REDIS_URL, sharing: first });
  });
  afterAll(async () => {
    await second.close();
    await first.close();
  });

  it('counts a key on both instances against one quota', async () => {
    const { apiKey } = await first.createOrganization();
    const statuses: number[] = [];
    for (let request = 0; request < 8; request++) {
      const server = request % 2 === 0 ? first : second;
      statuses.push((await server.graphql(apiKey, '{ organization { id } }')).status);
    }
    expect(statuses.slice(0, 6)).toEqual([200, 200, 200, 200, 200, 200]);
    expect(statuses.slice(6)).toEqual([429, 429]);
  });
});
