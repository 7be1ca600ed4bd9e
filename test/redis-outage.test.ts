// Redis is an accelerator, not a dependency: two instances share a Redis this
// test starts on a port of its own, and the test stops it while REST and
// GraphQL requests run on both. Nothing answers 5xx; rate limits count on each
// instance; a subscriber on one instance still sees a change made on the other
// (polled); /ready, /metrics and the log say Redis is degraded. Once Redis is
// back, counters and events are shared through it again. Then the same Redis
// hangs (SIGSTOP: connections stay open, nothing answers) and resumes. Last,
// only one instance loses Redis (through a proxy the test cuts): a change made
// there while the others, still connected, do not poll reaches their
// subscribers once it is back.
import type { ChildProcess } from 'node:child_process';
import net from 'node:net';
import { Writable } from 'node:stream';
import { type Client, createClient } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { eventually } from './support/flows.ts';
import { freePort, spawnChild } from './support/processes.ts';
import { startTestServer, type TestServer } from './support/server.ts';

/** A redis-server of this test's own, without persistence: stopping it loses everything, as a crash would. */
async function startRedis(port: number): Promise<ChildProcess> {
  const child = spawnChild(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (chunk) => {
      output += chunk;
      if (output.includes('Ready to accept connections')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`redis-server exited (${code}): ${output}`)));
  });
  return child;
}

async function stopRedis(child: ChildProcess) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

