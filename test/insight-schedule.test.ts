import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InsightScheduler } from '../src/engine/insight-scheduler.ts';
import { endedAttempt } from './support/ended-attempts.ts';
import { flows } from './support/flows.ts';
import { startTestServer, type TestServer } from './support/server.ts';

describe('the insight schedule', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  it("regenerates today's and yesterday's insights of organizations with ended runs", async () => {
    const active = await server.createOrganization('Active');
    const idle = await server.createOrganization('Idle');
    const api = flows(server, active.apiKey);
    // Held (scheduled far ahead): the calls below are the only ones, ended when the test says.
    const batchId = await api.batch(await api.workflow([{ id: 'dial', type: 'call' }]), await api.prospects(4), {
      scheduledAt: '2099-01-01T00:00:00Z',
    });
    const runs = await server.db.prisma.run.findMany({ where: { batchId } });
    const now = new Date('2026-11-21T12:00:00.000Z');
    const yesterday = new Date('2026-11-20T08:00:00.000Z');
    const end = async (index: number, status: 'FINISHED' | 'FAILED', outcome: 'answered' | 'failed', at: Date) => {
      await endedAttempt(server.db, runs[index]!.id, outcome, at.toISOString());
      await server.db.prisma.run.updateMany({ where: { id: runs[index]!.id }, data: { status, endedAt: at } });
    };
    await end(0, 'FINISHED', 'answered', now);
    await end(1, 'FAILED', 'failed', now);
    await end(2, 'FAILED', 'failed', yesterday);

    const scheduler = new InsightScheduler(server.db.prisma, 0, console);
    expect(await scheduler.runOnce(now)).toBe(2);
    const insights = await server.db.prisma.insight.findMany({
      where: { organizationId: active.organizationId },
      orderBy: { periodStart: 'asc' },
    });
    expect(
      insights.map((insight) => [
        insight.periodStart.toISOString().slice(0, 10),
        insight.totalCalls,
        insight.issuesIdentified,
      ]),
    ).toEqual([
      ['2026-11-20', 1, 1],
      ['2026-11-21', 2, 1],
    ]);
    expect(await server.db.prisma.insight.count({ where: { organizationId: idle.organizationId } })).toBe(0);
    // Running again replaces, never duplicates.
    await scheduler.runOnce(now);
    expect(await server.db.prisma.insight.count({ where: { organizationId: active.organizationId } })).toBe(2);
  });
});
