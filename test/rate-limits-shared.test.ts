// With Redis, the counters are shared: two instances give an organization one quota, whichever of its keys it uses.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueApiKey } from '../src/domain/organizations.ts';
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

  it("counts an organization's keys on both instances against one quota", async () => {
    const { organizationId, apiKey } = await first.createOrganization();
    const otherKey = (await issueApiKey(first.db.prisma, organizationId)).apiKey;
    const statuses: number[] = [];
    for (let request = 0; request < 8; request++) {
      const [server, key] = request % 2 === 0 ? [first, apiKey] : [second, otherKey];
      statuses.push((await server.graphql(key, '{ organization { id } }')).status);
    }
    expect(statuses.slice(0, 6)).toEqual([200, 200, 200, 200, 200, 200]);
    expect(statuses.slice(6)).toEqual([429, 429]);
  });

  it('counts requests arriving together once each, in the order they are counted, on both instances', async () => {
    // Sent at once, most reach an instance in one turn of its event loop and are added to the counter by one script.
    const { apiKey } = await first.createOrganization();
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, request) =>
        fetch(`${(request % 2 === 0 ? first : second).url}/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
          body: JSON.stringify({ query: '{ organization { id } }' }),
        }),
      ),
    );
    const passed = answers.filter((answer) => answer.status === 200);
    expect(passed).toHaveLength(6);
    expect(answers.filter((answer) => answer.status === 429)).toHaveLength(14);
    const remaining = passed.map((answer) => Number(answer.headers.get('x-ratelimit-remaining')));
    expect(remaining.sort()).toEqual([0, 1, 2, 3, 4, 5]);
  });
});
