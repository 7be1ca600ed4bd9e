// REDIS_CLUSTER_NODES: two instances share a real Redis Cluster of three
// masters, started here from the machine's redis-server. Batch progress goes
// over sharded pub/sub on the batch's own slot, live-query invalidations over
// the organization's sharded channel (subscribed only by instances running one
// of its live queries), and cached answers and rate-limit counters sit behind
// the organization's hash tag. With a master down, an instance answers as
// with Redis away. Run with TEST_REDIS_URL set, as in CI.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.ts';
import { issueApiKey } from '../src/domain/organizations.ts';
import { flows } from './support/flows.ts';
import { follow, wsClient } from './support/graphql-ws.ts';
import { startRedisCluster, type TestRedisCluster } from './support/redis-cluster.ts';
import { startTestServer, type TestServer } from './support/server.ts';

const PROGRESS = `subscription($id: ID!) { batchProgress(batchId: $id) { batchId status } }`;
const LIVE_BATCH = `query($id: ID!) @live { batch(id: $id) { id status } }`;
const LIVE_BATCHES = `query @live { batches(first: 50) { totalCount } }`;
const BATCH = `query($id: ID!) { batch(id: $id) { id status } }`;

interface Organization {
  organizationId: string;
  apiKey: string;
}

describe('REDIS_CLUSTER_NODES', () => {
  it('reads host:port pairs, and refuses anything else or REDIS_URL with it', () => {
    expect(loadConfig({ REDIS_CLUSTER_NODES: 'redis-1:7000, 10.0.0.2:7001,[::1]:7002' }).redis).toEqual({
      kind: 'cluster',
      nodes: [
        { host: 'redis-1', port: 7000 },
        { host: '10.0.0.2', port: 7001 },
        { host: '::1', port: 7002 },
      ],
    });
    expect(loadConfig({ REDIS_URL: 'redis://r:6379' }).redis).toEqual({ kind: 'server', url: 'redis://r:6379' });
    expect(loadConfig({}).redis).toBeUndefined();
    for (const bad of ['redis-1', 'redis-1:0', 'redis-1:70000', 'a:1,,b:2', 'redis://a:1']) {
      expect(() => loadConfig({ REDIS_CLUSTER_NODES: bad })).toThrow(/REDIS_CLUSTER_NODES: expected host:port/);
    }
    expect(() => loadConfig({ REDIS_CLUSTER_NODES: 'a:1', REDIS_URL: 'redis://r:6379' })).toThrow(ConfigError);
  });
});

