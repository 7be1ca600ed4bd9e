// DIALER=livekit through the real server against a LiveKit protocol double:
// the rooms, agent dispatches and SIP participants a batch makes, the
// outcomes the SIP statuses and LiveKit's webhooks give its attempts (with the
// agent's voicemail report), the retries of the batch's policy, the trunk's
// max_concurrency over LiveKit's calls in flight; webhooks LiveKit did not
// sign refused; a call whose end never arrives ends failed / lost; an end
// received by another instance. Time comes from a clock the tests move.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CALL_END_MARGIN_SECONDS } from '../src/livekit/livekit-dialer.ts';
import { batchIn, expectStatsMatchRuns } from './support/batch-checks.ts';
import { eventually, flows } from './support/flows.ts';
import { type CallScript, LiveKitDouble } from './support/livekit-double.ts';
import { ManualClock } from './support/manual-clock.ts';
import { expectErrorBody, restClient } from './support/rest.ts';
import { startTestServer, type TestServer } from './support/server.ts';

const MONDAY_NOON_UTC = '2030-01-07T12:00:00.000Z';
const CALLER_ID = '+12125550101';

interface Setup {
  double: LiveKitDouble;
  server: TestServer;
  clock: ManualClock;
  api: ReturnType<typeof flows>;
  rest: ReturnType<typeof restClient>;
  apiKey: string;
  organizationId: string;
  /** The organization's outbound trunk here, and its id in LiveKit. */
  trunkId: string;
  livekitTrunkId: string;
}

/** A LiveKit double and a gateway with DIALER=livekit against it (its engine on a manual clock), with a trunk pair. */
async function withLiveKit(work: (setup: Setup) => Promise<void>, maxConcurrency = 3) {
  const double = await new LiveKitDouble().start();
  const clock = new ManualClock(MONDAY_NOON_UTC);
  double.now = () => clock.now();
  // Leases far longer than the clock's jumps: a jump must not look like a dead instance.
  const server = await startTestServer({
    livekit: double.settings(),
    engine: { clock, leaseMs: 24 * 3_600_000, concurrency: 10 },
  });
  double.webhookUrl = `${server.url}/livekit/webhook`;
  try {
    const { organizationId, apiKey } = await server.createOrganization();
    const rest = restClient(server, organizationId, apiKey);
    const trunks = await rest('POST', '/org/{org}/sip-trunks', {
      body: {
        name: 'Carrier',
        address: 'sip.carrier.example',
        provider: 'telnyx',
        phone_numbers: ['+12125550100', CALLER_ID],
        max_concurrency: maxConcurrency,
      },
    });
    expect(trunks.status).toBe(201);
    const trunkId = trunks.body.outbound_trunk.id;
    const { livekitTrunkId } = await server.db.prisma.sipTrunk.findFirstOrThrow({ where: { id: trunkId } });
    await work({
      double,
      server,
      clock,
      api: flows(server, apiKey),
      rest,
      apiKey,
      organizationId,
      trunkId,
      livekitTrunkId: livekitTrunkId!,
    });
    await double.settled();
  } finally {
    await server.close();
    await double.close();
  }
}

const attemptsOf = (server: TestServer, batchId: string) =>
  server.db.prisma.runAttempt.findMany({ where: { batchId }, orderBy: [{ runId: 'asc' }, { number: 'asc' }] });

