import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './support/server.ts';

describe('API keys', () => {
  let first: TestServer;
  let second: TestServer;
  beforeAll(async () => {
    first = await startTestServer();
    second = await startTestServer({ sharing: first });
  });
  afterAll(async () => {
    await second.close();
    await first.close();
  });

  it('are issued, listed, rotated and revoked through GraphQL; a revoked key is refused at once on every instance', async () => {
    const { apiKey } = await first.createOrganization();
    const issued = (await first.graphql(apiKey, 'mutation { createApiKey(name: "ci") { apiKeyId apiKey } }')).body.data
      .createApiKey;
    expect(issued.apiKey).toMatch(/^gwk_[A-Za-z0-9_-]{43}$/);
    const listed = (
      await first.graphql(apiKey, '{ organization { apiKeys { id name displayPrefix revokedAt lastUsedAt } } }')
    ).body.data.organization.apiKeys;
    expect(listed).toHaveLength(2);
    expect(listed[0]).toMatchObject({
      id: issued.apiKeyId,
      name: 'ci',
      displayPrefix: issued.apiKey.slice(0, 12),
      revokedAt: null,
    });
    expect(JSON.stringify(listed)).not.toContain(issued.apiKey);

    // The new key works on both instances, and last_used_at follows.
    expect((await second.graphql(issued.apiKey, '{ organization { id } }')).status).toBe(200);
    const used = (await first.graphql(apiKey, '{ organization { apiKeys { id lastUsedAt } } }')).body.data.organization
      .apiKeys;
    expect(used.find((key: { id: string }) => key.id === issued.apiKeyId).lastUsedAt).not.toBeNull();

    const rotated = (
      await first.graphql(apiKey, `mutation { rotateApiKey(id: "${issued.apiKeyId}") { apiKeyId apiKey } }`)
    ).body.data.rotateApiKey;
    expect(rotated.apiKey).not.toBe(issued.apiKey);
    expect((await second.graphql(issued.apiKey, '{ organization { id } }')).status).toBe(401);
    expect((await second.graphql(rotated.apiKey, '{ organization { id } }')).status).toBe(200);

    const revoked = (
      await first.graphql(apiKey, `mutation { revokeApiKey(id: "${rotated.apiKeyId}") { id revokedAt } }`)
    ).body.data.revokeApiKey;
    expect(revoked.revokedAt).not.toBeNull();
    expect((await second.graphql(rotated.apiKey, '{ organization { id } }')).status).toBe(401);
    expect((await first.graphql(rotated.apiKey, '{ organization { id } }')).status).toBe(401);
  });

  it("cannot rotate or revoke another organization's key", async () => {
    const victim = await first.createOrganization('Victim');
    const attacker = await first.createOrganization('Attacker');
    const [victimKey] = (await first.graphql(victim.apiKey, '{ organization { apiKeys { id } } }')).body.data
      .organization.apiKeys;
    for (const mutation of ['rotateApiKey', 'revokeApiKey']) {
      const response = await first.graphql(
        attacker.apiKey,
        `mutation { ${mutation}(id: "${victimKey.id}") { __typename } }`,
      );
      expect(response.body.errors[0].extensions.code).toBe('NOT_FOUND');
    }
    expect((await first.graphql(victim.apiKey, '{ organization { id } }')).status).toBe(200);
  });
});
