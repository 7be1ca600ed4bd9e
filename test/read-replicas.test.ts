// Reads on a real streaming replica (DATABASE_REPLICA_URLS): a primary and a
// replica of it made for this file (test/support/replica-cluster.ts). Pausing
// the replica's replay (pg_wal_replay_pause) makes its lag deterministic: what
// a read then sees tells which server answered it, the replica (the state
// before the pause) or the primary (the latest).
import { createClient } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { loadConfig } from '../src/config.ts';
import { flows } from './support/flows.ts';
import { ManualClock } from './support/manual-clock.ts';
import { type ReplicaCluster, startReplicaCluster } from './support/replica-cluster.ts';
import { restClient } from './support/rest.ts';
import { startTestServer, type TestServer } from './support/server.ts';
import { onPostgres } from './support/storage.ts';

const redisUrl = process.env.TEST_REDIS_URL;
const MAX_LAG_MS = 5_000;
const CHECK_MS = 1_000;

describe.runIf(onPostgres)('read replicas', () => {
  let cluster: ReplicaCluster | undefined;
  let server: TestServer;
  let other: TestServer;
  let sharingRedis: TestServer | undefined;
  const clock = new ManualClock('2026-11-28T00:00:00Z');
  let acme: { organizationId: string; apiKey: string };
  let globex: { organizationId: string; apiKey: string };

  const replicas = () => server.services.replicas!;
  const rest = (through: TestServer, organization: { organizationId: string; apiKey: string }) =>
    restClient(through, organization.organizationId, organization.apiKey);
  const primaryPosition = async () =>
    (await cluster!.primary<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn'))[0]!.lsn;
  const pauseReplay = () => cluster!.replica('SELECT pg_wal_replay_pause()');
  const resumeReplay = async () => {
    await cluster!.replica('SELECT pg_wal_replay_resume()');
    await cluster!.caughtUp();
  };
  /** Renames the agent on the primary behind the gateway's back: no key has written it. */
  const renameBehind = (agentId: string, name: string) =>
    cluster!.primary(`UPDATE "Agent" SET name = '${name}' WHERE id = '${agentId}'`, 'gateway');

  beforeAll(async () => {
    cluster = await startReplicaCluster();
    await cluster.primary('CREATE DATABASE gateway');
    const options = {
      storage: { kind: 'postgres' as const, url: cluster.primaryUrl('gateway'), poolSize: 5 },
      replicas: { urls: [cluster.replicaUrl('gateway')], maxLagMs: MAX_LAG_MS, checkMs: CHECK_MS, clock },
    };
    server = await startTestServer({ ...options, redisUrl });
    // Another instance of the deployment, without Redis: it has not seen this instance's writes.
    other = await startTestServer({ ...options, sharing: server });
    // And one that shares Redis with the first: it knows the keys' last writes.
    if (redisUrl) sharingRedis = await startTestServer({ ...options, sharing: server, redisUrl });
    acme = await server.createOrganization('Acme');
    globex = await server.createOrganization('Globex');
    await cluster.caughtUp();
    await replicas().check();
  }, 60_000);

  afterAll(async () => {
    await sharingRedis?.close();
    await other?.close();
    await server?.close();
    await cluster?.close();
  });

  it('sends reads to the replica, and a key’s reads after its own write to the primary until the replica has it', async () => {
    const created = await rest(server, acme)('POST', '/org/{org}/agents', { body: { name: 'first' } });
    expect(created.status).toBe(201);
    const written = created.headers.get('x-consistency');
    expect(written).toMatch(/^[0-9A-F]+\/[0-9A-F]+$/);
    const id = created.body.id;
    await cluster!.caughtUp();
    await pauseReplay();
    try {
      await renameBehind(id, 'behind');
      // The replica has Acme's write but not the rename: a read there sees "first".
      expect((await rest(server, acme)('GET', `/org/{org}/agents/${id}`)).body.name).toBe('first');
      // The client that saw the rename's position asks for it: the replica has not replayed it, the primary answers.
      const fresh = await rest(server, acme)('GET', `/org/{org}/agents/${id}`, {
        headers: { 'x-consistency': await primaryPosition() },
      });
      expect(fresh.body.name).toBe('behind');
      // A token that is no WAL position is not trusted: the primary answers, nothing fails.
      const garbled = await rest(server, acme)('GET', `/org/{org}/agents/${id}`, { headers: { 'x-consistency': 'x' } });
      expect(garbled.body.name).toBe('behind');

      // Acme's own write while the replica is paused: Acme's next reads, REST or GraphQL, see it.
      const updated = await rest(server, acme)('PATCH', `/org/{org}/agents/${id}`, { body: { name: 'mine' } });
      expect(updated.status).toBe(200);
      const token = updated.headers.get('x-consistency')!;
      expect(token).not.toBe(written);
      expect((await rest(server, acme)('GET', `/org/{org}/agents/${id}`)).body.name).toBe('mine');
      const viaGraphql = await server.graphql(acme.apiKey, 'query($id: ID!) { agent(id: $id) { name } }', { id });
      expect(viaGraphql.body.data.agent.name).toBe('mine');

      // Another instance knows nothing of it: without the token it reads the replica, with it the primary.
      expect((await rest(other, acme)('GET', `/org/{org}/agents/${id}`)).body.name).toBe('first');
      const withToken = await rest(other, acme)('GET', `/org/{org}/agents/${id}`, {
        headers: { 'x-consistency': token },
      });
      expect(withToken.body.name).toBe('mine');
    } finally {
      await resumeReplay();
    }
    // Replayed: the replica answers the token now, and has the write.
    expect((await rest(other, acme)('GET', `/org/{org}/agents/${id}`)).body.name).toBe('mine');
  });

  it('answers a GraphQL mutation with its token, and a query without one', async () => {
    const post = (query: string) =>
      server.app.inject({
        method: 'POST',
        url: '/graphql',
        headers: { 'content-type': 'application/json', 'x-api-key': acme.apiKey },
        payload: JSON.stringify({ query }),
      });
    const mutation = await post('mutation { createAgent(input: { name: "over graphql" }) { id } }');
    expect(mutation.statusCode).toBe(200);
    const token = String(mutation.headers['x-consistency']);
    expect(token).toMatch(/^[0-9A-F]+\/[0-9A-F]+$/);
    const [{ reached }] = (await cluster!.primary<{ reached: boolean }>(
      `SELECT pg_current_wal_lsn() >= '${token}'::pg_lsn AS reached`,
    )) as [{ reached: boolean }];
    expect(reached).toBe(true);
    const query = await post('{ agents(first: 1) { edges { node { id } } } }');
    expect(query.statusCode).toBe(200);
    expect(query.headers['x-consistency']).toBeUndefined();
  });

  it.runIf(redisUrl)('tells the instances sharing Redis of a key’s last write', async () => {
    const created = await rest(server, acme)('POST', '/org/{org}/agents', { body: { name: 'shared' } });
    const id = created.body.id;
    await cluster!.caughtUp();
    await pauseReplay();
    try {
      await rest(server, acme)('PATCH', `/org/{org}/agents/${id}`, { body: { name: 'written on the first' } });
      // No token sent: the instance sharing Redis knows the key's write, and reads it from the primary.
      expect((await rest(sharingRedis!, acme)('GET', `/org/{org}/agents/${id}`)).body.name).toBe(
        'written on the first',
      );
      // The one without Redis does not: it reads the replica.
      expect((await rest(other, acme)('GET', `/org/{org}/agents/${id}`)).body.name).toBe('shared');
    } finally {
      await resumeReplay();
    }
  });

  it('reads a subscription’s first state on the replica; its events carry the primary’s row', async () => {
    const build = flows(server, acme.apiKey);
    const batchId = await build.batch(await build.workflow([{ id: 'dial', type: 'call' }]), await build.prospects(1), {
      name: 'as created',
    });
    await cluster!.caughtUp();
    await pauseReplay();
    const client = createClient({
      url: `${server.url.replace('http', 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { 'x-api-key': acme.apiKey },
      retryAttempts: 0,
    });
    const events: { status: string; batch: { name: string } }[] = [];
    let arrived = () => {};
    try {
      await cluster!.primary(`UPDATE "Batch" SET name = 'renamed behind' WHERE id = '${batchId}'`, 'gateway');
      const next = () => new Promise<void>((resolve) => (arrived = resolve));
      const first = next();
      client.subscribe<{ batchProgress: (typeof events)[number] }>(
        {
          query: 'subscription($id: ID!) { batchProgress(batchId: $id) { status batch { name } } }',
          variables: { id: batchId },
        },
        {
          next: (message) => {
            events.push(message.data!.batchProgress);
            arrived();
          },
          error: () => {},
          complete: () => {},
        },
      );
      await first;
      // The replica's row: the rename is not there.
      expect(events[0]).toEqual({ status: 'PENDING', batch: { name: 'as created' } });
      const second = next();
      await build.setStatus(batchId, 'PAUSED');
      await second;
      // The change's row, read once on the primary for every subscriber: current.
      expect(events[1]).toEqual({ status: 'PAUSED', batch: { name: 'renamed behind' } });
    } finally {
      await client.dispose();
      await resumeReplay();
    }
  });

  it('confines replica reads to the caller’s organization', async () => {
    const created = await rest(server, acme)('POST', '/org/{org}/agents', { body: { name: 'acme only' } });
    const id = created.body.id;
    await cluster!.caughtUp();
    await pauseReplay();
    try {
      await renameBehind(id, 'renamed');
      // Served by the replica (the rename is not there), and scoped as on the primary.
      expect((await rest(server, acme)('GET', `/org/{org}/agents/${id}`)).body.name).toBe('acme only');
      expect((await rest(server, globex)('GET', `/org/{org}/agents/${id}`)).status).toBe(404);
      const listed = await rest(server, globex)('GET', '/org/{org}/agents');
      expect(listed.status).toBe(200);
      expect(listed.body.data ?? listed.body).toEqual([]);
      const viaGraphql = await server.graphql(globex.apiKey, 'query($id: ID!) { agent(id: $id) { name } }', { id });
      expect(viaGraphql.body.data?.agent ?? null).toBeNull();
      const agents = await server.graphql(globex.apiKey, '{ agents(first: 50) { edges { node { id } } } }');
      expect(agents.body.data.agents.edges).toEqual([]);
    } finally {
      await resumeReplay();
    }
  });

  it('leaves out a replica that lags past the bound, and takes it back once it catches up', async () => {
    const created = await rest(server, acme)('POST', '/org/{org}/agents', { body: { name: 'lagging' } });
    const id = created.body.id;
    await cluster!.caughtUp();
    await replicas().check();
    await pauseReplay();
    try {
      await renameBehind(id, 'moved on');
      await replicas().check();
      // Behind, but within the bound: still read from (Acme's last write is replayed).
      expect((await rest(server, acme)('GET', `/org/{org}/agents/${id}`)).body.name).toBe('lagging');
      clock.advance(MAX_LAG_MS + CHECK_MS);
      await replicas().check();
      expect(replicas().states[0]).toMatchObject({ up: false });
      expect(replicas().states[0]!.lagMs).toBeGreaterThan(MAX_LAG_MS);
      // Left out: the primary answers everyone.
      expect((await rest(server, acme)('GET', `/org/{org}/agents/${id}`)).body.name).toBe('moved on');
      expect((await rest(server, globex)('GET', `/org/{org}/agents/${id}`)).status).toBe(404);
      expect(await (await fetch(`${server.url}/ready`)).json()).toMatchObject({
        status: 'ready',
        replicas: 'degraded',
      });
      const metrics = await server.metrics();
      expect(metrics).toMatch(/gateway_db_replica_up\{replica="127\.0\.0\.1:\d+\/gateway"\} 0/);
      expect(metrics).toMatch(/gateway_db_replica_lag_seconds\{replica="127\.0\.0\.1:\d+\/gateway"\} ([6-9]|\d\d)/);
    } finally {
      await resumeReplay();
    }
    clock.advance(CHECK_MS);
    await replicas().check();
    expect(replicas().states[0]).toMatchObject({ up: true, lagMs: 0 });
    expect(await (await fetch(`${server.url}/ready`)).json()).toMatchObject({ status: 'ready', replicas: 'ok' });
    expect(await server.metrics()).toMatch(/gateway_db_replica_up\{replica="[^"]+"\} 1/);
  });

  it('serves reads from the primary while the replica is down, and from the replica once it is back', async () => {
    const created = await rest(server, acme)('POST', '/org/{org}/agents', { body: { name: 'before the stop' } });
    const id = created.body.id;
    await cluster!.caughtUp();
    await replicas().check();
    await cluster!.stopReplica();
    try {
      // Not checked yet: the read fails over to the primary under the request, and leaves the replica out.
      const read = await rest(other, acme)('GET', `/org/{org}/agents/${id}`);
      expect(read.status).toBe(200);
      expect(read.body.name).toBe('before the stop');
      const listed = await server.graphql(acme.apiKey, '{ agents(first: 50) { edges { node { name } } } }');
      expect(listed.status).toBe(200);
      await replicas().check();
      expect(replicas().states[0]).toMatchObject({ up: false, lagMs: null });
      expect(await (await fetch(`${server.url}/ready`)).json()).toMatchObject({
        status: 'ready',
        replicas: 'degraded',
      });
      expect(await server.metrics()).toMatch(/gateway_db_replica_lag_seconds\{replica="[^"]+"\} -1/);
    } finally {
      await cluster!.startReplica();
    }
    await cluster!.caughtUp();
    await replicas().check();
    expect(replicas().states[0]).toMatchObject({ up: true });
    expect((await rest(other, acme)('GET', `/org/{org}/agents/${id}`)).body.name).toBe('before the stop');
  });
});

describe('DATABASE_REPLICA_URLS', () => {
  it('is read as a comma-separated list of URLs beside DATABASE_URL, with the lag bound and the check period', () => {
    const config = loadConfig({
      DATABASE_URL: 'postgresql://primary/gateway',
      DATABASE_REPLICA_URLS: 'postgresql://r1/gateway, postgresql://r2:5433/gateway',
      DATABASE_REPLICA_MAX_LAG_MS: '2500',
    });
    expect(config.replicas).toEqual({
      urls: ['postgresql://r1/gateway', 'postgresql://r2:5433/gateway'],
      maxLagMs: 2500,
      checkMs: 1000,
    });
    expect(loadConfig({}).replicas.urls).toEqual([]);
  });

  it('refuses a value that is no URL (without showing it), or replicas without a PostgreSQL primary', () => {
    expect(() =>
      loadConfig({
        DATABASE_URL: 'postgresql://primary/gateway',
        DATABASE_REPLICA_URLS: 'postgresql://u:secret@r1/db,nope',
      }),
    ).toThrow(/DATABASE_REPLICA_URLS: .*its value not shown/);
    expect(() => loadConfig({ DATABASE_REPLICA_URLS: 'postgresql://r1/gateway' })).toThrow(/needs DATABASE_URL/);
    expect(() =>
      loadConfig({ DATABASE_URL: 'postgresql://primary/gateway', DATABASE_REPLICA_MAX_LAG_MS: '-1' }),
    ).toThrow(/DATABASE_REPLICA_MAX_LAG_MS/);
  });
});
