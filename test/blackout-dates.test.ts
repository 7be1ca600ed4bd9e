// The organization's blackout dates (docs/consent.md) through the real
// server: the setting over REST and GraphQL, its refusals, and the engine
// putting off runs on a blackout date until the next day in the callee's
// zone. Time comes from the engine's ManualClock.
import { describe, expect, it } from 'vitest';
import type { Dialer } from '../src/engine/dialer.ts';
import { batchIn } from './support/batch-checks.ts';
import { eventually, flows } from './support/flows.ts';
import { ManualClock } from './support/manual-clock.ts';
import { expectErrorBody, restClient } from './support/rest.ts';
import { startTestServer } from './support/server.ts';

// Wednesday 25 December 2030, 17:00 UTC: 11:00 in Chicago, 12:00 in New York, 18:00 in Paris.
const CHRISTMAS = '2030-12-25T17:00:00.000Z';

describe('blackout dates', () => {
  it('puts off calls on the date in the callee zone, for its country (and region), until the next day there', async () => {
    const dialled: string[] = [];
    const dialer: Dialer = {
      dial: async (request) => {
        dialled.push(request.toNumber);
        return { outcome: 'answered', durationSeconds: 1, reason: null };
      },
    };
    const clock = new ManualClock(CHRISTMAS);
    const server = await startTestServer({ engine: { dialer, clock } });
    try {
      const { organizationId, apiKey } = await server.createOrganization();
      const rest = restClient(server, organizationId, apiKey);
      const api = flows(server, apiKey);
      const dates = [
        { date: '2030-12-25', country: 'US', region: 'America/Chicago' },
        { date: '2030-12-25', country: 'FR' },
      ];
      for (const [body, path] of [
        [{ blackout_dates: [{ date: '2030-02-30', country: 'US' }] }, 'blackout_dates.0.date'],
        [{ blackout_dates: [{ date: '2030-12-25', country: 'us' }] }, 'blackout_dates.0.country'],
        [
          { blackout_dates: [{ date: '2030-12-25', country: 'US', region: 'Europe/Paris' }] },
          'blackout_dates.0.region',
        ],
      ] as const) {
        const refused = expectErrorBody(await rest('PATCH', '/org/{org}/settings', { body }), 400);
        expect(refused.error).toEqual([expect.objectContaining({ path })]);
      }
      const patched = await rest('PATCH', '/api/org/{org}/settings', { body: { blackout_dates: dates } });
      expect(patched.status, JSON.stringify(patched.body)).toBe(200);
      expect(patched.body.blackout_dates).toEqual(dates);
      const read = await server.graphql(
        apiKey,
        '{ organization { settings { blackoutDates { date country region } } } }',
      );
      expect(read.body.data.organization.settings.blackoutDates).toEqual([dates[0], { ...dates[1], region: null }]);

      const [chicago, newYork, toronto, paris] = [
        ...(await api.prospects(1, () => ({ phone: '+13125550100', timezone: 'America/Chicago' }))),
        ...(await api.prospects(1, () => ({ phone: '+12125550100', timezone: 'America/New_York' }))),
        ...(await api.prospects(1, () => ({ phone: '+14165550100' }))),
        ...(await api.prospects(1, () => ({ phone: '+33142685300' }))),
      ];
      const workflowId = await api.workflow([{ id: 'dial', type: 'call' }]);
      const batchId = await api.batch(workflowId, [chicago!, newYork!, toronto!, paris!]);
      const waiting = async () =>
        Object.fromEntries(
          (await server.db.prisma.run.findMany({ where: { batchId, status: 'PENDING' } })).map((run) => [
            run.prospectId,
            run.nextAttemptAt.toISOString(),
          ]),
        );
      // Chicago waits for its midnight (06:00 UTC), Paris for its own (23:00 UTC); the others are called.
      await eventually(async () => (dialled.length === 2 ? true : undefined));
      await server.engineClaims();
      expect(await waiting()).toEqual({
        [chicago!]: '2030-12-26T06:00:00.000Z',
        [paris!]: '2030-12-25T23:00:00.000Z',
      });
      expect(dialled.sort()).toEqual(['+12125550100', '+14165550100']);

      clock.set('2030-12-25T23:00:00.000Z');
      await eventually(async () => (dialled.length === 3 ? true : undefined));
      expect(dialled[2]).toBe('+33142685300');
      clock.set('2030-12-26T06:00:00.000Z');
      expect(await batchIn(server.db, batchId, ['FINISHED'])).toMatchObject({ finishedCount: 4 });
      expect(dialled[3]).toBe('+13125550100');

      // null clears the list.
      expect(
        (await rest('PATCH', '/org/{org}/settings', { body: { blackout_dates: null } })).body.blackout_dates,
      ).toEqual([]);
    } finally {
      await server.close();
    }
  });
});
