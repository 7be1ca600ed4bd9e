import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Dialer } from '../src/engine/dialer.ts';
import { batchIn, expectStatsMatchRuns } from './support/batch-checks.ts';
import { eventually, flows } from './support/flows.ts';
import { ManualClock } from './support/manual-clock.ts';
import { startTestServer, type TestEngineOptions, type TestServer } from './support/server.ts';

async function withEngine(
  options: TestEngineOptions,
  work: (server: TestServer, api: ReturnType<typeof flows>) => Promise<void>,
) {
  const server = await startTestServer({ engine: options });
  try {
    const { apiKey } = await server.createOrganization();
    await work(server, flows(server, apiKey));
  } finally {
    await server.close();
  }
}

describe('the run engine', () => {
  it('runs every step of the pinned version and finishes the runs and the batch', async () => {
    await withEngine({ callMs: 10 }, async (server, api) => {
      const workflow = await api.workflow([
        { id: 'dial', type: 'call' },
        { id: 'pause', type: 'wait', seconds: 0.01 },
        { id: 'redial', type: 'call' },
      ]);
      const batchId = await api.batch(workflow, await api.prospects(5));
      // A later version does not change the runs already pinned.
      await api.ok(
        `mutation($id: ID!) { publishWorkflowVersion(workflowId: $id, input: { definition: { steps: [{ id: "x", type: "nope" }] } }) { version } }`,
        {
          id: workflow,
        },
      );
      const batch = await batchIn(server.db, batchId, ['FINISHED', 'FAILED']);
      expect(batch.status).toBe('FINISHED');
      expect(batch.finishedCount).toBe(5);
      const runs = await server.db.prisma.run.findMany({ where: { batchId } });
      for (const run of runs) {
        // One attempt per call step.
        expect(run).toMatchObject({
          status: 'FINISHED',
          currentStepId: 'redial',
          attempts: 2,
          lastOutcome: 'answered',
          leaseOwner: null,
        });
        expect(run.startedAt!.getTime()).toBeLessThanOrEqual(run.endedAt!.getTime());
      }
      await expectStatsMatchRuns(server.db, batchId);
    });
  });

  it('fails runs whose call fails, and a batch whose every run failed', async () => {
    await withEngine({ callMs: 5, outcomes: { failed: 1 } }, async (server, api) => {
      const batchId = await api.batch(await api.workflow([{ id: 'dial', type: 'call' }]), await api.prospects(3));
      const batch = await batchIn(server.db, batchId, ['FINISHED', 'FAILED']);
      expect(batch).toMatchObject({ status: 'FAILED', failedCount: 3 });
      const runs = await server.db.prisma.run.findMany({ where: { batchId } });
      expect(
        runs.every(
          (run) =>
            run.status === 'FAILED' &&
            run.lastOutcome === 'failed' &&
            run.error?.includes('ended failed') &&
            run.endedAt,
        ),
      ).toBe(true);
    });
  });

  it('finishes a batch with some failed runs as FINISHED, and fails runs with an unknown step type', async () => {
    let calls = 0;
    const flaky: Dialer = {
      dial: async () => ({ outcome: calls++ % 2 === 0 ? 'busy' : 'answered', durationSeconds: 1, reason: null }),
    };
    await withEngine({ dialer: flaky, concurrency: 1 }, async (server, api) => {
      const batchId = await api.batch(await api.workflow([{ id: 'dial', type: 'call' }]), await api.prospects(4));
      const batch = await batchIn(server.db, batchId, ['FINISHED', 'FAILED']);
      expect(batch).toMatchObject({ status: 'FINISHED', finishedCount: 2, failedCount: 2 });
      const unknown = await api.batch(await api.workflow([{ id: 'x', type: 'fax' }]), await api.prospects(1));
      expect((await batchIn(server.db, unknown, ['FINISHED', 'FAILED'])).status).toBe('FAILED');
      const [run] = await server.db.prisma.run.findMany({ where: { batchId: unknown } });
      expect(run!.error).toContain('no handler for steps of type "fax"');
    });
  });

  it('stops claiming at once on pause, lets calls in flight finish, sends runs not yet calling back, and resumes', async () => {
    await withEngine({ callMs: 300, concurrency: 2 }, async (server, api) => {
      const batchId = await api.batch(await api.workflow([{ id: 'dial', type: 'call' }]), await api.prospects(6));
      const attempts = () => server.db.prisma.runAttempt.count({ where: { batchId } });
      await eventually(async () => ((await attempts()) > 0 ? true : undefined));
      await api.setStatus(batchId, 'PAUSED');
      const paused = await expectStatsMatchRuns(server.db, batchId);
      expect(paused.status).toBe('PAUSED');
      // Calls in flight finish; runs claimed ahead, waiting for a line, go back to PAUSED without a call;
      // then the engine looks for work twice, and calls nobody while paused.
      const inProgress = () => server.db.prisma.run.count({ where: { batchId, status: 'IN_PROGRESS' } });
      await eventually(async () => ((await inProgress()) === 0 ? true : undefined));
      const called = await attempts();
      await server.engineClaims();
      expect(await attempts()).toBe(called);
      expect(await inProgress()).toBe(0);
      const stillPaused = await expectStatsMatchRuns(server.db, batchId);
      expect(stillPaused).toMatchObject({ status: 'PAUSED', finishedCount: called, pausedCount: 6 - called });
      await api.setStatus(batchId, 'PENDING');
      const done = await batchIn(server.db, batchId, ['FINISHED']);
      expect(done.finishedCount).toBe(6);
      await expectStatsMatchRuns(server.db, batchId);
    });
  });

  it('keeps a cancelled batch cancelled while its runs in progress end', async () => {
    await withEngine({ callMs: 300, concurrency: 1 }, async (server, api) => {
      const batchId = await api.batch(await api.workflow([{ id: 'dial', type: 'call' }]), await api.prospects(3));
      // One call in flight (one line); the run claimed ahead, waiting for the line, is cancelled without a call.
      await eventually(async () =>
        (await server.db.prisma.runAttempt.count({ where: { batchId } })) === 1 ? true : undefined,
      );
      await api.setStatus(batchId, 'CANCELLED');
      await eventually(async () =>
        (await server.db.prisma.run.count({ where: { batchId, status: 'IN_PROGRESS' } })) === 0 ? true : undefined,
      );
      const batch = await expectStatsMatchRuns(server.db, batchId);
      expect(batch).toMatchObject({ status: 'CANCELLED', finishedCount: 1, cancelledCount: 2 });
    });
  });

  it('holds runs of a batch scheduled in the future until then', async () => {
    const clock = new ManualClock('2030-01-07T12:00:00.000Z');
    await withEngine({ callMs: 5, clock }, async (server, api) => {
      const at = new Date(clock.now().getTime() + 60_000);
      const batchId = await api.batch(await api.workflow([{ id: 'dial', type: 'call' }]), await api.prospects(2), {
        scheduledAt: at.toISOString(),
      });
      await server.engineClaims();
      expect((await server.db.prisma.batch.findFirstOrThrow({ where: { id: batchId } })).status).toBe('PENDING');
      clock.set(at);
      const batch = await batchIn(server.db, batchId, ['FINISHED']);
      const runs = await server.db.prisma.run.findMany({ where: { batchId } });
      expect(runs.every((run) => run.startedAt!.getTime() >= at.getTime())).toBe(true);
      expect(batch.finishedCount).toBe(2);
    });
  });

  it('keeps calls on an outbound trunk within its max_concurrency', async () => {
    let active = 0;
    let peak = 0;
    const server = await startTestServer({ engine: { concurrency: 8, callMs: 120 } });
    try {
      const { apiKey } = await server.createOrganization();
      const api = flows(server, apiKey);
      const trunks =
        await api.ok(`mutation { createSipTrunk(input: { name: "T", address: "sip.example.com", provider: "twilio",
        phoneNumbers: ["+14155550100"], maxConcurrency: 2 }) { outboundTrunk { id } } }`);
      const trunkId = trunks.createSipTrunk.outboundTrunk.id;
      const observe = setInterval(async () => {
        active = await server.db.prisma.run.count({ where: { trunkId, status: 'IN_PROGRESS' } });
        peak = Math.max(peak, active);
      }, 10);
      const batchId = await api.batch(
        await api.workflow([{ id: 'dial', type: 'call', trunk_id: trunkId }]),
        await api.prospects(8),
      );
      await batchIn(server.db, batchId, ['FINISHED']);
      clearInterval(observe);
      expect(peak).toBeGreaterThan(0);
      expect(peak).toBeLessThanOrEqual(2);
      // The caller ids were the trunk's (one number here, used in turn).
      const attempts = await server.db.prisma.runAttempt.findMany({ where: { batchId } });
      expect(new Set(attempts.map((attempt) => attempt.fromNumber))).toEqual(new Set(['+14155550100']));
      // A trunk that is not the organization's is refused when the version is published.
      await expect(api.workflow([{ id: 'dial', type: 'call', trunk_id: 'trk_nope' }])).rejects.toThrow(
        /definition\.steps\.0\.trunk_id/,
      );
    } finally {
      await server.close();
    }
  });

  describe('webhook steps', () => {
    let receiver: http.Server;
    let base: string;
    const received: { method?: string; body: string }[] = [];
    beforeAll(async () => {
      receiver = http.createServer((request, response) => {
        let body = '';
        request.on('data', (chunk) => (body += chunk));
        request.on('end', () => {
          received.push({ method: request.method, body });
          if (request.url === '/slow') return; // never answers: only the step's timeout ends the request
          response.statusCode = request.url === '/fail' ? 500 : 200;
          response.end('ok');
        });
      });
      await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
      base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    });
    afterAll(() => {
      receiver.closeAllConnections();
      return new Promise<void>((resolve) => receiver.close(() => resolve()));
    });

    it('sends a real request, fails on a non-2xx answer and on a timeout', async () => {
      await withEngine({}, async (server, api) => {
        const ok = await api.batch(
          await api.workflow([{ id: 'hook', type: 'webhook', url: `${base}/ok` }]),
          await api.prospects(1),
        );
        expect((await batchIn(server.db, ok, ['FINISHED', 'FAILED'])).status).toBe('FINISHED');
        const body = JSON.parse(received.find((request) => request.body.includes(ok))!.body);
        expect(body).toMatchObject({ batch_id: ok, step_id: 'hook', run_id: expect.stringMatching(/^run_/) });

        const failing = await api.batch(
          await api.workflow([{ id: 'hook', type: 'webhook', url: `${base}/fail` }]),
          await api.prospects(1),
        );
        expect((await batchIn(server.db, failing, ['FINISHED', 'FAILED'])).status).toBe('FAILED');
        const slow = await api.batch(
          await api.workflow([{ id: 'hook', type: 'webhook', url: `${base}/slow`, timeout_ms: 200 }]),
          await api.prospects(1),
        );
        expect((await batchIn(server.db, slow, ['FINISHED', 'FAILED'])).status).toBe('FAILED');
        const [run] = await server.db.prisma.run.findMany({ where: { batchId: slow } });
        expect(run!.error).toContain('failed');
      });
    });
  });

  it('takes back a run whose holder died once its lease runs out, and runs it', async () => {
    await withEngine({ callMs: 5, leaseMs: 1000 }, async (server, api) => {
      await server.engine!.stop();
      const batchId = await api.batch(await api.workflow([{ id: 'dial', type: 'call' }]), await api.prospects(2));
      // A worker that died mid-run: its run stays IN_PROGRESS under a lease nobody renews.
      const [run] = await server.db.prisma.run.findMany({ where: { batchId }, take: 1 });
      await server.db.prisma.$transaction([
        server.db.prisma.run.updateMany({
          where: { id: run!.id },
          data: {
            status: 'IN_PROGRESS',
            startedAt: new Date(),
            leaseOwner: 'dead-worker',
            leaseExpiresAt: new Date(Date.now() + 500),
          },
        }),
        server.db.prisma.batch.updateMany({
          where: { id: batchId },
          data: { status: 'IN_PROGRESS', pendingCount: { decrement: 1 }, inProgressCount: { increment: 1 } },
        }),
      ]);
      server.engine!.start();
      const batch = await batchIn(server.db, batchId, ['FINISHED']);
      expect(batch.finishedCount).toBe(2);
      // It had no call in flight (no open attempt): it resumes, and makes its one call.
      const recovered = await server.db.prisma.run.findFirstOrThrow({ where: { id: run!.id } });
      expect(recovered).toMatchObject({ status: 'FINISHED', attempts: 1, recoveries: 1 });
      await expectStatsMatchRuns(server.db, batchId);
    });
  });

  it('hands its runs back when it stops: calls cut short are failed attempts, retried by the policy', async () => {
    await withEngine({ callMs: 60_000, concurrency: 3 }, async (server, api) => {
      const retry = { maxAttempts: 2, on: ['failed'], delaySeconds: 0 };
      const batchId = await api.batch(await api.workflow([{ id: 'dial', type: 'call' }]), await api.prospects(5), {
        retry,
      });
      // Three calls on the three lines, and the two other runs claimed ahead, waiting for a line.
      await eventually(async () =>
        (await server.db.prisma.runAttempt.count({ where: { batchId } })) === 3 &&
        (await server.db.prisma.run.count({ where: { batchId, status: 'IN_PROGRESS' } })) === 5
          ? true
          : undefined,
      );
      await server.engine!.stop();
      const batch = await expectStatsMatchRuns(server.db, batchId);
      expect(batch).toMatchObject({ pendingCount: 5, inProgressCount: 0 });
      const runs = await server.db.prisma.run.findMany({ where: { batchId } });
      expect(runs.every((run) => run.leaseOwner === null)).toBe(true);
      const called = runs.filter((run) => run.attempts === 1 && run.lastOutcome === 'failed');
      expect(called).toHaveLength(3);
      // The runs that waited go back with no attempt, to call at once elsewhere.
      expect(runs.filter((run) => run.attempts === 0 && run.lastOutcome === null)).toHaveLength(2);
      const attempts = await server.db.prisma.runAttempt.findMany({ where: { batchId } });
      expect(attempts.map((attempt) => [attempt.outcome, attempt.reason])).toEqual(
        Array(3).fill(['failed', 'interrupted']),
      );
    });
  });
});

