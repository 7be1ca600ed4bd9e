// DIALER=livekit and SIP trunks (E15-E17) through the real server, against a
// LiveKit protocol double: the pair is created in LiveKit and its ids stored
// here, numbers added there too; a LiveKit failure answers 502 and writes
// nothing here; a local failure after LiveKit accepted is taken back there.
// And the settings: DIALER=livekit without them is refused, naming them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serverFile } from '../scripts/build-server.js';
import { ConfigError, loadConfig } from '../src/config.ts';
import { eventually } from './support/flows.ts';
import { LiveKitDouble } from './support/livekit-double.ts';
import { freePort, runCli, runProcess, startServerProcess } from './support/processes.ts';
import { expectErrorBody, restClient } from './support/rest.ts';
import { startTestServer, type TestServer } from './support/server.ts';
import { createTestStorage } from './support/storage.ts';

let numberCounter = 1000;
const freshNumber = () => `+1212555${String(numberCounter++).padStart(4, '0')}`;

describe('DIALER=livekit: SIP trunks in LiveKit (E15-E17)', () => {
  let double: LiveKitDouble;
  let server: TestServer;
  let rest: ReturnType<typeof restClient>;
  let apiKey: string;

  beforeAll(async () => {
    double = await new LiveKitDouble().start();
    server = await startTestServer({ livekit: double.settings() });
    const organization = await server.createOrganization();
    apiKey = organization.apiKey;
    rest = restClient(server, organization.organizationId, organization.apiKey);
  });
  afterAll(async () => {
    await server?.close();
    await double?.close();
  });

  const localCounts = async () => ({
    trunks: await server.db.prisma.sipTrunk.count(),
    numbers: await server.db.prisma.phoneNumber.count(),
  });
  const remoteCounts = () => ({ outbound: double.outboundTrunks.size, inbound: double.inboundTrunks.size });

  it('E15 creates the pair in LiveKit and keeps its ids; E16 and E17 add numbers to both trunks there', async () => {
    const [first, second] = [freshNumber(), freshNumber()];
    const created = await rest('POST', '/org/{org}/sip-trunks', {
      body: {
        name: 'Carrier',
        address: 'sip.carrier.example:5060',
        provider: 'telnyx',
        phone_numbers: [first, second],
        auth_username: 'gw',
        auth_password: 's3cret',
      },
    });
    expect(created.status).toBe(201);
    const trunks = await server.db.prisma.sipTrunk.findMany({
      where: {
        pairId: (await server.db.prisma.sipTrunk.findFirstOrThrow({ where: { id: created.body.outbound_trunk.id } }))
          .pairId,
      },
    });
    const outboundRow = trunks.find((trunk) => trunk.direction === 'outbound')!;
    const inboundRow = trunks.find((trunk) => trunk.direction === 'inbound')!;
    const outbound = double.outboundTrunks.get(outboundRow.livekitTrunkId!)!;
    const inbound = double.inboundTrunks.get(inboundRow.livekitTrunkId!)!;
    expect(outbound).toMatchObject({
      name: 'Carrier',
      address: 'sip.carrier.example:5060',
      numbers: [first, second],
      authUsername: 'gw',
      authPassword: 's3cret',
    });
    expect(inbound).toMatchObject({
      name: 'Carrier',
      numbers: [first, second],
      authUsername: 'gw',
      authPassword: 's3cret',
    });
    // GraphQL shows LiveKit's ids; REST's E15 body stays SPEC.md's.
    const listed = await server.graphql(apiKey, '{ sipTrunks { nodes { id livekitTrunkId } } }');
    expect(listed.body.data.sipTrunks.nodes).toEqual(
      expect.arrayContaining([
        { id: outboundRow.id, livekitTrunkId: outbound.sipTrunkId },
        { id: inboundRow.id, livekitTrunkId: inbound.sipTrunkId },
      ]),
    );
    expect(created.body.outbound_trunk).not.toHaveProperty('livekit_trunk_id');

    const single = freshNumber();
    expect(
      (await rest('POST', '/org/{org}/phone-numbers', { body: { number: single, sip_trunk_id: inboundRow.id } }))
        .status,
    ).toBe(201);
    const [bulkA, bulkB] = [freshNumber(), freshNumber()];
    const bulk = await rest('POST', '/org/{org}/phone-numbers/bulk', {
      body: { sip_trunk_id: outboundRow.id, numbers: [{ number: bulkA }, { number: bulkB }] },
    });
    expect(bulk.status).toBe(201);
    for (const trunk of [outbound, inbound]) expect(trunk.numbers).toEqual([first, second, single, bulkA, bulkB]);
    expect(double.refused).toEqual([]);
  });

  it('answers 502 when LiveKit fails, and writes nothing (half a pair made there is deleted)', async () => {
    const before = await localCounts();
    const remoteBefore = remoteCounts();
    const body = { name: 'Broken', address: 'sip.example', provider: 'other', phone_numbers: [freshNumber()] };

    double.failNext('livekit.SIP/CreateSIPOutboundTrunk', {
      status: 500,
      code: 'internal',
      msg: 'trunk store unavailable',
    });
    const refused = expectErrorBody(await rest('POST', '/org/{org}/sip-trunks', { body }), 502);
    expect(refused.message).toMatch(/^LiveKit could not create the outbound trunk: 500 trunk store unavailable/);

    double.failNext('livekit.SIP/CreateSIPInboundTrunk', {
      status: 400,
      code: 'invalid_argument',
      msg: 'numbers overlap',
    });
    expectErrorBody(await rest('POST', '/org/{org}/sip-trunks', { body }), 502);
    expect(double.deletedTrunks).toHaveLength(1); // the outbound half of that pair

    // GraphQL: the same failure, as BAD_GATEWAY.
    double.failNext('livekit.SIP/CreateSIPOutboundTrunk', { status: 503, code: 'unavailable', msg: 'down' });
    const graphql = await server.graphql(
      apiKey,
      'mutation($input: SipTrunkCreateInput!) { createSipTrunk(input: $input) { outboundTrunk { id } } }',
      { input: { name: 'Broken', address: 'sip.example', provider: 'other', phoneNumbers: [freshNumber()] } },
    );
    expect(graphql.body.errors[0].extensions).toMatchObject({ code: 'BAD_GATEWAY', status: 502 });

    const trunk = await server.db.prisma.sipTrunk.findFirstOrThrow({
      where: { name: 'Carrier', direction: 'inbound' },
    });
    const remoteNumbers = () =>
      Object.fromEntries(
        [...double.outboundTrunks, ...double.inboundTrunks].map(([id, remote]) => [id, [...remote.numbers]]),
      );
    const numbersThere = remoteNumbers();
    // The outbound trunk takes the number, the inbound one fails: the outbound one gives it back.
    double.failNext('livekit.SIP/UpdateSIPInboundTrunk', { status: 500, code: 'internal', msg: 'no' });
    expectErrorBody(
      await rest('POST', '/org/{org}/phone-numbers', { body: { number: freshNumber(), sip_trunk_id: trunk.id } }),
      502,
    );
    expect(remoteNumbers()).toEqual(numbersThere);

    expect(await localCounts()).toEqual(before);
    expect(remoteCounts()).toEqual(remoteBefore);
  });

  it('a local write that fails after LiveKit accepted is taken back there (two requests for one number)', async () => {
    const number = freshNumber();
    const remoteBefore = remoteCounts();
    const deletedBefore = double.deletedTrunks.length;
    // Both requests pass the check for existing numbers before either writes: LiveKit answers them together.
    double.gate('livekit.SIP/CreateSIPOutboundTrunk', 2);
    const body = { name: 'Race', address: 'sip.example', provider: 'other', phone_numbers: [number] };
    const answers = await Promise.all([
      rest('POST', '/org/{org}/sip-trunks', { body }),
      rest('POST', '/org/{org}/sip-trunks', { body }),
    ]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([201, 409]);
    expectErrorBody(answers.find((answer) => answer.status === 409)!, 409);
    // The loser's pair was deleted in LiveKit: one pair more there, as here.
    expect(remoteCounts()).toEqual({ outbound: remoteBefore.outbound + 1, inbound: remoteBefore.inbound + 1 });
    expect(double.deletedTrunks.length).toBe(deletedBefore + 2);
    expect(await server.db.prisma.sipTrunk.count({ where: { name: 'Race' } })).toBe(2);
  });
});

describe('the simulated default', () => {
  it('sends nothing to LiveKit and has no webhook route', async () => {
    const server = await startTestServer();
    try {
      const { organizationId, apiKey } = await server.createOrganization();
      const rest = restClient(server, organizationId, apiKey);
      const created = await rest('POST', '/org/{org}/sip-trunks', {
        body: { name: 'Plain', address: 'sip.example', provider: 'other', phone_numbers: [freshNumber()] },
      });
      expect(created.status).toBe(201);
      expect(await server.db.prisma.sipTrunk.count({ where: { livekitTrunkId: { not: null } } })).toBe(0);
      expectErrorBody(await rest('POST', '/livekit/webhook', { raw: '{}' }), 404);
    } finally {
      await server.close();
    }
  });
});

describe('DIALER=livekit settings', () => {
  it('are refused when missing, each named', () => {
    const refusal = (env: Record<string, string>) => {
      try {
        loadConfig(env);
      } catch (error) {
        expect(error).toBeInstanceOf(ConfigError);
        return (error as Error).message;
      }
      throw new Error('accepted');
    };
    expect(refusal({ DIALER: 'livekit' })).toBe(
      'invalid configuration: DIALER=livekit needs LIVEKIT_URL, LIVEKIT_API_KEY, LIVEKIT_API_SECRET, LIVEKIT_AGENT_NAME',
    );
    expect(
      refusal({
        DIALER: 'livekit',
        LIVEKIT_URL: 'https://demo.livekit.cloud',
        LIVEKIT_API_KEY: 'APIx',
        LIVEKIT_API_SECRET: '',
      }),
    ).toBe('invalid configuration: DIALER=livekit needs LIVEKIT_API_SECRET, LIVEKIT_AGENT_NAME');
    expect(refusal({ DIALER: 'sip' })).toMatch(/^invalid configuration: DIALER: /);
    expect(loadConfig({}).livekit).toBeNull();
    expect(loadConfig({ LIVEKIT_URL: 'https://demo.livekit.cloud' }).livekit).toBeNull();
    expect(
      loadConfig({
        DIALER: 'livekit',
        LIVEKIT_URL: 'https://demo.livekit.cloud',
        LIVEKIT_API_KEY: 'APIx',
        LIVEKIT_API_SECRET: 'secret',
        LIVEKIT_AGENT_NAME: 'caller',
      }).livekit,
    ).toEqual({
      url: 'https://demo.livekit.cloud',
      apiKey: 'APIx',
      apiSecret: 'secret',
      agentName: 'caller',
      ringingTimeoutSeconds: 30,
    });
  });

  it('the server refuses to start without them, naming them', async () => {
    const storage = await createTestStorage();
    try {
      const started = await runProcess([serverFile], {
        ...storage.env,
        PORT: String(await freePort()),
        DIALER: 'livekit',
        LIVEKIT_URL: 'https://demo.livekit.cloud',
      });
      expect(started.code).toBe(1);
      expect(started.stderr).toContain('DIALER=livekit needs LIVEKIT_API_KEY, LIVEKIT_API_SECRET, LIVEKIT_AGENT_NAME');
    } finally {
      await storage.dispose();
    }
  });

  it('npm start with DIALER=livekit: trunks and a call go through LiveKit, and its webhook ends the call', async () => {
    const double = await new LiveKitDouble().start();
    const storage = await createTestStorage();
    try {
      const created = await runCli(['orgs', 'create', '--name', 'Process'], storage.env);
      expect(created.code, created.stderr).toBe(0);
      const { organization_id: organizationId, api_key: apiKey } = JSON.parse(created.stdout);
      const port = await freePort();
      double.webhookUrl = `http://127.0.0.1:${port}/livekit/webhook`;
      double.script = () => ({ kind: 'answered', durationSeconds: 21 });
      const process = await startServerProcess({ ...storage.env, ...double.env('process-agent') }, port);
      try {
        const client = { url: `http://127.0.0.1:${port}` } as TestServer;
        const rest = restClient(client, organizationId, apiKey);
        const trunk = await rest('POST', '/org/{org}/sip-trunks', {
          body: { name: 'Process trunk', address: 'sip.example', provider: 'other', phone_numbers: ['+12125550999'] },
        });
        expect(trunk.status).toBe(201);
        expect(double.outboundTrunks.size).toBe(1);
        const agent = await rest('POST', '/org/{org}/agents', { body: { name: 'Ava' } });
        const workflow = await rest('POST', '/org/{org}/workflows', {
          body: {
            name: 'Call',
            definition: {
              steps: [{ id: 'dial', type: 'call', agent_id: agent.body.id, trunk_id: trunk.body.outbound_trunk.id }],
            },
          },
        });
        const prospects = await rest('POST', '/org/{org}/prospects', {
          body: { prospects: [{ first_name: 'Ada', phone: '+14155550123' }] },
        });
        const batch = await rest('POST', `/org/{org}/workflows/${workflow.body.id}/batches`, {
          body: { prospect_ids: [prospects.body.created[0].id] },
        });
        expect(batch.status).toBe(201);
        const finished = await eventually(
          async () => {
            const current = await rest('GET', `/org/{org}/batches/${batch.body.id}`);
            return current.body.status === 'FINISHED' ? current.body : undefined;
          },
          30_000,
          'the batch to finish',
        );
        expect(finished.stats.finished_count).toBe(1);
        const runs = await rest('GET', `/org/{org}/workflows/${workflow.body.id}/runs`);
        const run = await rest('GET', `/org/{org}/runs/${runs.body.data[0].id}`);
        expect(run.body.call_attempts).toEqual([
          expect.objectContaining({
            number: 1,
            outcome: 'answered',
            duration_seconds: 21,
            from_number: '+12125550999',
            to_number: '+14155550123',
          }),
        ]);
        expect(double.dispatches[0]!.agentName).toBe('process-agent');
        expect(double.webhooks).toEqual([
          { event: 'room_finished', room: `${runs.body.data[0].id}-attempt-1`, status: 200 },
        ]);
      } finally {
        expect(await process.stop()).toBe(0);
      }
    } finally {
      await double.close();
      await storage.dispose();
    }
  });
});
