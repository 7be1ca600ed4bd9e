// Campaign-grade batches through the real server: calling windows, retries
// and their delays, do-not-call, invalid numbers, the agent's pre-call
// webhook, the circuit breaker, and attempts lost with their instance. Time
// comes from a clock the tests move (ManualClock), never from sleeping.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../src/db/database.ts';
import type { Dialer } from '../src/engine/dialer.ts';
import { batchIn, expectStatsMatchRuns } from './support/batch-checks.ts';
import { eventually, flows } from './support/flows.ts';
import { ManualClock } from './support/manual-clock.ts';
import { expectErrorBody, restClient } from './support/rest.ts';
import { startTestServer, type TestEngineOptions, type TestServer } from './support/server.ts';

// A Monday; 12:00 UTC is 06:00 in Chicago.
const MONDAY_NOON_UTC = '2030-01-07T12:00:00.000Z';
const chicagoDaytime = {
  days: ['mon', 'tue', 'wed', 'thu', 'fri'],
  start: '09:00',
  end: '17:00',
  timezone: 'America/Chicago',
};

const attemptsOf = (db: Database, batchId: string) =>
  db.prisma.runAttempt.findMany({ where: { batchId }, orderBy: [{ runId: 'asc' }, { number: 'asc' }] });

async function withServer(
  engine: TestEngineOptions,
  work: (server: TestServer, api: ReturnType<typeof flows>, rest: ReturnType<typeof restClient>) => Promise<void>,
) {
  const server = await startTestServer({ engine });
  try {
    const { organizationId, apiKey } = await server.createOrganization();
    await work(server, flows(server, apiKey), restClient(server, organizationId, apiKey));
  } finally {
    await server.close();
  }
}

describe('calling windows', () => {
  it('dials nothing outside the window; a settings change that includes now starts the calls', async () => {
    const clock = new ManualClock(MONDAY_NOON_UTC);
    await withServer({ clock, callMs: 5 }, async (server, api, rest) => {
      const workflowId = await api.workflow([{ id: 'dial', type: 'call' }]);
      const prospectIds = await api.prospects(3);
      const created = await rest('POST', `/org/{org}/workflows/${workflowId}/batches`, {
        body: { prospect_ids: prospectIds, calling_window: chicagoDaytime },
      });
      expect(created.status).toBe(201);
      expect(created.body.calling_window).toEqual(chicagoDaytime);
      const batchId = created.body.id;
      // The runs wait for 09:00 in Chicago (15:00 UTC), put off without a call.
      await eventually(async () => {
        const runs = await server.db.prisma.run.findMany({ where: { batchId } });
        return runs.every((run) => run.nextAttemptAt.toISOString() === '2030-01-07T15:00:00.000Z') ? true : undefined;
      });
      await server.engineClaims();
      expect(await server.db.prisma.runAttempt.count({ where: { batchId } })).toBe(0);
      expect((await expectStatsMatchRuns(server.db, batchId)).pendingCount).toBe(3);

      const widened = await rest('PATCH', `/org/{org}/batches/${batchId}/settings`, {
        body: { calling_window: { ...chicagoDaytime, start: '05:00' } },
      });
      expect(widened.status).toBe(200);
      expect(widened.body.calling_window.start).toBe('05:00');
      const done = await batchIn(server.db, batchId, ['FINISHED']);
      expect(done.finishedCount).toBe(3);
      expect(await server.db.prisma.runAttempt.count({ where: { batchId } })).toBe(3);
    });
  });

  it('starts waiting runs when their window opens, in the zone of the number when its country has one', async () => {
    const clock = new ManualClock(MONDAY_NOON_UTC); // 13:00 in Paris, 06:00 in Chicago
    await withServer({ clock, callMs: 5 }, async (server, api) => {
      const workflowId = await api.workflow([{ id: 'dial', type: 'call' }]);
      const [paris] = await api.prospects(1, () => ({ phone: '+33142685300' }));
      const [chicago] = await api.prospects(1);
      const batchId = await api.batch(workflowId, [paris!, chicago!], {
        callingWindow: { days: ['mon'], start: '09:00', end: '17:00', timezone: 'America/Chicago' },
      });
      const parisRun = await eventually(async () => {
        const run = await server.db.prisma.run.findFirst({ where: { batchId, prospectId: paris } });
        return run?.status === 'FINISHED' ? run : undefined;
      });
      expect(parisRun.attempts).toBe(1);
      expect(await server.db.prisma.run.findFirst({ where: { batchId, prospectId: chicago } })).toMatchObject({
        status: 'PENDING',
        attempts: 0,
      });
      clock.set('2030-01-07T15:00:00.000Z');
      expect((await batchIn(server.db, batchId, ['FINISHED'])).finishedCount).toBe(2);
    });
  });
});