/** A TCP proxy to Redis for one instance: while cut, it closes that instance's connections, open and new. */
async function redisProxy(redisPort: number) {
  const sockets = new Set<net.Socket>();
  let cut = false;
  const track = (socket: net.Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  };
  const server = net.createServer((client) => {
    if (cut) return client.destroy();
    const upstream = net.connect(redisPort, '127.0.0.1');
    track(client);
    track(upstream);
    for (const [from, to] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      from.pipe(to);
      // Either side going away takes the other with it, as a lost connection would.
      from.on('error', () => to.destroy()).on('close', () => to.destroy());
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const cutAll = () => {
    cut = true;
    for (const socket of sockets) socket.destroy();
  };
  return {
    url: `redis://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    cut: cutAll,
    restore: () => (cut = false),
    close: () => {
      cutAll();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}

/** Subscribes `client` to the batch's progress, each status pushed on `statuses`, and waits for the first. */
async function followProgress(client: Client, batchId: string, statuses: string[]) {
  client.subscribe<{ batchProgress: { status: string } }>(
    { query: `subscription($id: ID!) { batchProgress(batchId: $id) { status } }`, variables: { id: batchId } },
    {
      next: (message) => message.data && statuses.push(message.data.batchProgress.status),
      error: () => {},
      complete: () => {},
    },
  );
  await eventually(async () => (statuses.length > 0 ? true : undefined), 10_000, 'the first progress event');
}

/** The log lines an instance writes, parsed. */
function logLines() {
  const lines: { level: number; msg: string }[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n')) if (line) lines.push(JSON.parse(line));
      done();
    },
  });
  return { lines, stream };
}

describe.runIf(process.env.TEST_REDIS_URL)('Redis stopped while requests run', () => {
  let redisPort: number;
  let redis: ChildProcess;
  let first: TestServer;
  let second: TestServer;
  const firstLog = logLines();
  const secondLog = logLines();
  const rateLimits = { perOrganization: 100_000, agentUpdate: 3, windowMs: 60_000 };

  beforeAll(async () => {
    redisPort = await freePort();
    redis = await startRedis(redisPort);
    const redisUrl = `redis://127.0.0.1:${redisPort}`;
    first = await startTestServer({ redisUrl, rateLimits, log: { level: 'info', stream: firstLog.stream } });
    second = await startTestServer({
      redisUrl,
      rateLimits,
      sharing: first,
      log: { level: 'info', stream: secondLog.stream },
    });
  });
  afterAll(async () => {
    await second?.close();
    await first?.close();
    await stopRedis(redis);
  });

  const redisState = async (server: TestServer) => {
    const response = await fetch(`${server.url}/ready`);
    expect(response.status).toBe(200);
    return ((await response.json()) as { redis: string }).redis;
  };
  const degradedGauge = async (server: TestServer) =>
    Number((await server.metrics()).match(/^gateway_redis_degraded (\d)$/m)?.[1]);
  /** E1 with a key nobody has: counted by the E1 limiter (3 a minute), then refused as unauthenticated. */
  const agentUpdate = async (server: TestServer, key: string) =>
    (
      await fetch(`${server.url}/org/org_x/agents/agent_x`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/json', 'x-api-key': key },
        body: '{}',
      })
    ).status;

  it('serves every request, counts per instance, and polls progress until Redis returns', async () => {
    expect(await redisState(first)).toBe('ok');
    const { apiKey, organizationId } = await first.createOrganization();
    const call = async (server: TestServer, query: string, variables?: Record<string, unknown>) => {
      const { status, body } = await server.graphql(apiKey, query, variables);
      expect(body.errors).toBeUndefined();
      expect(status).toBe(200);
      return body.data;
    };
    const workflow = (await call(first, `mutation { createWorkflow(input: { name: "Outage" }) { id } }`)).createWorkflow
      .id;
    const prospects = await call(
      first,
      `mutation { createProspects(input: { prospects: [{ firstName: "A" }, { firstName: "B" }] }) { id } }`,
    );
    const batchId = (
      await call(
        first,
        `mutation($w: ID!, $p: [String!]) { createBatch(workflowId: $w, input: { prospectIds: $p }) { id } }`,
        {
          w: workflow,
          p: prospects.createProspects.map((prospect: { id: string }) => prospect.id),
        },
      )
    ).createBatch.id;

    // A subscriber on the first instance.
    const statuses: string[] = [];
    const client = createClient({
      url: `${first.url.replace('http', 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { 'x-api-key': apiKey },
      retryAttempts: 0,
    });
    await followProgress(client, batchId, statuses);

    // REST and GraphQL requests on both instances, all along.
    const outcomes: { what: string; at: number; status: number; errors?: unknown }[] = [];
    let stop = false;
    const traffic = async (server: TestServer, offset: number) => {
      for (let index = offset; !stop; index++) {
        const at = Date.now();
        if (index % 2 === 0) {
          const response = await fetch(`${server.url}/org/${organizationId}/workflows/${workflow}`, {
            headers: { 'x-api-key': apiKey },
          });
          outcomes.push({ what: 'REST', at, status: response.status });
        } else {
          const { status, body } = await server.graphql(
            apiKey,
            `mutation($name: String!) { createWorkflow(input: { name: $name }) { id } }`,
            {
              name: `Traffic ${offset}-${index}`,
            },
          );
          outcomes.push({ what: 'GraphQL', at, status, errors: body.errors });
        }
      }
    };
    const running = Promise.all([traffic(first, 0), traffic(first, 1), traffic(second, 0), traffic(second, 1)]);
    try {
      // Traffic flows on both instances before Redis goes away.
      await eventually(async () => (outcomes.length >= 8 ? true : undefined));
      const stoppedAt = Date.now();
      await stopRedis(redis);
      await eventually(async () =>
        (await redisState(first)) === 'degraded' && (await redisState(second)) === 'degraded' ? true : undefined,
      );
      expect(await degradedGauge(first)).toBe(1);

      // A change on the second instance reaches the first one's subscriber, by polling.
      await call(second, `mutation($id: ID!) { updateBatchStatus(id: $id, status: PAUSED) { status } }`, {
        id: batchId,
      });
      await eventually(
        async () => (statuses.at(-1) === 'PAUSED' ? true : undefined),
        10_000,
        'the pause to reach the subscriber',
      );

      // Rate limits count on each instance: E1's quota of 3 is spent on the first, not on the second.
      const spent = 'gwk_outage-counted-per-instance';
      const perInstance = [];
      for (let request = 0; request < 4; request++) perInstance.push(await agentUpdate(first, spent));
      perInstance.push(await agentUpdate(second, spent));
      expect(perInstance).toEqual([401, 401, 401, 429, 401]);

      redis = await startRedis(redisPort);
      const restartedAt = Date.now();
      await eventually(async () =>
        (await redisState(first)) === 'ok' && (await redisState(second)) === 'ok' ? true : undefined,
      );
      stop = true;
      await running;
      expect(await degradedGauge(first)).toBe(0);

      // Events flow through Redis again (no instance polls now): a cancel on the second reaches the first.
      await call(second, `mutation($id: ID!) { updateBatchStatus(id: $id, status: CANCELLED) { status } }`, {
        id: batchId,
      });
      await eventually(
        async () => (statuses.at(-1) === 'CANCELLED' ? true : undefined),
        10_000,
        'the cancel to reach the subscriber',
      );

      // Counters are shared again: one quota across both instances.
      const shared = 'gwk_outage-counted-in-redis';
      const across = [
        await agentUpdate(first, shared),
        await agentUpdate(second, shared),
        await agentUpdate(first, shared),
        await agentUpdate(second, shared),
      ];
      expect(across).toEqual([401, 401, 401, 429]);

      const duringOutage = outcomes.filter((outcome) => outcome.at >= stoppedAt && outcome.at < restartedAt);
      console.info(`${outcomes.length} requests, ${duringOutage.length} while Redis was down`);
      expect(duringOutage.length).toBeGreaterThan(0);
      expect(outcomes.filter((outcome) => outcome.status >= 500 || outcome.errors)).toEqual([]);

      // Said once in each instance's log when Redis went away, once when it returned.
      for (const { lines } of [firstLog, secondLog]) {
        expect(lines.filter((line) => line.msg?.startsWith('Redis does not answer')).map((line) => line.level)).toEqual(
          [40],
        );
        expect(lines.filter((line) => line.msg?.startsWith('Redis answers again'))).toHaveLength(1);
      }
    } finally {
      // However the test ends, nothing keeps calling servers that are about to close.
      stop = true;
      await running.catch(() => {});
      await client.dispose();
    }
  }, 60_000);

  it('serves every request while Redis hangs, and notices when it answers again', async () => {
    const { apiKey, organizationId } = await first.createOrganization('Hang');
    const statuses: number[] = [];
    redis.kill('SIGSTOP');
    try {
      // The first command waits out its timeout (1 s); then requests count locally without waiting.
      for (let request = 0; request < 6; request++) {
        const started = Date.now();
        const response = await fetch(`${first.url}/org/${organizationId}/workflows/wf_missing`, {
          headers: { 'x-api-key': apiKey },
        });
        statuses.push(response.status);
        if (request > 0) expect(Date.now() - started).toBeLessThan(1_000);
      }
      expect(await redisState(first)).toBe('degraded');
      expect(await degradedGauge(first)).toBe(1);
    } finally {
      redis.kill('SIGCONT');
    }
    expect(statuses).toEqual([404, 404, 404, 404, 404, 404]);
    // Tried again once a second: the next request after Redis answers brings the instance back.
    await eventually(async () => {
      await fetch(`${first.url}/org/${organizationId}/workflows/wf_missing`, { headers: { 'x-api-key': apiKey } });
      return (await redisState(first)) === 'ok' ? true : undefined;
    });
    expect(firstLog.lines.filter((line) => line.msg?.startsWith('Redis does not answer'))).toHaveLength(2);
    expect(firstLog.lines.filter((line) => line.msg?.startsWith('Redis answers again'))).toHaveLength(2);
  }, 60_000);
  it('announces a change made while only its own instance could not reach Redis, once it can', async () => {
    // A third instance reaches the same Redis through a proxy; the second one, directly, keeps it all along.
    const proxy = await redisProxy(redisPort);
    const cutOff = await startTestServer({ redisUrl: proxy.url, rateLimits, sharing: first });
    const { apiKey } = await first.createOrganization('Announcements');
    const call = async (server: TestServer, query: string, variables?: Record<string, unknown>) => {
      const { status, body } = await server.graphql(apiKey, query, variables);
      expect(body.errors).toBeUndefined();
      expect(status).toBe(200);
      return body.data;
    };
    const statuses: string[] = [];
    const client = createClient({
      url: `${second.url.replace('http', 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { 'x-api-key': apiKey },
      retryAttempts: 0,
    });
    try {
      const workflow = (await call(cutOff, `mutation { createWorkflow(input: { name: "Cut off" }) { id } }`))
        .createWorkflow.id;
      const prospects = await call(
        cutOff,
        `mutation { createProspects(input: { prospects: [{ firstName: "A" }] }) { id } }`,
      );
      const batchId = (
        await call(
          cutOff,
          `mutation($w: ID!, $p: [String!]) { createBatch(workflowId: $w, input: { prospectIds: $p }) { id } }`,
          { w: workflow, p: prospects.createProspects.map((prospect: { id: string }) => prospect.id) },
        )
      ).createBatch.id;
      expect(await redisState(cutOff)).toBe('ok');

      // A subscriber on the second instance, which keeps Redis and so does not poll.
      await followProgress(client, batchId, statuses);

      proxy.cut();
      await eventually(async () => ((await redisState(cutOff)) === 'degraded' ? true : undefined));
      expect(await redisState(second)).toBe('ok');
      // Changed where Redis cannot be told: the second instance hears nothing of it yet.
      await call(cutOff, `mutation($id: ID!) { updateBatchStatus(id: $id, status: PAUSED) { status } }`, {
        id: batchId,
      });

      proxy.restore();
      await eventually(
        async () => (statuses.at(-1) === 'PAUSED' ? true : undefined),
        10_000,
        'the pause made while cut off to reach the other instance',
      );
      expect(await redisState(cutOff)).toBe('ok');
    } finally {
      await client.dispose();
      await cutOff.close();
      await proxy.close();
    }
  }, 60_000);
});
