import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './support/server.ts';

const CONNECTED = `id name slug createdAt lastSyncAt lastSyncStatus lastSyncError isActive schemaConfig settings integration { id slug isConnected }`;
const CONNECT = `mutation($input: ConnectIntegrationInput!) { connectIntegration(input: $input) { ${CONNECTED} } }`;
const AVAILABLE = `query { integrations(first: 100) { totalCount nodes { id name slug category isConnected connectedAt organizationIntegrationId isActive schemaConfig } } }`;

describe('GraphQL: integrations', () => {
  let server: TestServer;
  let acme: { organizationId: string; apiKey: string };
  let globex: { organizationId: string; apiKey: string };
  const gql = async (apiKey: string, query: string, variables?: Record<string, unknown>) =>
    (await server.graphql(apiKey, query, variables)).body;
  const ok = async (apiKey: string, query: string, variables?: Record<string, unknown>) => {
    const body = await gql(apiKey, query, variables);
    expect(body.errors).toBeUndefined();
    return body.data;
  };
  const storedConnections = (organizationId: string) =>
    server.db.prisma.organizationIntegration.findMany({ where: { organizationId } });

  beforeAll(async () => {
    server = await startTestServer();
    acme = await server.createOrganization('Acme');
    globex = await server.createOrganization('Globex');
  });
  afterAll(() => server.close());

  it('lists the catalog by name, nothing connected yet', async () => {
    const { integrations } = await ok(acme.apiKey, AVAILABLE);
    expect(integrations.totalCount).toBeGreaterThanOrEqual(12);
    const names = integrations.nodes.map((node: { name: string }) => node.name);
    expect(names).toEqual([...names].sort((a, b) => a.localeCompare(b)));
    for (const node of integrations.nodes) {
      expect(node.id).toMatch(/^int_/);
      expect(node).toMatchObject({
        isConnected: false,
        connectedAt: null,
        organizationIntegrationId: null,
        isActive: false,
      });
    }
    const slack = integrations.nodes.find((node: { slug: string }) => node.slug === 'slack');
    expect(slack.category).toBe('messaging');
    expect(slack.schemaConfig.credentials[0]).toMatchObject({ name: 'bot_token', required: true });
  });

  it('connects, then reads the connection by id, by slug, in the connected list and in the catalog', async () => {
    const { connectIntegration: connection } = await ok(acme.apiKey, CONNECT, {
      input: { slug: 'slack', credentials: { bot_token: 'xoxb-first-secret' }, settings: { channel: '#calls' } },
    });
    expect(connection).toMatchObject({
      name: 'Slack',
      slug: 'slack',
      isActive: true,
      settings: { channel: '#calls' },
      lastSyncAt: null,
      lastSyncStatus: null,
      lastSyncError: null,
      integration: { slug: 'slack', isConnected: true },
    });
    expect(connection.id).toMatch(/^oint_/);
    expect(connection.schemaConfig.category).toBe('messaging');

    const byId = await ok(
      acme.apiKey,
      `query($id: ID!) { connectedIntegration(id: $id) { ${CONNECTED} } node(id: $id) { id } }`,
      {
        id: connection.id,
      },
    );
    expect(byId.connectedIntegration).toEqual(connection);
    expect(byId.node).toEqual({ id: connection.id });
    const bySlug = await ok(
      acme.apiKey,
      `query { integrationBySlug(slug: "slack") { ${CONNECTED} } other: integrationBySlug(slug: "hubspot") { id } }`,
    );
    expect(bySlug).toEqual({ integrationBySlug: connection, other: null });
    const list = await ok(acme.apiKey, `query { connectedIntegrations { totalCount nodes { id slug } } }`);
    expect(list.connectedIntegrations).toEqual({ totalCount: 1, nodes: [{ id: connection.id, slug: 'slack' }] });

    const { integrations } = await ok(acme.apiKey, AVAILABLE);
    const slack = integrations.nodes.find((node: { slug: string }) => node.slug === 'slack');
    expect(slack).toMatchObject({
      isConnected: true,
      organizationIntegrationId: connection.id,
      isActive: true,
      connectedAt: connection.createdAt,
    });
    expect(integrations.nodes.filter((node: { isConnected: boolean }) => node.isConnected)).toHaveLength(1);
  });

  it('reconnecting replaces credentials and settings and keeps the id', async () => {
    const first = (await ok(acme.apiKey, `query { integrationBySlug(slug: "slack") { id } }`)).integrationBySlug;
    const { connectIntegration: again } = await ok(acme.apiKey, CONNECT, {
      input: { slug: 'slack', credentials: { bot_token: 'xoxb-second-secret' }, settings: { channel: '#sales' } },
    });
    expect(again).toMatchObject({ id: first.id, settings: { channel: '#sales' } });
    const rows = await storedConnections(acme.organizationId);
    expect(rows).toHaveLength(1);
    expect(JSON.parse(server.secrets.open(rows[0]!.credentialsEncrypted!))).toEqual({
      bot_token: 'xoxb-second-secret',
    });
  });

  it('stores credentials only as ciphertext', async () => {
    const secret = 'pat-plaintext-must-not-be-stored-9f3a';
    const { connectIntegration: connection } = await ok(acme.apiKey, CONNECT, {
      input: { slug: 'calendly', credentials: { personal_access_token: secret } },
    });
    expect(connection.settings).toEqual({});
    const row = await server.db.prisma.organizationIntegration.findFirstOrThrow({ where: { id: connection.id } });
    expect(JSON.stringify(row)).not.toContain(secret);
    expect(row.credentialsEncrypted).toMatch(/^v1:/);
    expect(JSON.parse(server.secrets.open(row.credentialsEncrypted!))).toEqual({ personal_access_token: secret });
  });

  it('no GraphQL field exposes credentials', async () => {
    const fieldsOf = async (type: string) =>
      (
        await ok(acme.apiKey, `query($t: String!) { __type(name: $t) { fields { name } } }`, { t: type })
      ).__type.fields.map((field: { name: string }) => field.name);
    const connected = await fieldsOf('ConnectedIntegration');
    expect(connected).toEqual(
      expect.arrayContaining([
        'id',
        'name',
        'slug',
        'createdAt',
        'lastSyncAt',
        'lastSyncStatus',
        'lastSyncError',
        'isActive',
        'schemaConfig',
        'settings',
        'integration',
      ]),
    );
    for (const name of [...connected, ...(await fieldsOf('Integration'))])
      expect(name).not.toMatch(/credential|secret|encrypt/i);
  });

  it('refuses missing, unknown and mistyped credential members and unknown slugs, writing nothing', async () => {
    const fresh = await server.createOrganization('Initech');
    const failure = async (input: Record<string, unknown>) => {
      const body = await gql(fresh.apiKey, CONNECT, { input });
      expect(body.data).toBeNull();
      expect(body.errors[0].extensions.code).toBe('BAD_INPUT');
      return body.errors[0].extensions.detail.map(
        (problem: { path: string; rule: string }) => `${problem.path} ${problem.rule}`,
      );
    };
    expect(await failure({ slug: 'twilio', credentials: { account_sid: 'AC1' } })).toEqual([
      'credentials.auth_token required',
    ]);
    expect(
      await failure({ slug: 'twilio', credentials: { account_sid: 'AC1', auth_token: 'x', region: 'eu' } }),
    ).toEqual(['credentials.region unknown member']);
    // Only the path: the shared problemsOf reports any wrong type as `required` until it parses with reportInput.
    expect(await failure({ slug: 'twilio', credentials: { account_sid: 'AC1', auth_token: 42 } })).toEqual([
      expect.stringMatching(/^credentials\.auth_token /),
    ]);
    expect(await failure({ slug: 'no-such-service', credentials: {} })).toEqual(['slug exists']);
    expect(await storedConnections(fresh.organizationId)).toEqual([]);

    // A refused reconnect leaves the existing connection as it was.
    await ok(fresh.apiKey, CONNECT, {
      input: { slug: 'telnyx', credentials: { api_key: 'KEY1' }, settings: { connection_id: 'c1' } },
    });
    await failure({ slug: 'telnyx', credentials: {}, settings: { connection_id: 'c2' } });
    const [row] = await storedConnections(fresh.organizationId);
    expect(row!.settings).toEqual({ connection_id: 'c1' });
    expect(JSON.parse(server.secrets.open(row!.credentialsEncrypted!))).toEqual({ api_key: 'KEY1' });
  });

  it("another organization sees its own status and none of the first organization's connections", async () => {
    const acmeSlack = (await ok(acme.apiKey, `query { integrationBySlug(slug: "slack") { id } }`)).integrationBySlug;
    const { integrations } = await ok(globex.apiKey, AVAILABLE);
    expect(integrations.nodes.every((node: { isConnected: boolean }) => !node.isConnected)).toBe(true);
    const seen = await ok(
      globex.apiKey,
      `query($id: ID!) { connectedIntegration(id: $id) { id } node(id: $id) { id } integrationBySlug(slug: "slack") { id }
        connectedIntegrations { totalCount } }`,
      { id: acmeSlack.id },
    );
    expect(seen).toEqual({
      connectedIntegration: null,
      node: null,
      integrationBySlug: null,
      connectedIntegrations: { totalCount: 0 },
    });
    const disconnect = await gql(globex.apiKey, `mutation($id: ID!) { disconnectIntegration(id: $id) }`, {
      id: acmeSlack.id,
    });
    expect(disconnect.errors[0].extensions.code).toBe('NOT_FOUND');

    // Globex connects the same slug: its own connection, Acme's untouched.
    const { connectIntegration: own } = await ok(globex.apiKey, CONNECT, {
      input: { slug: 'slack', credentials: { bot_token: 'g' } },
    });
    expect(own.id).not.toBe(acmeSlack.id);
    expect(
      (await ok(acme.apiKey, `query { integrationBySlug(slug: "slack") { id settings } }`)).integrationBySlug,
    ).toEqual({
      id: acmeSlack.id,
      settings: { channel: '#sales' },
    });
  });

  it('disconnects a connection', async () => {
    const { connectIntegration: connection } = await ok(acme.apiKey, CONNECT, {
      input: { slug: 'hubspot', credentials: { private_app_token: 't' } },
    });
    const data = await ok(acme.apiKey, `mutation($id: ID!) { disconnectIntegration(id: $id) }`, { id: connection.id });
    expect(data.disconnectIntegration).toBe(connection.id);
    expect(
      (await ok(acme.apiKey, `query($id: ID!) { connectedIntegration(id: $id) { id } }`, { id: connection.id }))
        .connectedIntegration,
    ).toBeNull();
  });
});
