// Number health through the real server: a caller id whose calls go
// unanswered is rested by the organization's number_health breaker (a
// `phone_number.rested` event, its trunk's other number used meanwhile),
// shown by GET /phone-numbers/{id} and PhoneNumber.health, restored and
// rested by hand under both prefixes and in GraphQL.
import { describe, expect, it } from 'vitest';
import type { Dialer } from '../src/engine/dialer.ts';
import { batchIn } from './support/batch-checks.ts';
import { flows } from './support/flows.ts';
import { expectErrorBody, restClient } from './support/rest.ts';
import { startTestServer } from './support/server.ts';

const NOBODY = '+12125550101'; // its calls are never answered
const ANSWERED = '+12125550102';

/** Calls from NOBODY reach no one; the others are answered and last 30 s. */
const dialer: Dialer = {
  dial: async (request) =>
    request.fromNumber === NOBODY
      ? { outcome: 'no_answer', durationSeconds: 0, reason: null }
      : { outcome: 'answered', durationSeconds: 30, reason: null },
};

describe('number health', () => {
  it('rests a caller id below the thresholds, uses the trunk’s other number meanwhile, and is restored or rested by hand', {
    timeout: 180_000,
  }, async () => {
    const server = await startTestServer({ engine: { concurrency: 1, dialer } });
    try {
      const { organizationId, apiKey } = await server.createOrganization();
      const api = flows(server, apiKey);
      const rest = restClient(server, organizationId, apiKey);
      const settings = await rest('PATCH', '/org/{org}/settings', {
        body: { number_health: { min_attempts: 2, window: 10, min_answer_rate: 0.5, rest_hours: 24 } },
      });
      expect(settings.body.number_health).toEqual({
        min_attempts: 2,
        window: 10,
        min_answer_rate: 0.5,
        rest_hours: 24,
      });
      expectErrorBody(
        await rest('PATCH', '/org/{org}/settings', { body: { number_health: { min_answer_rate: 2 } } }),
        400,
      );
      await rest('POST', '/org/{org}/webhook-endpoints', {
        body: { url: 'https://hooks.example.com/numbers', events: ['phone_number.rested'] },
      });
      const trunks = await rest('POST', '/org/{org}/sip-trunks', {
        body: { name: 'Main', address: 'sip.example.com', provider: 'twilio', phone_numbers: [NOBODY, ANSWERED] },
      });
      const trunkId = trunks.body.outbound_trunk.id as string;
      const idOf = (number: string) =>
        trunks.body.phone_numbers.find((entry: { number: string }) => entry.number === number).id as string;
      const workflowId = await api.workflow([{ id: 'dial', type: 'call', trunk_id: trunkId }]);
      const batchId = await api.batch(workflowId, await api.prospects(12));
      await batchIn(server.db, batchId, ['FINISHED']);

      // Rested once its first two calls went unanswered; the other number placed the calls after.
      const detail = await rest('GET', `/org/{org}/phone-numbers/${idOf(NOBODY)}`);
      expect(detail.status).toBe(200);
      expect(detail.body).toMatchObject({ id: idOf(NOBODY), number: NOBODY, sip_trunk_id: trunkId });
      expect(detail.body.health).toMatchObject({ rested_reason: 'min_answer_rate', answer_rate: 0 });
      const restedUntil = new Date(detail.body.health.rested_until).getTime();
      expect(restedUntil).toBeGreaterThan(Date.now() + 23 * 3_600_000);
      const attempts = await server.db.prisma.runAttempt.findMany({
        where: { batchId },
        orderBy: { startedAt: 'asc' },
      });
      const fromNobody = attempts.filter((attempt) => attempt.fromNumber === NOBODY);
      // Two to judge it, and at most one more chosen before it was rested (a run claimed ahead).
      expect(fromNobody.length).toBeGreaterThanOrEqual(2);
      expect(fromNobody.length).toBeLessThanOrEqual(3);
      expect(attempts.slice(-6).every((attempt) => attempt.fromNumber === ANSWERED)).toBe(true);
      const healthy = await rest('GET', `/api/org/{org}/phone-numbers/${idOf(ANSWERED)}`);
      expect(healthy.body.health).toMatchObject({
        answer_rate: 1,
        short_call_rate: 0,
        voicemail_share: 0,
        rested_until: null,
        rested_reason: null,
      });
      expect(healthy.body.health.attempts_today).toBe(attempts.length - fromNobody.length);
      const events = await server.db.prisma.webhookEvent.findMany({ where: { type: 'phone_number.rested' } });
      expect(events).toHaveLength(1);
      expect((events[0]!.payload as { data: unknown }).data).toMatchObject({
        id: idOf(NOBODY),
        number: NOBODY,
        rested_reason: 'min_answer_rate',
      });

      // Restored by hand: in use again, its figures afresh.
      const restored = await rest('POST', `/org/{org}/phone-numbers/${idOf(NOBODY)}/restore`);
      expect(restored.status).toBe(200);
      expect(restored.body.health).toMatchObject({ rested_until: null, rested_reason: null, attempts: 0 });
      // Rested by hand in GraphQL, read back with its health.
      const manual = await api.ok(
        `mutation($id: ID!) { restPhoneNumber(id: $id, input: { hours: 2 }) { number health { json } } }`,
        { id: idOf(ANSWERED) },
      );
      expect(manual.restPhoneNumber.health.json.rested_reason).toBe('manual');
      // Both rested or not: the trunk's awake number carries the calls.
      const next = await api.batch(workflowId, await api.prospects(2, (index) => ({ phone: `+1415666000${index}` })));
      // (Unanswered: its runs fail, and the number may be rested again, as it should.)
      await batchIn(server.db, next, ['FINISHED', 'FAILED']);
      const later = await server.db.prisma.runAttempt.findMany({ where: { batchId: next } });
      expect(later.every((attempt) => attempt.fromNumber === NOBODY)).toBe(true);
      const read = await api.ok(`query($id: ID!) { phoneNumber(id: $id) { health { json } } }`, { id: idOf(ANSWERED) });
      expect(read.phoneNumber.health.json.rested_until).not.toBeNull();
      // Restored in GraphQL: the typed members, null where nothing is known yet.
      const back = await api.ok(
        `mutation($id: ID!) { restorePhoneNumber(id: $id) { health { answerRate shortCallRate voicemailShare attempts restedUntil restedReason } } }`,
        { id: idOf(ANSWERED) },
      );
      expect(back.restorePhoneNumber.health).toEqual({
        answerRate: null,
        shortCallRate: null,
        voicemailShare: null,
        attempts: 0,
        restedUntil: null,
        restedReason: null,
      });
      expectErrorBody(await rest('POST', `/org/{org}/phone-numbers/${idOf(NOBODY)}/rest`, { body: { hours: 0 } }), 400);
      // Another organization's number is not found.
      const other = await server.createOrganization();
      const stranger = restClient(server, other.organizationId, other.apiKey);
      expect((await stranger('GET', `/org/{org}/phone-numbers/${idOf(NOBODY)}`)).status).toBe(404);
    } finally {
      await server.close();
    }
  });
});