describe('DIALER=livekit: a batch of 20 prospects through LiveKit', () => {
  let precall: http.Server;
  let precallUrl: string;
  beforeAll(async () => {
    // The agent's pre-call webhook: its variables reach the agent worker in the dispatch metadata.
    precall = http.createServer((request, response) => {
      let body = '';
      request.on('data', (chunk) => (body += chunk));
      request.on('end', () => {
        const { phone } = JSON.parse(body);
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ variables: { plan: 'gold', phone } }));
      });
    });
    await new Promise<void>((resolve) => precall.listen(0, '127.0.0.1', resolve));
    precallUrl = `http://127.0.0.1:${(precall.address() as AddressInfo).port}/precall`;
  });
  afterAll(() => new Promise((resolve) => precall.close(resolve)));

  it('places each call as a room, a dispatch and a SIP participant; outcomes from SIP statuses and webhooks; retries by policy', async () => {
    await withLiveKit(async ({ double, server, clock, rest, organizationId, trunkId, livekitTrunkId }) => {
      const agent = await rest('POST', '/org/{org}/agents', {
        body: {
          name: 'Ava',
          room_duration_config: { max_duration_min: 5 },
          precall_webhook: { method: 'POST', url: precallUrl, body_template: { phone: '{{prospect.phone}}' } },
        },
      });
      expect(agent.status).toBe(201);
      const workflow = await rest('POST', '/org/{org}/workflows', {
        body: {
          name: 'Renewals',
          definition: {
            steps: [{ id: 'dial', type: 'call', agent_id: agent.body.id, trunk_id: trunkId, from_number: CALLER_ID }],
          },
        },
      });
      const prospects = await rest('POST', '/org/{org}/prospects', {
        body: {
          prospects: Array.from({ length: 20 }, (_, index) => ({
            first_name: `P${index}`,
            last_name: 'Lovelace',
            email: `p${index}@example.com`,
            phone: `+1415555${String(1000 + index)}`,
          })),
        },
      });
      const indexOf = (phone: string) => Number(phone.slice(-4)) - 1000;
      // By prospect: what LiveKit answers its first dial and, when it is retried, the second.
      const scripts: Record<number, [CallScript, CallScript?]> = {
        10: [{ kind: 'answered', durationSeconds: 12, agentReports: 'voicemail' }],
        11: [
          { kind: 'sip', status: 486, statusName: 'SIP_STATUS_BUSY_HERE' },
          { kind: 'answered', durationSeconds: 50 },
        ],
        12: [
          { kind: 'sip', status: 486, statusName: 'SIP_STATUS_BUSY_HERE' },
          { kind: 'answered', durationSeconds: 51 },
        ],
        13: [
          { kind: 'sip', status: 600, statusName: 'SIP_STATUS_GLOBAL_BUSY_EVERYWHERE' },
          { kind: 'sip', status: 600, statusName: 'SIP_STATUS_GLOBAL_BUSY_EVERYWHERE' },
        ],
        14: [
          { kind: 'sip', status: 480, statusName: 'SIP_STATUS_TEMPORARILY_UNAVAILABLE' },
          { kind: 'answered', durationSeconds: 52 },
        ],
        15: [
          { kind: 'sip', status: 408, statusName: 'SIP_STATUS_REQUEST_TIMEOUT' },
          { kind: 'sip', status: 408, statusName: 'SIP_STATUS_REQUEST_TIMEOUT' },
        ],
        16: [
          { kind: 'sip', status: 487, statusName: 'SIP_STATUS_REQUEST_TERMINATED' },
          { kind: 'sip', status: 487, statusName: 'SIP_STATUS_REQUEST_TERMINATED' },
        ],
        17: [{ kind: 'sip', status: 503, statusName: 'SIP_STATUS_SERVICE_UNAVAILABLE' }],
        18: [{ kind: 'error', message: 'media negotiation failed' }],
      };
      double.script = (call, attempt) => {
        const index = indexOf(call.request.sipCallTo);
        const scripted = scripts[index]?.[attempt - 1];
        if (scripted) return scripted;
        // The others answer; the even ones end with room_finished, the odd ones with the callee leaving.
        return {
          kind: 'answered',
          durationSeconds: 30 + index,
          end: index % 2 === 0 ? 'room_finished' : 'participant_left',
        };
      };
      const reports: number[] = [];
      double.agent = async (metadata, outcome) => {
        // The agent worker reports with the organization's key, naming the call by its dispatch metadata.
        const reported = await rest(
          'POST',
          `/org/${metadata.organization_id}/runs/${metadata.run_id}/attempts/${metadata.attempt}/outcome`,
          { body: { outcome } },
        );
        reports.push(reported.status);
        expect(reported.body).toEqual({
          run_id: metadata.run_id,
          attempt: metadata.attempt,
          reported_outcome: outcome,
        });
      };

      const created = await rest('POST', `/org/{org}/workflows/${workflow.body.id}/batches`, {
        body: {
          prospect_ids: prospects.body.created.map((prospect: { id: string }) => prospect.id),
          max_concurrency: 5,
          retry: { max_attempts: 2, on: ['no_answer', 'busy'], delay_seconds: 600 },
        },
      });
      expect(created.status).toBe(201);
      const batchId = created.body.id;
      const retried = [11, 12, 13, 14, 15, 16];
      // The first round: every run ended, or waits for its retry.
      await eventually(
        async () => {
          const runs = await server.db.prisma.run.findMany({ where: { batchId } });
          const waiting = runs.filter((run) => run.status === 'PENDING' && run.attempts === 1).length;
          const ended = runs.filter((run) => ['FINISHED', 'FAILED'].includes(run.status)).length;
          return waiting === retried.length && ended === 20 - retried.length ? true : undefined;
        },
        60_000,
        'the first round of calls',
      );
      expect(double.dials).toHaveLength(20);
      clock.advance(600_000);
      await batchIn(server.db, batchId, ['FINISHED']);
      await double.settled();

      const runs = await server.db.prisma.run.findMany({ where: { batchId }, include: { prospect: true } });
      const attempts = await attemptsOf(server, batchId);
      const runOf = (index: number) => runs.find((run) => indexOf(run.prospect.phone) === index)!;
      const outcomesOf = (index: number) =>
        attempts.filter((attempt) => attempt.runId === runOf(index).id).map((attempt) => attempt.outcome);

      // Rooms, dispatches and dials: one of each per attempt, all for the same room.
      expect(attempts).toHaveLength(26);
      expect(double.rooms.map((room) => room.name).sort()).toEqual(
        attempts.map((attempt) => `${attempt.runId}-attempt-${attempt.number}`).sort(),
      );
      expect(attempts.every((attempt) => attempt.roomName === `${attempt.runId}-attempt-${attempt.number}`)).toBe(true);
      expect(double.rooms.every((room) => room.emptyTimeout === 25 + 60 && room.departureTimeout === 5)).toBe(true);
      expect(double.dispatches.map((dispatch) => dispatch.room).sort()).toEqual(
        double.rooms.map((room) => room.name).sort(),
      );
      for (const dispatch of double.dispatches) {
        const attempt = attempts.find((candidate) => candidate.roomName === dispatch.room)!;
        const run = runs.find((candidate) => candidate.id === attempt.runId)!;
        expect(dispatch.agentName).toBe('outbound-caller');
        expect(JSON.parse(dispatch.metadata)).toEqual({
          organization_id: organizationId,
          agent_id: agent.body.id,
          run_id: run.id,
          batch_id: batchId,
          attempt: attempt.number,
          prospect: {
            id: run.prospectId,
            first_name: run.prospect.firstName,
            last_name: 'Lovelace',
            email: run.prospect.email,
            phone: run.prospect.phone,
          },
          dynamic_variables: { plan: 'gold', phone: run.prospect.phone },
        });
      }
      for (const { request } of double.dials) {
        const attempt = attempts.find((candidate) => candidate.roomName === request.roomName)!;
        expect(request).toMatchObject({
          sipTrunkId: livekitTrunkId,
          sipCallTo: attempt.toNumber,
          sipNumber: CALLER_ID,
          waitUntilAnswered: true,
          participantIdentity: `prospect-${runs.find((run) => run.id === attempt.runId)!.prospectId}`,
        });
        expect(request.ringingTimeout?.seconds).toBe(25n);
        expect(request.maxCallDuration?.seconds).toBe(300n); // room_duration_config.max_duration_min: 5
      }
      expect(double.refused).toEqual([]);

      // Outcomes: answered with LiveKit's duration (the room's lifetime, or the callee's time in it).
      for (const index of [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 19]) {
        const [attempt] = attempts.filter((candidate) => candidate.runId === runOf(index).id);
        expect(attempt).toMatchObject({
          outcome: 'answered',
          durationSeconds: 30 + index,
          reason: null,
          fromNumber: CALLER_ID,
        });
        expect(runOf(index).status).toBe('FINISHED');
      }
      expect(double.webhooks.filter((webhook) => webhook.event === 'participant_left')).toHaveLength(6); // 1, 3, 5, 7, 9, 19
      expect(double.webhooks.every((webhook) => webhook.status === 200)).toBe(true);
      // The agent's report: voicemail, and the run goes on (voicemail is not retried by this policy).
      expect(reports).toEqual([200]);
      expect(attempts.find((attempt) => attempt.runId === runOf(10).id)).toMatchObject({
        outcome: 'voicemail',
        durationSeconds: 12,
        reportedOutcome: 'voicemail',
      });
      expect(runOf(10)).toMatchObject({ status: 'FINISHED', lastOutcome: 'voicemail' });
      // Busy (486, 600) and no answer (480, 408, 487): retried once, after the delay.
      for (const index of [11, 12]) expect(outcomesOf(index)).toEqual(['busy', 'answered']);
      expect(outcomesOf(13)).toEqual(['busy', 'busy']);
      expect(outcomesOf(14)).toEqual(['no_answer', 'answered']);
      for (const index of [15, 16]) expect(outcomesOf(index)).toEqual(['no_answer', 'no_answer']);
      expect(runOf(13)).toMatchObject({
        status: 'FAILED',
        error: 'the call ended busy (SIP 600 SIP_STATUS_GLOBAL_BUSY_EVERYWHERE) after 2 attempts',
      });
      expect(runOf(16).error).toBe('the call ended no_answer (SIP 487 SIP_STATUS_REQUEST_TERMINATED) after 2 attempts');
      for (const index of retried) {
        const [first, second] = attempts.filter((attempt) => attempt.runId === runOf(index).id);
        expect(second!.startedAt.getTime() - first!.startedAt.getTime()).toBe(600_000);
      }
      // Other failures: failed, not retried, with the SIP status or LiveKit's error.
      expect(outcomesOf(17)).toEqual(['failed']);
      expect(runOf(17).error).toBe('the call ended failed (SIP 503 SIP_STATUS_SERVICE_UNAVAILABLE) after 1 attempt');
      expect(outcomesOf(18)).toEqual(['failed']);
      expect(runOf(18).error).toMatch(/^the call ended failed \(livekit: media negotiation failed\) after 1 attempt$/);
      // Every call not answered was hung up (its room deleted, the agent with it).
      const unanswered = attempts
        .filter((attempt) => attempt.outcome !== 'answered' && attempt.outcome !== 'voicemail')
        .map((attempt) => attempt.roomName);
      expect(double.deletedRooms.sort()).toEqual(unanswered.sort());

      // The trunk's max_concurrency (3) held over LiveKit's calls in flight, the batch's (5) with it.
      expect(double.maxInFlight).toBeGreaterThan(1);
      expect(double.maxInFlight).toBeLessThanOrEqual(3);
      expect(await expectStatsMatchRuns(server.db, batchId)).toMatchObject({ finishedCount: 15, failedCount: 5 });
    });
  });
});

