// Contract tests: E10-E14 (integrations), through the real HTTP server, on
// both prefixes, against SPEC.md's shapes (the strict response schemas refuse
// any missing or extra field). No response may ever carry a credential value.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { integrationCatalog } from '../src/domain/integration-catalog.ts';
import { availableIntegration, connectedIntegration } from '../src/records/integrations.ts';
import { expectErrorBody, type RestOptions, type RestResponse, restClient } from './support/rest.ts';
import { startTestServer, type TestServer } from './support/server.ts';

const availableIntegrationSchema = availableIntegration.schema;
const connectedIntegrationSchema = connectedIntegration.schema;

const PREFIXES = ['/org/{org}', '/api/org/{org}'];
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const ONE_MIB = 1024 * 1024;

/** A JSON value as SPEC.md's "array of integer": its UTF-8 bytes. */
const bytes = (value: unknown) => [...Buffer.from(JSON.stringify(value), 'utf8')];

const catalogEntry = (slug: string) => {
  const entry = integrationCatalog.find((candidate) => candidate.slug === slug);
  if (!entry) throw new Error(`no catalog entry ${slug}`);
  return entry;
};
/** The schema_config a record of `slug` carries: the catalog's category and field lists. */
const schemaConfigOf = (slug: string) => {
  const entry = catalogEntry(slug);
  return { category: entry.category, credentials: entry.credentials, settings: entry.settings };
};
const CATALOG_BY_NAME = [...integrationCatalog].sort((a, b) => a.name.localeCompare(b.name));

/** Every credential value any test sends: none may appear in any response body. */
const SECRET_VALUES = [
  'xoxb-first-secret-7c1e',
  'xoxb-second-secret-51ad',
  'hubspot-pat-secret-90e2',
  'twilio-auth-secret-3b4f',
  'ACsid-secret-6f0a',
  'telnyx-key-secret-d41d',
  'sf-client-secret-8c2b',
  'sf-refresh-secret-aa17',
  'refused-secret-0b9e',
  'foreign-secret-e3c0',
];