describe.runIf(process.env.TEST_REDIS_URL)('two instances over a Redis Cluster', () => {
  let cluster: TestRedisCluster | undefined;
  let first: TestServer | undefined;
  let second: TestServer | undefined;
  let org: Organization;
  let other: Organization;
  // Room for the requests the tests below make as one organization.
  const rateLimits = { perOrganization: 60, agentUpdate: 60, windowMs: 60_000 };

  /** The organization's calls through `server` (one agent for all its workflows). */
  const apis = new Map<string, ReturnType<typeof flows>>();
  const apiOf = (server: TestServer | undefined, key = org.apiKey) => {
    const name = `${server === first ? 'first' : 'second'} ${key}`;
    if (!apis.has(name)) apis.set(name, flows(server!, key));
    return apis.get(name)!;
  };
  /** A batch of one prospect, made through `server` as the organization of `key`. */
  async function newBatch(server: TestServer | undefined, key = org.apiKey) {
    const api = apiOf(server, key);
    return api.batch(await api.workflow([{ id: 'dial', type: 'call' }]), await api.prospects(1));
  }

  /** How many connections subscribe to a sharded channel, asked of the master serving it. */
  const subscribers = async (channel: string) =>
    Number((await cluster!.onNodeOf(channel, 'pubsub', 'shardnumsub', channel))[1]);

  beforeAll(async () => {
    cluster = await startRedisCluster();
    first = await startTestServer({ redisCluster: cluster.nodes, rateLimits });
    second = await startTestServer({ redisCluster: cluster.nodes, rateLimits, sharing: first });
    org = await first.createOrganization();
    other = await first.createOrganization('Other');
  }, 60_000);
  afterAll(async () => {
    await second?.close();
    await first?.close();
    await cluster?.stop();
  });

  it("delivers batch progress to the other instance, from batches on different masters' slots", async () => {
    // Batches until two have their channels on different masters (each batch has a slot of its own).
    const batches: string[] = [];
    const masters = new Set<number>();
    while (masters.size < 2) {
      const batchId = await newBatch(first);
      const port = await cluster!.portOf(`batchChanged:{${batchId}}`);
      if (masters.has(port)) continue;
      masters.add(port);
      batches.push(batchId);
    }
    const client = wsClient(first!.url, org.apiKey);
    const progress = batches.map((batchId) =>
      follow<{ batchProgress: { status: string } }>(client, PROGRESS, { id: batchId }),
    );
    for (const each of progress) await each.until(() => each.results.length >= 1);
    // Subscribed by the watching instance alone, each on the master serving its batch's slot.
    for (const batchId of batches) expect(await subscribers(`batchChanged:{${batchId}}`)).toBe(1);
    for (const batchId of batches) await apiOf(second).setStatus(batchId, 'PAUSED');
    for (const each of progress) await each.until(() => each.results.at(-1)?.data.batchProgress.status === 'PAUSED');
    for (const each of progress) each.stop();
    await client.dispose();
    // The last subscriber gone, the instance leaves the channels.
    for (const batchId of batches) await expect.poll(() => subscribers(`batchChanged:{${batchId}}`)).toBe(0);
  });

  it("re-executes the other instance's live queries: a batch's change, and any write of the organization", async () => {
    const batchId = await newBatch(second);
    const client = wsClient(first!.url, org.apiKey);
    const batch = follow<{ batch: { status: string } }>(client, LIVE_BATCH, { id: batchId });
    const list = follow<{ batches: { totalCount: number } }>(client, LIVE_BATCHES);
    await batch.until(() => batch.results.length >= 1);
    await list.until(() => list.results.length >= 1);
    expect(await subscribers(`liveQueryInvalidated:{${org.organizationId}}`)).toBe(1);
    // As the run engine does: its own write (no mutation), then the announcement, which names the batch alone.
    await second!.db.prisma.batch.updateMany({ where: { id: batchId }, data: { status: 'IN_PROGRESS' } });
    second!.services.events.batchChanged(batchId);
    await batch.until(() => batch.results.at(-1)?.data.batch.status === 'IN_PROGRESS');
    const before = list.results.at(-1)!.data.batches.totalCount;
    await newBatch(second);
    await list.until(() => list.results.at(-1)?.data.batches.totalCount === before + 1);
    batch.stop();
    list.stop();
    await client.dispose();
    await expect.poll(() => subscribers(`liveQueryInvalidated:{${org.organizationId}}`)).toBe(0);
  });

  it("tells another organization's live queries nothing: their instance does not even hear it", async () => {
    const ours = wsClient(first!.url, org.apiKey);
    const theirs = wsClient(second!.url, other.apiKey);
    const ourList = follow<{ batches: { totalCount: number } }>(ours, LIVE_BATCHES);
    const theirList = follow<{ batches: { totalCount: number } }>(theirs, LIVE_BATCHES);
    await ourList.until(() => ourList.results.length >= 1);
    await theirList.until(() => theirList.results.length >= 1);
    // Each organization's channel is subscribed by the instance running its live query, and only by it.
    expect(await subscribers(`liveQueryInvalidated:{${org.organizationId}}`)).toBe(1);
    expect(await subscribers(`liveQueryInvalidated:{${other.organizationId}}`)).toBe(1);
    // Written on the instance running the other organization's live query: ours re-executes, theirs does not.
    const [ourCount, theirCount] = [ourList, theirList].map((list) => list.results[0]!.data.batches.totalCount);
    await newBatch(second);
    await ourList.until(() => ourList.results.at(-1)?.data.batches.totalCount === ourCount! + 1);
    expect(theirList.results).toHaveLength(1);
    // Their own write reaches them as ever.
    await newBatch(first, other.apiKey);
    await theirList.until(() => theirList.results.at(-1)?.data.batches.totalCount === theirCount! + 1);
    ourList.stop();
    theirList.stop();
    await Promise.all([ours.dispose(), theirs.dispose()]);
  });

  it("shares cached answers, keeps an organization's in its slot, and drops them on the batch's change", async () => {
    const batchId = await newBatch(first);
    const cached = async (server: TestServer | undefined) => {
      const { body, cache } = await server!.graphql(org.apiKey, BATCH, { id: batchId });
      return { status: body.data.batch.status, cache };
    };
    expect(await cached(first)).toEqual({ status: 'PENDING', cache: 'miss' });
    expect(await cached(second)).toEqual({ status: 'PENDING', cache: 'hit' });
    // The answer and its tags' sets share the organization's slot (kept in one MULTI).
    const keys = await cluster!.onNodeOf(`{${org.organizationId}}`, 'keys', `responseCache:*{${org.organizationId}}*`);
    expect(keys).toEqual(
      expect.arrayContaining([
        expect.stringMatching(new RegExp(`^responseCache:a:\\{${org.organizationId}\\}/`)),
        `responseCache:t:{${org.organizationId}}:Organization:${org.organizationId}`,
        `responseCache:t:{${org.organizationId}}:Batch:${batchId}`,
      ]),
    );
    // The engine's change (no mutation) drops the answer holding the batch, on every instance.
    await second!.db.prisma.batch.updateMany({ where: { id: batchId }, data: { status: 'IN_PROGRESS' } });
    second!.services.events.batchChanged(batchId);
    await expect.poll(async () => (await cached(first)).status).toBe('IN_PROGRESS');
  });

  it("counts an organization's requests on both instances against one quota, in its own slot", async () => {
    const { organizationId, apiKey } = await first!.createOrganization('Counted');
    const otherKey = (await issueApiKey(first!.db.prisma, organizationId)).apiKey;
    const statuses: number[] = [];
    for (let request = 0; request < rateLimits.perOrganization + 2; request++) {
      const [server, key] = request % 2 === 0 ? [first!, apiKey] : [second!, otherKey];
      statuses.push((await server.graphql(key, '{ organization { id } }')).status);
    }
    expect(statuses.slice(0, rateLimits.perOrganization).every((status) => status === 200)).toBe(true);
    expect(statuses.slice(rateLimits.perOrganization)).toEqual([429, 429]);
    const counter = `gateway-rate-limit:org:{${organizationId}}`;
    expect(await cluster!.onNodeOf(counter, 'get', counter)).toEqual([String(rateLimits.perOrganization + 2)]);
  });
});