describe('retries', () => {
  it('makes exactly max_attempts attempts spaced by delay_seconds, then fails the run', async () => {
    const clock = new ManualClock(MONDAY_NOON_UTC);
    await withServer({ clock, callMs: 5, outcomes: { no_answer: 1 } }, async (server, api) => {
      const workflowId = await api.workflow([{ id: 'dial', type: 'call' }]);
      const batchId = await api.batch(workflowId, await api.prospects(2), {
        retry: { maxAttempts: 3, delaySeconds: 600 },
      });
      for (const attempts of [1, 2]) {
        await eventually(
          async () => {
            const runs = await server.db.prisma.run.findMany({ where: { batchId } });
            return runs.every((run) => run.attempts === attempts && run.status === 'PENDING') ? true : undefined;
          },
          20_000,
          `attempt ${attempts} of each run`,
        );
        await server.engineClaims();
        expect(await server.db.prisma.runAttempt.count({ where: { batchId } })).toBe(2 * attempts); // nothing before the delay
        expect(await server.db.prisma.run.count({ where: { batchId, status: 'PENDING' } })).toBe(2);
        clock.advance(600_000);
      }
      const batch = await batchIn(server.db, batchId, ['FAILED']);
      expect(batch.failedCount).toBe(2);
      const runs = await server.db.prisma.run.findMany({ where: { batchId } });
      expect(
        runs.every(
          (run) => run.attempts === 3 && run.lastOutcome === 'no_answer' && run.error?.includes('after 3 attempts'),
        ),
      ).toBe(true);
      const attempts = await attemptsOf(server.db, batchId);
      expect(attempts.map((attempt) => attempt.number)).toEqual([1, 2, 3, 1, 2, 3]);
      for (const runId of new Set(attempts.map((attempt) => attempt.runId))) {
        const starts = attempts
          .filter((attempt) => attempt.runId === runId)
          .map((attempt) => attempt.startedAt.getTime());
        expect([starts[1]! - starts[0]!, starts[2]! - starts[1]!]).toEqual([600_000, 600_000]);
      }
      await expectStatsMatchRuns(server.db, batchId);
    });
  });

  it('retry-failed gives failed runs one more attempt; a cancelled batch is refused', async () => {
    let outcome: 'busy' | 'answered' = 'busy';
    const dialer: Dialer = { dial: async () => ({ outcome, durationSeconds: 1, reason: null }) };
    await withServer({ dialer }, async (server, api, rest) => {
      const workflowId = await api.workflow([{ id: 'dial', type: 'call' }]);
      const batchId = await api.batch(workflowId, await api.prospects(2));
      expect((await batchIn(server.db, batchId, ['FAILED'])).failedCount).toBe(2);
      outcome = 'answered';
      const retried = await rest('POST', `/api/org/{org}/batches/${batchId}/retry-failed`);
      expect(retried.status).toBe(200);
      expect(retried.body.status).toBe('PENDING');
      expect((await batchIn(server.db, batchId, ['FINISHED'])).finishedCount).toBe(2);
      const run = (await server.db.prisma.run.findFirst({ where: { batchId } }))!;
      const detail = await rest('GET', `/org/{org}/runs/${run.id}`);
      expect(detail.status).toBe(200);
      expect(detail.body).toMatchObject({
        id: run.id,
        status: 'FINISHED',
        attempts: 2,
        last_outcome: 'answered',
        reason: null,
      });
      expect(detail.body.call_attempts.map((attempt: { outcome: string }) => attempt.outcome)).toEqual([
        'busy',
        'answered',
      ]);
      expect(detail.body.call_attempts[0]).toMatchObject({
        number: 1,
        step_id: 'dial',
        to_number: expect.stringMatching(/^\+1415/),
      });

      const cancelled = await api.batch(workflowId, await api.prospects(1), { scheduledAt: '2099-01-01T00:00:00Z' });
      await api.setStatus(cancelled, 'CANCELLED');
      expectErrorBody(await rest('POST', `/org/{org}/batches/${cancelled}/retry-failed`), 409);
      expectErrorBody(await rest('GET', '/org/{org}/runs/run_nope'), 404);
    });
  });
});