describe('DIALER=livekit: the end of a call', () => {
  it('refuses webhooks LiveKit did not sign; a call whose end never arrives ends failed / lost', async () => {
    await withLiveKit(async ({ double, server, clock, api, rest, apiKey, trunkId }) => {
      double.script = () => ({ kind: 'answered', durationSeconds: 40, end: 'none' });
      const agentId = await api.agent({ roomDurationConfig: { maxDurationMin: 2 } });
      const workflowId = await api.workflow([{ id: 'dial', type: 'call', agent_id: agentId, trunk_id: trunkId }]);
      const batchId = await api.batch(workflowId, await api.prospects(1));
      const attempt = await eventually(async () => {
        const open = await server.db.prisma.runAttempt.findFirst({
          where: { batchId, endedAt: null, roomName: { not: null } },
        });
        return open && double.dials.some((call) => call.request.roomName === open.roomName) ? open : undefined;
      });
      const room = attempt.roomName!;
      // The caller id: the trunk's numbers in turn.
      expect(double.dials[0]!.request.sipNumber).toMatch(/^\+1212555010[01]$/);

      const ending = double.roomFinished(room, 40);
      const forgeries = [
        { secret: 'not-the-api-secret' },
        { apiKey: 'APIsomeoneelse' },
        { noSignature: true },
        { body: double.roomFinished(`${room}-other`, 40).toJsonString() },
      ];
      for (const forgery of forgeries) {
        const response = await double.sendWebhook(ending, forgery);
        expect(response.status).toBe(401);
        expectErrorBody({ status: response.status, headers: response.headers, body: await response.json() }, 401);
      }
      expect(await server.db.prisma.runAttempt.findFirstOrThrow({ where: { id: attempt.id } })).toMatchObject({
        endedAt: null,
        callEndedAt: null,
      });

      // Nothing came: after its maximum duration (2 min) and the margin, the attempt is lost and the call hung up.
      const lost = await eventually(async () => {
        clock.advance((2 * 60 + CALL_END_MARGIN_SECONDS) * 1000);
        const current = await server.db.prisma.runAttempt.findFirstOrThrow({ where: { id: attempt.id } });
        return current.endedAt ? current : undefined;
      });
      expect(lost).toMatchObject({ outcome: 'failed', reason: 'lost', callEndedAt: null });
      expect(double.deletedRooms).toContain(room);
      const batch = await batchIn(server.db, batchId, ['FAILED']);
      expect(batch.failedCount).toBe(1);

      // A report after the end: the attempt keeps its outcome (409), REST and GraphQL alike; unknown ones are 404.
      const outcome = (runId: string, number: string, body: unknown = { outcome: 'voicemail' }, key?: string) =>
        rest('POST', `/org/{org}/runs/${runId}/attempts/${number}/outcome`, {
          body,
          ...(key === undefined ? {} : { apiKey: key }),
        });
      expect(expectErrorBody(await outcome(attempt.runId, '1'), 409).message).toBe(
        `attempt 1 of run ${attempt.runId} has ended: an outcome is reported while its call is in flight`,
      );
      const graphql = await server.graphql(
        apiKey,
        'mutation($r: ID!) { reportCallOutcome(runId: $r, attempt: 1, outcome: voicemail) { number } }',
        {
          r: attempt.runId,
        },
      );
      expect(graphql.body.errors[0].extensions).toMatchObject({ code: 'CONFLICT', status: 409 });
      for (const number of ['2', '0', 'abc', '99999999999']) expectErrorBody(await outcome(attempt.runId, number), 404);
      expectErrorBody(await outcome('run_nope', '1'), 404);
      expectErrorBody(await outcome(attempt.runId, '1', { outcome: 'maybe' }), 400);
      expectErrorBody(await outcome(attempt.runId, '1', { outcome: 'voicemail', note: 'x' }), 400);
      expectErrorBody(await outcome(attempt.runId, '1', undefined, null as never), 401);
      // Another organization's key: the run reads as one that never existed.
      const other = await server.createOrganization('Other');
      const otherRest = restClient(server, other.organizationId, other.apiKey);
      expectErrorBody(
        await otherRest('POST', `/org/{org}/runs/${attempt.runId}/attempts/1/outcome`, {
          body: { outcome: 'voicemail' },
        }),
        404,
      );
      expect(await server.db.prisma.runAttempt.findFirstOrThrow({ where: { id: attempt.id } })).toMatchObject({
        reportedOutcome: null,
      });
    });
  });

  it('an end received by another instance reaches the instance that placed the call', async () => {
    await withLiveKit(async ({ double, server, rest, api, livekitTrunkId }) => {
      const other = await startTestServer({ sharing: server, livekit: double.settings() });
      try {
        double.webhookUrl = `${other.url}/livekit/webhook`;
        double.script = () => ({ kind: 'answered', durationSeconds: 17 });
        // A caller id stored on the pair's inbound trunk (E16), and no trunk_id: the call goes out through the pair's outbound trunk.
        const trunk = await server.db.prisma.sipTrunk.findFirstOrThrow({ where: { direction: 'inbound' } });
        expect(
          (await rest('POST', '/org/{org}/phone-numbers', { body: { number: '+12125550177', sip_trunk_id: trunk.id } }))
            .status,
        ).toBe(201);
        const workflowId = await api.workflow([{ id: 'dial', type: 'call', from_number: '+12125550177' }]);
        const batchId = await api.batch(workflowId, await api.prospects(1));
        await batchIn(server.db, batchId, ['FINISHED']);
        expect(await attemptsOf(server, batchId)).toEqual([
          expect.objectContaining({ outcome: 'answered', durationSeconds: 17 }),
        ]);
        expect(double.webhooks).toEqual([expect.objectContaining({ event: 'room_finished', status: 200 })]);
        expect(double.dials[0]!.request).toMatchObject({ sipTrunkId: livekitTrunkId, sipNumber: '+12125550177' });
      } finally {
        await other.close();
      }
    });
  });

  it('an instance that stops hangs up its calls in flight: their attempts end interrupted', async () => {
    await withLiveKit(async ({ double, server, api, trunkId }) => {
      double.script = () => ({ kind: 'answered', durationSeconds: 60, end: 'none' });
      const workflowId = await api.workflow([{ id: 'dial', type: 'call', trunk_id: trunkId }]);
      const batchId = await api.batch(workflowId, await api.prospects(1));
      const attempt = await eventually(async () => {
        const open = await server.db.prisma.runAttempt.findFirst({
          where: { batchId, endedAt: null, roomName: { not: null } },
        });
        return open && double.dials.some((call) => call.request.roomName === open.roomName) ? open : undefined;
      });
      await server.engine!.stop();
      expect(double.deletedRooms).toEqual([attempt.roomName]);
      expect(await server.db.prisma.runAttempt.findFirstOrThrow({ where: { id: attempt.id } })).toMatchObject({
        outcome: 'failed',
        reason: 'interrupted',
      });
    });
  });
});

