import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { graphqlCalls } from './support/graphql.ts';
import { startTestServer, type TestServer } from './support/server.ts';

const INSIGHT_FIELDS = 'id createdAt periodStart periodEnd executiveSummary totalCalls issuesIdentified issueRate';

describe('GraphQL: insights from run outcomes', () => {
  let server: TestServer;
  let apiKey: string;
  let organizationId: string;
  let other: { apiKey: string };

  const { gql, ok } = graphqlCalls(
    () => server,
    () => apiKey,
  );
  const generate = async (periodStart: string, periodEnd: string, key = apiKey) =>
    (
      await ok(
        `mutation($s: Date!, $e: Date!) { generateInsight(periodStart: $s, periodEnd: $e) { ${INSIGHT_FIELDS} } }`,
        { s: periodStart, e: periodEnd },
        key,
      )
    ).generateInsight;
  const list = async (args: Record<string, unknown> = {}, key = apiKey) =>
    (
      await ok(
        `query($s: Date, $e: Date, $first: Int) { insights(periodStart: $s, periodEnd: $e, first: $first) {
          totalCount pageInfo { hasNextPage } nodes { id periodStart periodEnd } } }`,
        args,
        key,
      )
    ).insights;

  /** A batch of `count` runs made through GraphQL; returns their ids. */
  async function newRuns(count: number, key = apiKey) {
    const workflow = await ok(`mutation { createWorkflow(input: { name: "Calls" }) { id } }`, {}, key);
    const prospects = await ok(
      `mutation($input: ProspectsCreateInput!) { createProspects(input: $input) { id } }`,
      { input: { prospects: Array.from({ length: count }, (_, index) => ({ firstName: `P${index}` })) } },
      key,
    );
    const batch = await ok(
      `mutation($w: ID!, $ids: [String!]) { createBatch(workflowId: $w, input: { prospectIds: $ids }) { id } }`,
      { w: workflow.createWorkflow.id, ids: prospects.createProspects.map((prospect: { id: string }) => prospect.id) },
      key,
    );
    const runs = await server.db.prisma.run.findMany({
      where: { batchId: batch.createBatch.id },
      orderBy: { id: 'asc' },
    });
    return runs.map((run) => run.id);
  }
  /** Puts a run into a final state directly, as the run engine would. */
  const end = (runId: string, status: 'FINISHED' | 'FAILED' | 'CANCELLED', endedAt: string) =>
    server.db.prisma.run.update({ where: { id: runId }, data: { status, endedAt: new Date(endedAt) } });

  beforeAll(async () => {
    server = await startTestServer();
    ({ apiKey, organizationId } = await server.createOrganization('Acme'));
    other = await server.createOrganization('Globex');
    const runs = await newRuns(7);
    await end(runs[0]!, 'FINISHED', '2026-03-01T00:00:00.000Z');
    await end(runs[1]!, 'FAILED', '2026-03-01T23:59:59.999Z');
    await end(runs[2]!, 'FINISHED', '2026-03-02T00:00:00.000Z');
    await end(runs[3]!, 'FINISHED', '2026-03-02T08:30:00.000Z');
    await end(runs[4]!, 'FAILED', '2026-03-03T12:00:00.000Z');
    await end(runs[5]!, 'CANCELLED', '2026-03-01T12:00:00.000Z'); // ended too: it counts (DECISIONS.md)
    // runs[6] stays PENDING. Another organization's failures never count here.
    for (const runId of await newRuns(2, other.apiKey)) await end(runId, 'FAILED', '2026-03-01T10:00:00.000Z');
  });
  afterAll(() => server.close());

  it('counts the runs that ended in the period, the failed ones among them, and their rate', async () => {
    const day = await generate('2026-03-01', '2026-03-01');
    expect(day).toMatchObject({
      periodStart: '2026-03-01',
      periodEnd: '2026-03-01',
      totalCalls: 3,
      issuesIdentified: 1,
      issueRate: 1 / 3,
    });
    expect(day.id).toMatch(/^ins_/);
    expect(day.createdAt).toMatch(/Z$/);
    expect(day.executiveSummary).toBe(
      'On 2026-03-01, 3 calls ended: 1 finished, 1 cancelled and 1 failed (33.3% issue rate).',
    );

    const twoDays = await generate('2026-03-01', '2026-03-02');
    expect(twoDays).toMatchObject({ totalCalls: 5, issuesIdentified: 1, issueRate: 0.2 });
    const threeDays = await generate('2026-03-01', '2026-03-03');
    expect(threeDays).toMatchObject({ totalCalls: 6, issuesIdentified: 2, issueRate: 2 / 6 });
    expect(threeDays.executiveSummary).toContain(
      'From 2026-03-01 to 2026-03-03, 6 calls ended: 3 finished, 1 cancelled and 2 failed (33.3% issue rate).',
    );

    const quiet = await generate('2026-04-01', '2026-04-30');
    expect(quiet).toMatchObject({ totalCalls: 0, issuesIdentified: 0, issueRate: 0 });
    expect(quiet.executiveSummary).toBe('From 2026-04-01 to 2026-04-30, no calls ended.');

    const elsewhere = await generate('2026-03-01', '2026-03-01', other.apiKey);
    expect(elsewhere).toMatchObject({ totalCalls: 2, issuesIdentified: 2, issueRate: 1 });
  });

  it('lists insights whose period lies within the dates given, newest first', async () => {
    const all = await list();
    expect(
      all.nodes.map(
        (insight: { periodStart: string; periodEnd: string }) => `${insight.periodStart}/${insight.periodEnd}`,
      ),
    ).toEqual(['2026-04-01/2026-04-30', '2026-03-01/2026-03-03', '2026-03-01/2026-03-02', '2026-03-01/2026-03-01']);
    expect(all.totalCount).toBe(4);

    const within = await list({ s: '2026-03-01', e: '2026-03-02' });
    expect(within.totalCount).toBe(2);
    expect(within.nodes.map((insight: { periodEnd: string }) => insight.periodEnd)).toEqual([
      '2026-03-02',
      '2026-03-01',
    ]);
    expect(
      (await list({ s: '2026-03-02' })).nodes.map((insight: { periodStart: string }) => insight.periodStart),
    ).toEqual(['2026-04-01']);
    expect((await list({ e: '2026-03-03' })).totalCount).toBe(3);

    const page = await list({ first: 1 });
    expect(page).toMatchObject({ totalCount: 4, pageInfo: { hasNextPage: true } });
    expect(page.nodes).toHaveLength(1);
  });

  it('replaces the insight of a period when it is generated again', async () => {
    const before = await generate('2026-03-01', '2026-03-02');
    const finished = await server.db.prisma.run.findFirstOrThrow({
      where: { organizationId, status: 'FINISHED', endedAt: new Date('2026-03-02T00:00:00.000Z') },
    });
    await end(finished.id, 'FAILED', '2026-03-02T00:00:00.000Z');

    const after = await generate('2026-03-01', '2026-03-02');
    expect(after).toMatchObject({ id: before.id, totalCalls: 5, issuesIdentified: 2, issueRate: 0.4 });
    expect(after.createdAt >= before.createdAt).toBe(true);
    const stored = await list({ s: '2026-03-01', e: '2026-03-02' });
    expect(stored.totalCount).toBe(2);
    // Regenerated last, so it is now the newest.
    expect((await list()).nodes[0].id).toBe(after.id);
  });

  it('refuses a period that ends before it starts, and dates that do not exist', async () => {
    const backwards = await gql(
      `mutation { generateInsight(periodStart: "2026-03-02", periodEnd: "2026-03-01") { id } }`,
    );
    expect(backwards.errors[0].extensions).toMatchObject({ code: 'BAD_INPUT', status: 400 });
    expect(backwards.errors[0].extensions.detail.map((problem: { path: string }) => problem.path)).toEqual([
      'period_end',
    ]);
    const listed = await gql(`{ insights(periodStart: "2026-03-02", periodEnd: "2026-03-01") { totalCount } }`);
    expect(listed.errors[0].extensions.code).toBe('BAD_INPUT');

    for (const date of ['2026-02-30', '2026-3-1', '2026-03-01T00:00:00Z']) {
      const body = await gql(
        `mutation($s: Date!) { generateInsight(periodStart: $s, periodEnd: "2026-03-31") { id } }`,
        { s: date },
      );
      expect(body.errors[0].message, date).toMatch(/YYYY-MM-DD/);
      // Queries run compiled (graphql-jit), but a variable that does not coerce keeps the scalar's own message.
      const read = await gql(`query($s: Date!) { insights(periodStart: $s, periodEnd: "2026-03-31") { totalCount } }`, {
        s: date,
      });
      expect(read.errors[0].message, date).toMatch(/YYYY-MM-DD/);
    }
  });

  it("reads another organization's insights as null", async () => {
    const mine = await generate('2026-05-01', '2026-05-31');
    const seen = await ok(
      `query($id: ID!) { insight(id: $id) { id } node(id: $id) { id } }`,
      { id: mine.id },
      other.apiKey,
    );
    expect(seen).toEqual({ insight: null, node: null });
    const theirs = await list({}, other.apiKey);
    expect(theirs.totalCount).toBe(1);
    expect(theirs.nodes.map((insight: { id: string }) => insight.id)).not.toContain(mine.id);
    const own = await ok(`query($id: ID!) { node(id: $id) { ... on Insight { periodEnd totalCalls } } }`, {
      id: mine.id,
    });
    expect(own.node).toEqual({ periodEnd: '2026-05-31', totalCalls: 0 });
  });
});