describe('before a call', () => {
  let receiver: http.Server;
  let base: string;
  const received: { url: string; body: any; raw: string; headers: http.IncomingHttpHeaders }[] = [];
  beforeAll(async () => {
    receiver = http.createServer((request, response) => {
      let body = '';
      request.on('data', (chunk) => (body += chunk));
      request.on('end', () => {
        received.push({ url: request.url!, body: body ? JSON.parse(body) : null, raw: body, headers: request.headers });
        if (request.url === '/skip') return response.end(JSON.stringify({ skip: true }));
        if (request.url === '/fail') return response.writeHead(500).end('no');
        if (request.url === '/slow') return; // never answers: only the webhook's timeout ends the request
        response.setHeader('content-type', 'application/json');
        response.end(JSON.stringify({ variables: { greeting: `Hi ${JSON.parse(body).name}` } }));
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  });
  afterAll(() => {
    receiver.closeAllConnections();
    return new Promise<void>((resolve) => receiver.close(() => resolve()));
  });

  const precallAgent = (api: ReturnType<typeof flows>, path: string, timeoutSeconds = 5) =>
    api.agent({
      precallWebhook: {
        method: 'POST',
        url: `${base}${path}`,
        headers: { 'x-token': 'secret' },
        bodyTemplate: {
          name: '{{prospect.first_name}}',
          run: '{{run.id}}',
          batch: '{{batch.id}}',
          phone: '{{prospect.phone}}',
        },
        timeoutSeconds,
      },
    });

  it('refuses invalid numbers and do-not-call numbers without dialling', async () => {
    const dialled: string[] = [];
    const dialer: Dialer = {
      dial: async (request) => {
        dialled.push(request.toNumber);
        return { outcome: 'answered', durationSeconds: 1, reason: null };
      },
    };
    await withServer({ dialer }, async (server, api) => {
      const workflowId = await api.workflow([{ id: 'dial', type: 'call' }]);
      const [noPhone, letters, listed, fine] = [
        ...(await api.prospects(1, () => ({ phone: '' }))),
        ...(await api.prospects(1, () => ({ phone: '+1 (415) 555' }))),
        ...(await api.prospects(1, () => ({ phone: '+14155550999' }))),
        ...(await api.prospects(1, () => ({ phone: '+14155550998' }))),
      ];
      const organizationId = (await server.db.prisma.prospect.findFirstOrThrow({ where: { id: fine! } }))
        .organizationId;
      await server.db.prisma.doNotCallNumber.create({
        data: { organizationId, number: '+14155550999', reason: 'asked' },
      });
      const batchId = await api.batch(workflowId, [noPhone!, letters!, listed!, fine!]);
      const batch = await batchIn(server.db, batchId, ['FINISHED', 'FAILED']);
      expect(batch).toMatchObject({ status: 'FINISHED', failedCount: 2, cancelledCount: 1, finishedCount: 1 });
      const reasonOf = async (prospectId: string) =>
        (await server.db.prisma.run.findFirstOrThrow({ where: { batchId, prospectId } })).reason;
      expect([
        await reasonOf(noPhone!),
        await reasonOf(letters!),
        await reasonOf(listed!),
        await reasonOf(fine!),
      ]).toEqual(['invalid_number', 'invalid_number', 'do_not_call', null]);
      expect(dialled).toEqual(['+14155550998']);
      expect(await server.db.prisma.runAttempt.count({ where: { batchId } })).toBe(1);
      await expectStatsMatchRuns(server.db, batchId);
    });
  });

  it("sends the agent's pre-call webhook: its variables reach the dialer, skip cancels, failure and timeout are failed attempts", async () => {
    const requests: { variables: unknown; runId: string }[] = [];
    const dialer: Dialer = {
      dial: async (request) => {
        requests.push({ variables: request.dynamicVariables, runId: request.runId });
        return { outcome: 'answered', durationSeconds: 1, reason: null };
      },
    };
    await withServer({ dialer }, async (server, api, rest) => {
      const rotated = await rest('POST', '/org/{org}/signing-secret/rotate');
      expect(rotated.status).toBe(200);
      expect(rotated.body.secret).toMatch(/^whsec_/);
      const [ada] = await api.prospects(1, () => ({ firstName: 'Ada' }));
      const run = async (path: string, timeoutSeconds?: number) => {
        const agentId = await precallAgent(api, path, timeoutSeconds);
        const batchId = await api.batch(await api.workflow([{ id: 'dial', type: 'call', agent_id: agentId }]), [ada!]);
        await batchIn(server.db, batchId, ['FINISHED', 'FAILED']);
        return server.db.prisma.run.findFirstOrThrow({ where: { batchId }, include: { callAttempts: true } });
      };
      const answered = await run('/vars');
      expect(answered).toMatchObject({ status: 'FINISHED', attempts: 1 });
      expect(answered.callAttempts[0]!.dynamicVariables).toEqual({ greeting: 'Hi Ada' });
      expect(requests).toEqual([{ variables: { greeting: 'Hi Ada' }, runId: answered.id }]);
      const sent = received.find((request) => request.url === '/vars')!;
      expect(sent.body).toEqual({
        name: 'Ada',
        run: answered.id,
        batch: answered.batchId,
        phone: expect.stringMatching(/^\+1415/),
      });
      expect(sent.headers['x-token']).toBe('secret');
      // Signed per Standard Webhooks with the organization's secret; a forged body does not verify.
      const signed = {
        'webhook-id': sent.headers['webhook-id'],
        'webhook-timestamp': sent.headers['webhook-timestamp'],
        'webhook-signature': sent.headers['webhook-signature'],
      } as Record<string, string>;
      expect(new Webhook(rotated.body.secret).verify(sent.raw, signed)).toEqual(sent.body);
      expect(() => new Webhook(rotated.body.secret).verify(sent.raw.replace('Ada', 'Eve'), signed)).toThrow();

      const skipped = await run('/skip');
      expect(skipped).toMatchObject({ status: 'CANCELLED', reason: 'precall_skip', attempts: 0 });

      for (const [path, timeout] of [
        ['/fail', 5],
        ['/slow', 1],
      ] as const) {
        const failed = await run(path, timeout);
        expect(failed).toMatchObject({ status: 'FAILED', attempts: 1, lastOutcome: 'failed' });
        expect(failed.callAttempts[0]).toMatchObject({ outcome: 'failed', reason: 'precall_webhook' });
      }
      expect(requests).toHaveLength(1); // only the first was dialled
    });
  });
});

describe('the circuit breaker', () => {
  it('pauses the batch when its latest attempts fail too often, says why, and resuming clears it', async () => {
    await withServer({ callMs: 5, outcomes: { failed: 1 }, concurrency: 2 }, async (server, api, rest) => {
      const workflowId = await api.workflow([{ id: 'dial', type: 'call' }]);
      const batchId = await api.batch(workflowId, await api.prospects(40), {
        autoPause: { failureRate: 0.5, window: 10 },
      });
      const paused = await batchIn(server.db, batchId, ['PAUSED']);
      expect(paused.pausedReason).toMatch(/^auto_pause: 10 of 10 attempts failed$/);
      await eventually(async () =>
        (await server.db.prisma.run.count({ where: { batchId, status: 'IN_PROGRESS' } })) === 0 ? true : undefined,
      );
      const attempts = await server.db.prisma.runAttempt.count({ where: { batchId } });
      expect(attempts).toBeLessThan(14); // the breaker stopped the batch; the rest wait
      const shown = await rest('GET', `/org/{org}/batches/${batchId}`);
      expect(shown.body).toMatchObject({ status: 'PAUSED', paused_reason: paused.pausedReason });
      await expectStatsMatchRuns(server.db, batchId);
      const resumed = await rest('PATCH', `/org/{org}/batches/${batchId}`, { body: { status: 'PENDING' } });
      expect(resumed.body).toMatchObject({ paused_reason: null });
    });
  });
});

describe('the circuit breaker and a batch that ends', () => {
  it('leaves a batch its last failed attempt ended as it ended, not paused', async () => {
    await withServer({ callMs: 5, outcomes: { failed: 1 }, concurrency: 10 }, async (server, api) => {
      const batchId = await api.batch(await api.workflow([{ id: 'dial', type: 'call' }]), await api.prospects(10), {
        autoPause: { failureRate: 0.5, window: 10 },
      });
      const ended = await batchIn(server.db, batchId, ['FAILED', 'PAUSED']);
      expect(ended).toMatchObject({ status: 'FAILED', failedCount: 10, pausedReason: null });
    });
  });
});

describe('an instance that dies with a call in flight', () => {
  it("records the attempt failed / lost, never re-runs it at once, and follows the batch's retry policy", async () => {
    const clock = new ManualClock(MONDAY_NOON_UTC);
    await withServer({ clock, callMs: 5, leaseMs: 1000 }, async (server, api) => {
      await server.engine!.stop();
      const workflowId = await api.workflow([{ id: 'dial', type: 'call' }]);
      const batchId = await api.batch(workflowId, await api.prospects(1), {
        retry: { maxAttempts: 2, on: ['failed'], delaySeconds: 300 },
      });
      const run = (await server.db.prisma.run.findFirst({ where: { batchId } }))!;
      // A worker that died mid-call: its run IN_PROGRESS under a lease nobody renews, its attempt open.
      await server.db.prisma.$transaction([
        server.db.prisma.run.updateMany({
          where: { id: run.id },
          data: {
            status: 'IN_PROGRESS',
            currentStepId: 'dial',
            attempts: 1,
            leaseOwner: 'dead-worker',
            leaseExpiresAt: new Date(clock.now().getTime() - 1),
          },
        }),
        server.db.prisma.runAttempt.create({
          data: {
            organizationId: run.organizationId,
            runId: run.id,
            batchId,
            number: 1,
            stepId: 'dial',
            startedAt: clock.now(),
            toNumber: '+14150000000',
          },
        }),
        server.db.prisma.batch.updateMany({
          where: { id: batchId },
          data: { status: 'IN_PROGRESS', pendingCount: 0, inProgressCount: 1 },
        }),
      ]);
      server.engine!.start();
      const waiting = await eventually(async () => {
        const current = await server.db.prisma.run.findFirstOrThrow({ where: { id: run.id } });
        return current.status === 'PENDING' ? current : undefined;
      });
      expect(waiting).toMatchObject({ attempts: 1, lastOutcome: 'failed', leaseOwner: null });
      expect(waiting.nextAttemptAt.getTime()).toBe(clock.now().getTime() + 300_000);
      expect(await attemptsOf(server.db, batchId)).toMatchObject([{ number: 1, outcome: 'failed', reason: 'lost' }]);
      await server.engineClaims();
      expect(await server.db.prisma.runAttempt.count({ where: { batchId } })).toBe(1); // not before the delay
      expect((await server.db.prisma.run.findFirstOrThrow({ where: { id: run.id } })).status).toBe('PENDING');
      clock.advance(300_000);
      expect((await batchIn(server.db, batchId, ['FINISHED'])).finishedCount).toBe(1);
      expect((await attemptsOf(server.db, batchId)).map((attempt) => attempt.outcome)).toEqual(['failed', 'answered']);
      await expectStatsMatchRuns(server.db, batchId);
    });
  });
});

describe('batch settings', () => {
  it('are validated on E4 and PATCH with the member and the rule, and shown on the batch', async () => {
    await withServer({ callMs: 5 }, async (_server, api, rest) => {
      const workflowId = await api.workflow([{ id: 'dial', type: 'call' }]);
      const [prospect] = await api.prospects(1);
      const refused = await rest('POST', `/org/{org}/workflows/${workflowId}/batches`, {
        body: {
          prospect_ids: [prospect],
          retry: { max_attempts: 11, on: ['maybe'] },
          calls_per_second: 0,
          auto_pause: { failure_rate: 2, window: 5 },
          calling_window: { ...chicagoDaytime, timezone: 'Mars/Olympus' },
        },
      });
      const paths = expectErrorBody(refused, 400).error.map((problem: { path: string }) => problem.path);
      expect(paths).toEqual(
        expect.arrayContaining([
          'retry.max_attempts',
          'retry.on.0',
          'calls_per_second',
          'auto_pause.failure_rate',
          'auto_pause.window',
          'calling_window.timezone',
        ]),
      );
      const created = await rest('POST', `/org/{org}/workflows/${workflowId}/batches`, {
        body: {
          prospect_ids: [prospect],
          max_concurrency: 5,
          calls_per_second: 2.5,
          scheduled_at: '2099-01-01T00:00:00Z',
        },
      });
      expect(created.body).toMatchObject({
        max_concurrency: 5,
        calls_per_second: 2.5,
        retry: { max_attempts: 1, on: ['no_answer', 'busy'], delay_seconds: 600 },
        auto_pause: null,
        calling_window: null,
        paused_reason: null,
      });
      const patched = await rest('PATCH', `/api/org/{org}/batches/${created.body.id}/settings`, {
        body: { max_concurrency: null, auto_pause: { failure_rate: 0.3, window: 50 } },
      });
      expect(patched.body).toMatchObject({
        max_concurrency: null,
        calls_per_second: 2.5,
        auto_pause: { failure_rate: 0.3, window: 50 },
      });
      expectErrorBody(
        await rest('PATCH', `/org/{org}/batches/${created.body.id}/settings`, { body: { max_concurrency: 0 } }),
        400,
      );
      expectErrorBody(
        await rest('PATCH', '/org/{org}/batches/bat_nope/settings', { body: { max_concurrency: 1 } }),
        404,
      );
    });
  });

  it('refuse a call step without an agent, or with one of another organization, when the version is published', async () => {
    await withServer({ callMs: 5 }, async (server, _api, rest) => {
      const other = await server.createOrganization('Other');
      const foreignAgent = await flows(server, other.apiKey).agent();
      const refused = await rest('POST', '/org/{org}/workflows', {
        body: {
          name: 'W',
          definition: {
            steps: [
              { id: 'dial', type: 'call' },
              { id: 'again', type: 'call', agent_id: foreignAgent },
            ],
          },
        },
      });
      const problems = expectErrorBody(refused, 400).error;
      expect(problems).toEqual([
        expect.objectContaining({ path: 'definition.steps.0.agent_id' }),
        expect.objectContaining({
          path: 'definition.steps.1.agent_id',
          rule: 'exists',
          message: expect.stringContaining('step again'),
        }),
      ]);
    });
  });
});