describe('a call handed to a person (POST …/transfer)', () => {
  it("moves the callee through LiveKit's SIP transfer and records who took it; a refused transfer is a 502, recorded; an ended call a 409", async () => {
    await withLiveKit(async ({ double, server, api, rest, trunkId }) => {
      double.script = () => ({ kind: 'answered', durationSeconds: 60, end: 'none' });
      const workflowId = await api.workflow([{ id: 'dial', type: 'call', trunk_id: trunkId }]);
      const batchId = await api.batch(workflowId, await api.prospects(1));
      const attempt = await eventually(async () => {
        const open = await server.db.prisma.runAttempt.findFirst({
          where: { batchId, endedAt: null, roomName: { not: null } },
        });
        return open && double.dials.some((call) => call.request.roomName === open.roomName) ? open : undefined;
      });
      const run = await server.db.prisma.run.findFirstOrThrow({ where: { id: attempt.runId } });
      const transfer = (body: unknown) =>
        rest('POST', `/org/{org}/runs/${attempt.runId}/attempts/1/transfer`, { body });

      double.failNext('livekit.SIP/TransferSIPParticipant', {
        status: 412,
        code: 'failed_precondition',
        msg: 'transfer busy',
      });
      const refused = expectErrorBody(await transfer({ to: '+14155550199' }), 502);
      expect(refused.message).toContain('transfer busy');

      const moved = await transfer({ to: 'sip:desk@pbx.example.com', mode: 'cold' });
      expect(moved.status).toBe(200);
      expect(moved.body.transfer).toMatchObject({
        to: 'sip:desk@pbx.example.com',
        mode: 'cold',
        status: 'transferred',
        reason: null,
      });
      expect(double.transfers.map((sent) => [sent.roomName, sent.participantIdentity, sent.transferTo])).toEqual([
        [attempt.roomName, `prospect-${run.prospectId}`, 'sip:desk@pbx.example.com'],
      ]);

      await server.engine!.stop();
      expectErrorBody(await transfer({ to: '+14155550199' }), 409);
      expect(double.transfers).toHaveLength(1);
    });
  });
});