describe.each(PREFIXES)('REST under %s: integrations', (prefix) => {
  let server: TestServer;
  let rest: ReturnType<typeof restClient>;
  let otherRest: ReturnType<typeof restClient>;
  let otherOrganizationId: string;
  /** Every response body any client here received. */
  const seen: string[] = [];
  const url = (path: string) => `${prefix}${path}`;
  const foreignPath = (path: string) => url(path).replace('{org}', otherOrganizationId);

  const recording =
    (client: ReturnType<typeof restClient>) =>
    async (method: string, path: string, options?: RestOptions): Promise<RestResponse> => {
      const response = await client(method, path, options);
      seen.push(JSON.stringify(response.body ?? null));
      return response;
    };

  beforeAll(async () => {
    server = await startTestServer();
    const org = await server.createOrganization('Acme');
    rest = recording(restClient(server, org.organizationId, org.apiKey));
    const other = await server.createOrganization('Globex');
    otherOrganizationId = other.organizationId;
    const otherClient = recording(restClient(server, other.organizationId, other.apiKey));
    otherRest = (method, path, options) => otherClient(method, path.replace('{org}', other.organizationId), options);
  });
  afterAll(async () => {
    await server.close();
  });

  async function connect(body: Record<string, unknown>, client = rest) {
    const response = await client('POST', url('/integrations'), { body });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    return connectedIntegrationSchema.parse(response.body) as Record<string, any>;
  }
  const connectedList = async () =>
    (await rest('GET', url('/integrations/connected'))).body.data as Record<string, any>[];
  const storedCredentials = async (id: string) => {
    const row = await server.db.prisma.organizationIntegration.findFirstOrThrow({ where: { id } });
    return JSON.parse(server.secrets.open(row.credentialsEncrypted!));
  };

  /** 401 without a key and with a bad key, 404 on another organization's org_id in the path. */
  async function expectAuthAndTenancy(method: string, path: string, body?: unknown) {
    const options = body === undefined ? {} : { body };
    expectErrorBody(await rest(method, url(path), { ...options, apiKey: null }), 401);
    expectErrorBody(await rest(method, url(path), { ...options, apiKey: 'gwk_not_a_real_key' }), 401);
    expectErrorBody(await rest(method, foreignPath(path), options), 404);
    expectErrorBody(await rest(method, url(path).replace('{org}', 'org_does_not_exist'), options), 404);
  }

  describe('E11 GET /integrations', () => {
    it('lists the whole catalog by name, each record field by field, nothing connected yet', async () => {
      const response = await rest('GET', url('/integrations'));
      expect(response.status).toBe(200);
      expect(Object.keys(response.body)).toEqual(['data']);
      expect(response.body.data).toHaveLength(integrationCatalog.length);
      for (const record of response.body.data) expect(availableIntegrationSchema.parse(record)).toEqual(record);
      expect(response.body.data).toEqual(
        CATALOG_BY_NAME.map((entry) => ({
          id: expect.stringMatching(/^int_/),
          name: entry.name,
          slug: entry.slug,
          connected_at: null,
          organization_integration_id: null,
          is_active: false,
          is_connected: false,
          schema_config: schemaConfigOf(entry.slug),
        })),
      );
    });

    it('answers 401 and 404 for a foreign path', async () => {
      await expectAuthAndTenancy('GET', '/integrations');
    });
  });

  describe('E10 POST /integrations', () => {
    it('connects: 201 and the connected-integration record field by field, credentials never returned', async () => {
      const response = await rest('POST', url('/integrations'), {
        body: {
          slug: 'slack',
          credentials: { bot_token: SECRET_VALUES[0] },
          settings: { channel: '#calls', extra_key: { nested_key: 1 } },
        },
      });
      expect(response.status).toBe(201);
      expect(connectedIntegrationSchema.parse(response.body)).toEqual(response.body);
      expect(Object.keys(response.body).sort()).toEqual([
        'created_at',
        'id',
        'is_active',
        'last_sync_at',
        'last_sync_error',
        'last_sync_status',
        'name',
        'schema_config',
        'settings',
        'slug',
      ]);
      expect(response.body).toEqual({
        id: expect.stringMatching(/^oint_/),
        name: 'Slack',
        slug: 'slack',
        created_at: expect.stringMatching(ISO),
        last_sync_at: null,
        last_sync_status: null,
        last_sync_error: null,
        is_active: true,
        schema_config: schemaConfigOf('slack'),
        settings: { channel: '#calls', extra_key: { nested_key: 1 } },
      });
      expect(await storedCredentials(response.body.id)).toEqual({ bot_token: SECRET_VALUES[0] });

      // Reflected in the catalog listing (E11).
      const catalog = (await rest('GET', url('/integrations'))).body.data as Record<string, any>[];
      expect(catalog.find((record) => record.slug === 'slack')).toEqual({
        id: expect.stringMatching(/^int_/),
        name: 'Slack',
        slug: 'slack',
        connected_at: response.body.created_at,
        organization_integration_id: response.body.id,
        is_active: true,
        is_connected: true,
        schema_config: schemaConfigOf('slack'),
      });
      expect(catalog.filter((record) => record.is_connected)).toHaveLength(1);
    });

    it('on an already connected slug replaces credentials and settings whole and keeps the id', async () => {
      const first = (await connectedList()).find((record) => record.slug === 'slack')!;
      const again = await connect({
        slug: 'slack',
        credentials: { bot_token: SECRET_VALUES[1] },
        settings: { channel: '#sales' },
      });
      expect(again).toEqual({ ...first, settings: { channel: '#sales' } });
      expect(await storedCredentials(first.id)).toEqual({ bot_token: SECRET_VALUES[1] });
      expect((await connectedList()).filter((record) => record.slug === 'slack')).toHaveLength(1);
      expect((await rest('GET', url('/integrations/slug/slack'))).body).toEqual(again);

      // Settings are replaced whole: a reconnect without them leaves {} (HubSpot's settings are all optional).
      const hubspot = await connect({
        slug: 'hubspot',
        credentials: { private_app_token: 'old-token' },
        settings: { pipeline_id: 'p0' },
      });
      const bare = await connect({ slug: 'hubspot', credentials: { private_app_token: SECRET_VALUES[2] } });
      expect(bare).toEqual({ ...hubspot, settings: {} });
      expect(await storedCredentials(hubspot.id)).toEqual({ private_app_token: SECRET_VALUES[2] });
    });

    it('concurrent first connects of one slug make one connection with one id', async () => {
      const fresh = await server.createOrganization('Racer');
      const client = recording(restClient(server, fresh.organizationId, fresh.apiKey));
      const responses = await Promise.all(
        Array.from({ length: 6 }, (_, index) =>
          client('POST', url('/integrations'), {
            body: { slug: 'calendly', credentials: { personal_access_token: `${SECRET_VALUES[8]}-${index}` } },
          }),
        ),
      );
      expect(responses.map((response) => response.status)).toEqual(responses.map(() => 201));
      expect(new Set(responses.map((response) => response.body.id)).size).toBe(1);
      const listed = await client('GET', url('/integrations/connected'));
      expect(listed.body.data).toHaveLength(1);
      expect(listed.body.data[0].id).toBe(responses[0]!.body.id);
    });

    it('accepts credentials and settings as UTF-8 JSON bytes', async () => {
      const record = await connect({
        slug: 'twilio',
        credentials: bytes({ account_sid: SECRET_VALUES[4], auth_token: SECRET_VALUES[3] }),
        settings: bytes({ region: 'eu-ü' }),
      });
      expect(record).toMatchObject({
        name: 'Twilio',
        slug: 'twilio',
        settings: { region: 'eu-ü' },
        schema_config: schemaConfigOf('twilio'),
      });
      expect(await storedCredentials(record.id)).toEqual({
        account_sid: SECRET_VALUES[4],
        auth_token: SECRET_VALUES[3],
      });
    });

    it('refuses bad bodies with 400 naming the field; nothing is written', async () => {
      const before = await connectedList();
      const slackBefore = (await rest('GET', url('/integrations/slug/slack'))).body;
      const cases: [string, string, Record<string, unknown>][] = [
        ['slug', 'exists', { slug: 'no-such-service', credentials: {} }],
        ['slug', 'required', { credentials: { bot_token: 'x' } }],
        ['slug', 'minimum 1', { slug: '', credentials: { bot_token: 'x' } }],
        ['credentials', 'required', { slug: 'slack' }],
        ['credentials.bot_token', 'required', { slug: 'slack', credentials: {} }],
        ['credentials.auth_token', 'required', { slug: 'twilio', credentials: { account_sid: 'AC1' } }],
        [
          'credentials.region',
          'unknown member',
          { slug: 'twilio', credentials: { account_sid: 'AC1', auth_token: 'x', region: 'eu' } },
        ],
        ['credentials.bot_token', 'minimum 1', { slug: 'slack', credentials: { bot_token: '' } }],
        [
          'credentials.instance_url',
          'format url',
          {
            slug: 'salesforce',
            credentials: {
              instance_url: 'not a url',
              client_id: 'c',
              client_secret: SECRET_VALUES[6],
              refresh_token: SECRET_VALUES[7],
            },
          },
        ],
        ['credentials', 'json bytes', { slug: 'slack', credentials: [255, 254, 253] }],
        [
          'settings',
          'json bytes',
          { slug: 'slack', credentials: { bot_token: 'x' }, settings: [...Buffer.from('not json')] },
        ],
        ['settings', 'type record', { slug: 'slack', credentials: { bot_token: 'x' }, settings: 'channel' }],
        ['colour', 'unknown member', { slug: 'slack', credentials: { bot_token: 'x' }, colour: 'red' }],
      ];
      for (const [path, rule, body] of cases) {
        const error = expectErrorBody(await rest('POST', url('/integrations'), { body }), 400);
        expect(error.error, JSON.stringify(body)).toContainEqual(expect.objectContaining({ path }));
        if (rule !== 'type record')
          expect(error.error, JSON.stringify(body)).toContainEqual(expect.objectContaining({ path, rule }));
      }
      // A refused reconnect of a connected slug leaves it as it was.
      expectErrorBody(
        await rest('POST', url('/integrations'), {
          body: { slug: 'slack', credentials: { token: SECRET_VALUES[8] }, settings: { channel: '#lost' } },
        }),
        400,
      );
      expect(await connectedList()).toEqual(before);
      expect((await rest('GET', url('/integrations/slug/slack'))).body).toEqual(slackBefore);
      expect(await storedCredentials(slackBefore.id)).toEqual({ bot_token: SECRET_VALUES[1] });
      expect(
        await server.db.prisma.organizationIntegration.count({
          where: { integration: { slug: { in: ['no-such-service', 'salesforce'] } } },
        }),
      ).toBe(0);
    });

    it('answers 401, 404 for a foreign path, 400 malformed, 415 and 413, writing nothing', async () => {
      const before = await connectedList();
      const body = { slug: 'hubspot', credentials: { private_app_token: SECRET_VALUES[8] } };
      await expectAuthAndTenancy('POST', '/integrations', body);
      expectErrorBody(await rest('POST', url('/integrations'), { raw: '{"slug":' }), 400);
      expectErrorBody(
        await rest('POST', url('/integrations'), {
          raw: JSON.stringify(body),
          headers: { 'content-type': 'text/plain' },
        }),
        415,
      );
      const big = { ...body, settings: { blob: 'a'.repeat(ONE_MIB) } };
      expectErrorBody(await rest('POST', url('/integrations'), { body: big }), 413);
      expectErrorBody(await rest('POST', url('/integrations')), 400);
      expectErrorBody(await rest('POST', url('/integrations'), { raw: 'null' }), 400);
      expect(await connectedList()).toEqual(before);
      expect((await otherRest('GET', url('/integrations/connected'))).body).toEqual({ data: [] });
    });
  });

  describe('E12 GET /integrations/connected', () => {
    it("lists the organization's connections by name, each record field by field", async () => {
      // HubSpot is connected already: this reconnect keeps its id and sets new settings.
      const previous = (await rest('GET', url('/integrations/slug/hubspot'))).body;
      const hubspot = await connect({
        slug: 'hubspot',
        credentials: { private_app_token: SECRET_VALUES[2] },
        settings: { pipeline_id: 'p1' },
      });
      expect(hubspot).toEqual({ ...previous, settings: { pipeline_id: 'p1' } });
      const slack = (await rest('GET', url('/integrations/slug/slack'))).body;
      const twilio = (await rest('GET', url('/integrations/slug/twilio'))).body;
      const response = await rest('GET', url('/integrations/connected'));
      expect(response.status).toBe(200);
      expect(Object.keys(response.body)).toEqual(['data']);
      for (const record of response.body.data) expect(connectedIntegrationSchema.parse(record)).toEqual(record);
      expect(response.body.data).toEqual([hubspot, slack, twilio]);
      expect(new Set(response.body.data.map((record: { id: string }) => record.id)).size).toBe(3);
    });

    it('shows another organization none of them; each organization connects the same slug on its own', async () => {
      expect((await otherRest('GET', url('/integrations/connected'))).body).toEqual({ data: [] });
      const theirs = await connect({ slug: 'telnyx', credentials: { api_key: SECRET_VALUES[9] } }, otherRest);
      const ownSlack = (await rest('GET', url('/integrations/slug/slack'))).body;
      const theirSlack = await connect({ slug: 'slack', credentials: { bot_token: SECRET_VALUES[9] } }, otherRest);
      expect(theirSlack.id).not.toBe(ownSlack.id);
      expect((await otherRest('GET', url('/integrations/connected'))).body.data).toEqual([theirSlack, theirs]);
      expect((await rest('GET', url('/integrations/slug/slack'))).body).toEqual(ownSlack);
      const slugs = (await connectedList()).map((record) => record.slug);
      expect(slugs).toEqual(['hubspot', 'slack', 'twilio']);
      const catalog = (await otherRest('GET', url('/integrations'))).body.data as Record<string, any>[];
      expect(
        catalog
          .filter((record) => record.is_connected)
          .map((record) => record.organization_integration_id)
          .sort(),
      ).toEqual([theirSlack.id, theirs.id].sort());
    });

    it('answers 401 and 404 for a foreign path', async () => {
      await expectAuthAndTenancy('GET', '/integrations/connected');
    });
  });

  describe('E13 GET /integrations/slug/{slug}', () => {
    it('reads the connection by slug, field by field', async () => {
      const listed = (await connectedList()).find((record) => record.slug === 'hubspot');
      const response = await rest('GET', url('/integrations/slug/hubspot'));
      expect(response.status).toBe(200);
      expect(connectedIntegrationSchema.parse(response.body)).toEqual(response.body);
      expect(response.body).toEqual(listed);
      expect(response.body).toMatchObject({
        name: 'HubSpot',
        slug: 'hubspot',
        settings: { pipeline_id: 'p1' },
        schema_config: schemaConfigOf('hubspot'),
      });
    });

    it('answers 404 for a slug not connected, an unknown slug and a slug only another organization connected', async () => {
      expect(expectErrorBody(await rest('GET', url('/integrations/slug/calendly')), 404).message).toMatch(/not found/);
      expectErrorBody(await rest('GET', url('/integrations/slug/no-such-service')), 404);
      expectErrorBody(await rest('GET', url('/integrations/slug/telnyx')), 404);
      expect((await otherRest('GET', url('/integrations/slug/telnyx'))).status).toBe(200);
      expectErrorBody(await otherRest('GET', url('/integrations/slug/hubspot')), 404);
    });

    it('answers 401 and 404 for a foreign path', async () => {
      await expectAuthAndTenancy('GET', '/integrations/slug/hubspot');
    });
  });

  describe('E14 GET /integrations/{id}', () => {
    it('reads the connection by id, field by field', async () => {
      const listed = (await connectedList()).find((record) => record.slug === 'twilio')!;
      const response = await rest('GET', url(`/integrations/${listed.id}`));
      expect(response.status).toBe(200);
      expect(connectedIntegrationSchema.parse(response.body)).toEqual(response.body);
      expect(response.body).toEqual(listed);
      expect(response.body).toMatchObject({ name: 'Twilio', slug: 'twilio', settings: { region: 'eu-ü' } });
    });

    it("answers 404 for an unknown id, a catalog id and another organization's connection", async () => {
      const theirs = (await otherRest('GET', url('/integrations/slug/telnyx'))).body;
      const catalogId = ((await rest('GET', url('/integrations'))).body.data as Record<string, any>[])[0]!.id;
      expectErrorBody(await rest('GET', url('/integrations/oint_missing')), 404);
      expectErrorBody(await rest('GET', url(`/integrations/${catalogId}`)), 404);
      expectErrorBody(await rest('GET', url(`/integrations/${theirs.id}`)), 404);
      expect((await otherRest('GET', url(`/integrations/${theirs.id}`))).body).toEqual(theirs);
    });

    it('answers 401 and 404 for a foreign path', async () => {
      const [record] = await connectedList();
      await expectAuthAndTenancy('GET', `/integrations/${record!.id}`);
    });
  });

  it('never returned a credential value in any response', () => {
    expect(seen.length).toBeGreaterThan(40);
    for (const body of seen) for (const secret of SECRET_VALUES) expect(body).not.toContain(secret);
    for (const body of seen) expect(body).not.toMatch(/credentials_?encrypted/i);
  });
});