describe.runIf(process.env.TEST_REDIS_URL)('an instance over a Redis Cluster, a master down', () => {
  let cluster: TestRedisCluster | undefined;
  let server: TestServer | undefined;
  beforeAll(async () => {
    cluster = await startRedisCluster();
    server = await startTestServer({ redisCluster: cluster.nodes });
  }, 60_000);
  afterAll(async () => {
    await server?.close();
    await cluster?.stop();
  });

  it('answers as with Redis away: requests go on, /ready says degraded', async () => {
    const { organizationId, apiKey } = await server!.createOrganization();
    const ready = async () => (await fetch(`${server!.url}/ready`)).json();
    expect((await server!.graphql(apiKey, '{ organization { id } }')).status).toBe(200);
    expect(await ready()).toEqual({ status: 'ready', redis: 'ok' });
    // The master serving the organization's slot (its counters, its cached answers) goes away, unreplaced.
    await cluster!.onNodeOf(`{${organizationId}}`, 'shutdown', 'nosave');
    for (let request = 0; request < 3; request++) {
      const { status, body } = await server!.graphql(apiKey, '{ organization { id } }');
      expect({ status, id: body.data.organization.id }).toEqual({ status: 200, id: organizationId });
    }
    expect(await ready()).toEqual({ status: 'ready', redis: 'degraded' });
  });
});