describe('lines: ENGINE_CONCURRENCY bounds the calls in flight', () => {
  it('gives its lines to runs that call, whatever other runs are doing, and never exceeds them', async () => {
    // Calls that end only when the test hangs them up, one at a time.
    let inCall = 0;
    let peak = 0;
    const hangUps: (() => void)[] = [];
    const dialer: Dialer = {
      dial: (_request, signal) =>
        new Promise((resolve, reject) => {
          peak = Math.max(peak, ++inCall);
          hangUps.push(() => {
            inCall--;
            resolve({ outcome: 'answered', durationSeconds: 1, reason: null });
          });
          signal.addEventListener('abort', () => reject(signal.reason));
        }),
    };
    // A step that is not a call, lasting as long as the test says.
    let atGate = 0;
    let openGate = () => {};
    const gate = new Promise<void>((resolve) => (openGate = resolve));
    const handlers = {
      gate: async (_step: unknown, { signal }: { signal: AbortSignal }) => {
        atGate++;
        await new Promise((resolve, reject) => {
          void gate.then(resolve);
          signal.addEventListener('abort', () => reject(signal.reason));
        });
      },
    };
    await withEngine({ concurrency: 2, dialer, handlers }, async (server, api) => {
      const gated = await api.batch(
        await api.workflow([
          { id: 'hold', type: 'gate' },
          { id: 'dial', type: 'call' },
        ]),
        await api.prospects(2),
      );
      await eventually(async () => (atGate === 2 ? true : undefined));
      // Two runs at another step hold no line: both lines call another batch's runs meanwhile.
      const calling = await api.batch(await api.workflow([{ id: 'dial', type: 'call' }]), await api.prospects(4));
      await eventually(async () => (inCall === 2 ? true : undefined), 20_000, 'two calls while two runs are at a gate');
      // Six calls to make, more than the lines: never more than two at once.
      openGate();
      for (let ended = 0; ended < 6; ended++) {
        await eventually(async () => (hangUps.length > 0 ? true : undefined));
        hangUps.shift()!();
      }
      for (const batchId of [gated, calling]) {
        expect((await batchIn(server.db, batchId, ['FINISHED', 'FAILED'])).status).toBe('FINISHED');
        await expectStatsMatchRuns(server.db, batchId);
      }
      expect(peak).toBe(2);
    });
  });
});

