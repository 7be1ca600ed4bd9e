// The organization's contact_limits through the real server: the setting
// under both prefixes and GraphQL, calls to one number capped over all the
// organization's batches by two instances claiming at once, and a run over a
// limit waiting until its window allows. Time comes from a clock the tests
// move (ManualClock).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { batchIn, expectStatsMatchRuns } from './support/batch-checks.ts';
import { eventually, flows } from './support/flows.ts';
import { ManualClock } from './support/manual-clock.ts';
import { expectErrorBody, restClient } from './support/rest.ts';
import { startTestServer, type TestServer } from './support/server.ts';

const START = '2030-01-07T12:00:00.000Z';
const NUMBER = '+14155550123';
const HOUR_MS = 3_600_000;

describe('contact_limits', () => {
  let first: TestServer;
  let second: TestServer;
  const clock = new ManualClock(START);

  beforeAll(async () => {
    first = await startTestServer({
      engine: { concurrency: 8, callMs: 5, clock },
      redisUrl: process.env.TEST_REDIS_URL,
    });
    second = await startTestServer({
      engine: { concurrency: 8, callMs: 5, clock },
      redisUrl: process.env.TEST_REDIS_URL,
      sharing: first,
    });
  });
  afterAll(async () => {
    await second.close();
    await first.close();
  });

  const organization = async () => {
    const { organizationId, apiKey } = await first.createOrganization();
    return { api: flows(first, apiKey), rest: restClient(first, organizationId, apiKey) };
  };
  const attemptsTo = (number: string, organizationId?: string) =>
    first.db.prisma.runAttempt.findMany({
      where: { toNumber: number, ...(organizationId ? { organizationId } : {}) },
      orderBy: { startedAt: 'asc' },
    });

  it('are read and changed under both prefixes and in GraphQL; a bad value is a 400 naming it', async () => {
    const { api, rest } = await organization();
    expect((await rest('GET', '/org/{org}/settings')).body.contact_limits).toEqual([]);
    const limits = [
      { max_calls: 3, per_hours: 24 },
      { max_calls: 7, per_hours: 168 },
    ];
    const changed = await rest('PATCH', '/api/org/{org}/settings', { body: { contact_limits: limits } });
    expect(changed).toMatchObject({ status: 200, body: { contact_limits: limits } });
    expect(await api.ok('{ organization { settings { contactLimits { maxCalls perHours } } } }')).toEqual({
      organization: {
        settings: {
          contactLimits: [
            { maxCalls: 3, perHours: 24 },
            { maxCalls: 7, perHours: 168 },
          ],
        },
      },
    });
    for (const value of [
      [{ max_calls: 0, per_hours: 24 }],
      [{ max_calls: 3, per_hours: 2161 }],
      [{ max_calls: 3 }],
      Array.from({ length: 6 }, () => ({ max_calls: 1, per_hours: 1 })),
      'three',
    ]) {
      const refused = expectErrorBody(
        await rest('PATCH', '/org/{org}/settings', { body: { contact_limits: value } }),
        400,
      );
      expect(JSON.stringify(refused.error)).toContain('contact_limits');
    }
    const cleared = await api.ok(
      'mutation { updateOrganizationSettings(input: { contactLimits: [] }) { contactLimits { maxCalls } } }',
    );
    expect(cleared.updateOrganizationSettings.contactLimits).toEqual([]);
  });

  /**
   * On PostgreSQL, holds the organization's row until the returned function is
   * called: a claim that counts a call then waits, holding what it locked
   * (inserting the call checks its key to the organization), while the other
   * instance claims. The embedded database has one connection: nothing is held.
   */
  async function holdOrganization(organizationId: string) {
    if (first.db.storage.kind !== 'postgres') return async () => {};
    let release = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let held = () => {};
    const holding = new Promise<void>((resolve) => {
      held = resolve;
    });
    const transaction = first.db.prisma.$transaction(
      async (tx) => {
        await tx.$queryRaw`SELECT 1 FROM "Organization" WHERE id = ${organizationId} FOR UPDATE`;
        held();
        await released;
      },
      { timeout: 60_000 },
    );
    await holding;
    return async () => {
      release();
      await transaction;
    };
  }
  const claimsWaiting = async () => {
    if (first.db.storage.kind !== 'postgres') return 0;
    const [row] = await first.db.prisma.$queryRaw<{ count: number }[]>`
      SELECT count(*)::int AS count FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`;
    return row!.count;
  };

  it('hold over every batch of the organization while two instances claim runs to one number at once', {
    timeout: 120_000,
  }, async () => {
    const { api, rest } = await organization();
    await rest('PATCH', '/org/{org}/settings', { body: { contact_limits: [{ max_calls: 2, per_hours: 24 }] } });
    const workflowId = await api.workflow([{ id: 'dial', type: 'call' }]);
    // Three batches, each with four prospects sharing one number: the first due in a minute, the others in two.
    const at = (minutes: number) => new Date(clock.now().getTime() + minutes * 60_000);
    const batches: string[] = [];
    for (const minutes of [1, 2, 2]) {
      const prospects = await api.prospects(4, () => ({ phone: NUMBER }));
      batches.push(await api.batch(workflowId, prospects, { scheduledAt: at(minutes).toISOString() }));
    }
    const organizationId = (await first.db.prisma.batch.findFirstOrThrow({ where: { id: batches[0]! } }))
      .organizationId;
    const release = await holdOrganization(organizationId);
    const secondDue = at(2);
    // One instance claims the first batch's runs and counts two calls: on PostgreSQL it waits, uncommitted.
    clock.set(at(1));
    if (first.db.storage.kind === 'postgres')
      await eventually(async () => ((await claimsWaiting()) >= 1 ? true : undefined));
    // Meanwhile the other instance claims the two other batches' runs to the same number.
    clock.set(secondDue);
    let otherClaimed = false;
    void Promise.race([first.engineClaims(3), second.engineClaims(3)]).then(() => {
      otherClaimed = true;
    });
    await eventually(async () => (otherClaimed || (await claimsWaiting()) >= 2 ? true : undefined));
    await release();
    const waitUntil = (claimedAt: Date) => claimedAt.getTime() + 24 * HOUR_MS;
    // Two calls are placed; the ten other runs wait for the window, put off to when it allows one more.
    await eventually(
      async () => {
        const runs = await first.db.prisma.run.findMany({ where: { batchId: { in: batches } } });
        const finished = runs.filter((run) => run.status === 'FINISHED');
        const waiting = runs.filter((run) => run.status === 'PENDING' && run.nextAttemptAt > clock.now());
        return finished.length === 2 && waiting.length === 10 ? true : undefined;
      },
      60_000,
      'two calls placed and ten runs waiting',
    );
    await Promise.all([first.engineClaims(), second.engineClaims()]);
    const calls = await attemptsTo(NUMBER, organizationId);
    expect(calls).toHaveLength(2);
    // They wait 24 hours from when the first of the two calls was counted (its run's claim).
    const counted = await first.db.prisma.contactAttempt.findMany({
      where: { organizationId },
      orderBy: { at: 'asc' },
    });
    expect(counted.map((call) => call.number)).toEqual([NUMBER, NUMBER]);
    const runs = await first.db.prisma.run.findMany({ where: { batchId: { in: batches }, status: 'PENDING' } });
    expect(new Set(runs.map((run) => run.nextAttemptAt.getTime()))).toEqual(new Set([waitUntil(counted[0]!.at)]));
    for (const batchId of batches) await expectStatsMatchRuns(first.db, batchId);
    // Another organization's calls to the same number are its own.
    const other = await organization();
    const [prospect] = await other.api.prospects(1, () => ({ phone: NUMBER }));
    const otherBatch = await other.api.batch(await other.api.workflow([{ id: 'dial', type: 'call' }]), [prospect!]);
    expect((await batchIn(first.db, otherBatch, ['FINISHED'])).finishedCount).toBe(1);
  });

  it('lets a waiting run call once its window allows, and no sooner', { timeout: 120_000 }, async () => {
    const { api, rest } = await organization();
    const number = '+14155550177';
    await rest('PATCH', '/org/{org}/settings', { body: { contact_limits: [{ max_calls: 1, per_hours: 24 }] } });
    const workflowId = await api.workflow([{ id: 'dial', type: 'call' }]);
    const firstBatch = await api.batch(workflowId, await api.prospects(1, () => ({ phone: number })));
    await batchIn(first.db, firstBatch, ['FINISHED']);
    const [call] = await attemptsTo(number);
    // A second campaign to the same person waits 24 hours from the first call's claim.
    const secondBatch = await api.batch(workflowId, await api.prospects(1, () => ({ phone: number })));
    const [waiting] = await eventually(async () => {
      const runs = await first.db.prisma.run.findMany({ where: { batchId: secondBatch } });
      return runs[0] && runs[0].nextAttemptAt.getTime() > clock.now().getTime() ? runs : undefined;
    });
    expect(waiting!.nextAttemptAt.getTime()).toBe(call!.startedAt.getTime() + 24 * HOUR_MS);
    clock.set(new Date(waiting!.nextAttemptAt.getTime() - 1000));
    await Promise.all([first.engineClaims(), second.engineClaims()]);
    expect(await attemptsTo(number)).toHaveLength(1);
    clock.set(waiting!.nextAttemptAt);
    expect((await batchIn(first.db, secondBatch, ['FINISHED'])).finishedCount).toBe(1);
    expect(await attemptsTo(number)).toHaveLength(2);
  });
});