describe('two instances', () => {
  let first: TestServer;
  let second: TestServer;
  const executions: { runId: string; instance: string }[] = [];
  const recording = (instance: string): Dialer => ({
    async dial(request, signal) {
      executions.push({ runId: request.runId, instance });
      await sleep(30, undefined, { signal });
      return { outcome: 'answered', durationSeconds: 0.03, reason: null };
    },
  });
  beforeAll(async () => {
    first = await startTestServer({
      engine: { concurrency: 4, dialer: recording('first') },
      redisUrl: process.env.TEST_REDIS_URL,
    });
    second = await startTestServer({
      engine: { concurrency: 4, dialer: recording('second') },
      redisUrl: process.env.TEST_REDIS_URL,
      sharing: first,
    });
  });
  afterAll(async () => {
    await second.close();
    await first.close();
  });

  it('share a batch: both execute runs, each run exactly once', async () => {
    const { apiKey } = await first.createOrganization();
    const api = flows(first, apiKey);
    const batchId = await api.batch(await api.workflow([{ id: 'dial', type: 'call' }]), await api.prospects(40));
    const batch = await batchIn(first.db, batchId, ['FINISHED']);
    expect(batch.finishedCount).toBe(40);
    const runs = await first.db.prisma.run.findMany({ where: { batchId } });
    expect(runs.every((run) => run.attempts === 1)).toBe(true);
    const ofBatch = executions.filter((execution) => runs.some((run) => run.id === execution.runId));
    expect(ofBatch).toHaveLength(40);
    expect(new Set(ofBatch.map((execution) => execution.runId)).size).toBe(40);
    expect(new Set(ofBatch.map((execution) => execution.instance))).toEqual(new Set(['first', 'second']));
    await expectStatsMatchRuns(first.db, batchId);
  });
});

describe('the run engine under a campaign', () => {
  it("collects no listener per waiting run on a signal that lives as long as the instance (Node's MaxListenersExceededWarning)", {
    timeout: 180_000,
  }, async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error) => {
      if (warning.name === 'MaxListenersExceededWarning') warnings.push(warning.message);
    };
    process.on('warning', onWarning);
    try {
      // 12 lines, up to 24 runs held: 12 of them (more than Node's 10) wait for a line at a time, over and over.
      await withEngine({ concurrency: 12, callMs: 20 }, async (server, api) => {
        const batchId = await api.batch(await api.workflow([{ id: 'dial', type: 'call' }]), await api.prospects(60));
        expect((await batchIn(server.db, batchId, ['FINISHED', 'FAILED'])).status).toBe('FINISHED');
      });
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings).toEqual([]);
  });
});
