import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endedAttempt } from './support/ended-attempts.ts';
import { flows } from './support/flows.ts';
import { graphqlCalls } from './support/graphql.ts';
import { startTestServer, type TestServer } from './support/server.ts';

const INSIGHT_FIELDS = 'id createdAt periodStart periodEnd executiveSummary totalCalls issuesIdentified issueRate';

describe('GraphQL: insights and evaluation results from calls and their records', () => {
  let server: TestServer;
  let apiKey: string;
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

  /** A held batch (scheduled far ahead: the engine never calls it) of `count` runs of one call step; their ids. */
  async function newRuns(count: number, key = apiKey) {
    const api = flows(server, key);
    const batchId = await api.batch(await api.workflow([{ id: 'dial', type: 'call' }]), await api.prospects(count), {
      scheduledAt: '2099-01-01T00:00:00Z',
    });
    const runs = await server.db.prisma.run.findMany({ where: { batchId }, orderBy: { id: 'asc' } });
    return runs.map((run) => run.id);
  }
  /** What the agent worker reported of a run's first call. */
  const report = (runId: string, input: Record<string, unknown>) =>
    ok(`mutation($r: ID!, $i: CallRecordReportInput!) { reportCallRecord(runId: $r, attempt: 1, input: $i) { id } }`, {
      r: runId,
      i: input,
    });
  let runs: string[] = [];
  let greets: { id: string; databaseId: number };

  beforeAll(async () => {
    server = await startTestServer();
    ({ apiKey } = await server.createOrganization('Acme'));
    other = await server.createOrganization('Globex');
    runs = await newRuns(8);
    const run = await server.db.prisma.run.findFirstOrThrow({ where: { id: runs[0]! } });
    const version = await server.db.prisma.workflowVersion.findFirstOrThrow({ where: { id: run.workflowVersionId } });
    const agentId = version.definition as { steps: { agent_id: string }[] };
    greets = (
      await ok(
        `mutation($a: String!) { createEvaluation(input: { agentId: $a, title: "Greets", score: 80 }) { id databaseId } }`,
        {
          a: agentId.steps[0]!.agent_id,
        },
      )
    ).createEvaluation;
    const human = { result: 'human', confidence: 0.9, detectedMs: 500 };
    await endedAttempt(server.db, runs[0]!, 'answered', '2026-03-01T00:00:00.000Z');
    await report(runs[0]!, {
      disposition: { label: 'demo booked', category: 'success' },
      detection: human,
      evaluations: [{ evaluationId: greets.databaseId, score: 90, passed: true }],
    });
    await endedAttempt(server.db, runs[1]!, 'failed', '2026-03-01T23:59:59.999Z'); // a technical failure: an issue
    await endedAttempt(server.db, runs[2]!, 'answered', '2026-03-02T00:00:00.000Z');
    await report(runs[2]!, { disposition: { label: 'complaint', category: 'issue' }, detection: human });
    await endedAttempt(server.db, runs[3]!, 'answered', '2026-03-02T08:30:00.000Z');
    await report(runs[3]!, {
      disposition: { label: 'demo booked', category: 'success' },
      evaluations: [{ evaluationId: greets.databaseId, score: 30, passed: false, reason: 'no greeting' }],
    });
    await endedAttempt(server.db, runs[4]!, 'failed', '2026-03-03T12:00:00.000Z');
    // No answer, voicemail and busy are not issues.
    await endedAttempt(server.db, runs[5]!, 'no_answer', '2026-03-01T12:00:00.000Z');
    await endedAttempt(server.db, runs[6]!, 'voicemail', '2026-03-01T13:00:00.000Z');
    await report(runs[6]!, {
      disposition: { label: 'left voicemail', category: 'neutral' },
      detection: { result: 'voicemail', confidence: 0.95, detectedMs: 2000 },
    });
    await endedAttempt(server.db, runs[7]!, 'busy', '2026-03-01T14:00:00.000Z');
    // Another organization's failures never count here.
    for (const runId of await newRuns(2, other.apiKey))
      await endedAttempt(server.db, runId, 'failed', '2026-03-01T10:00:00.000Z');
  });
  afterAll(() => server.close());

  it('counts the calls that ended in the period, those with an issue among them, and their rate', async () => {
    const day = await generate('2026-03-01', '2026-03-01');
    expect(day).toMatchObject({
      periodStart: '2026-03-01',
      periodEnd: '2026-03-01',
      totalCalls: 5,
      issuesIdentified: 1,
      issueRate: 1 / 5,
    });
    expect(day.id).toMatch(/^ins_/);
    expect(day.createdAt).toMatch(/Z$/);
    expect(day.executiveSummary).toBe(
      'On 2026-03-01, 5 calls ended: 1 with an issue (20% issue rate). ' +
        'Top dispositions: "demo booked" 1, "left voicemail" 1. Issues: 1 ended failed. ' +
        'Answered by (2 detected): human 50%, voicemail 50%. Weakest evaluations: "Greets" passed 1 of 1, mean score 90.',
    );

    // A complaint (category issue) and a failed evaluation are issues too.
    const twoDays = await generate('2026-03-01', '2026-03-02');
    expect(twoDays).toMatchObject({ totalCalls: 7, issuesIdentified: 3, issueRate: 3 / 7 });
    expect(twoDays.executiveSummary).toBe(
      'From 2026-03-01 to 2026-03-02, 7 calls ended: 3 with an issue (42.9% issue rate). ' +
        'Top dispositions: "demo booked" 2, "complaint" 1, "left voicemail" 1. ' +
        'Issues: "complaint" 1; 1 ended failed; 1 failed an evaluation. ' +
        'Answered by (3 detected): human 66.7%, voicemail 33.3%. Weakest evaluations: "Greets" passed 1 of 2, mean score 60.',
    );
    const threeDays = await generate('2026-03-01', '2026-03-03');
    expect(threeDays).toMatchObject({ totalCalls: 8, issuesIdentified: 4, issueRate: 4 / 8 });
    // Written again from the same records, it reads the same.
    expect((await generate('2026-03-01', '2026-03-03')).executiveSummary).toBe(threeDays.executiveSummary);

    const quiet = await generate('2026-04-01', '2026-04-30');
    expect(quiet).toMatchObject({ totalCalls: 0, issuesIdentified: 0, issueRate: 0 });
    expect(quiet.executiveSummary).toBe('From 2026-04-01 to 2026-04-30, no calls ended.');

    const elsewhere = await generate('2026-03-01', '2026-03-01', other.apiKey);
    expect(elsewhere).toMatchObject({ totalCalls: 2, issuesIdentified: 2, issueRate: 1 });
  });

  it('gives each evaluation its pass rate and mean score over the records of a period', async () => {
    const results = async (variables: Record<string, unknown>) =>
      gql(
        `query($id: ID!, $from: DateTime, $to: DateTime) { node(id: $id) { ... on Evaluation {
          results(from: $from, to: $to) { count passRate meanScore } } } }`,
        { id: greets.id, ...variables },
      );
    expect((await results({})).data.node.results).toEqual({ count: 2, passRate: 0.5, meanScore: 60 });
    expect((await results({ to: '2020-01-01T00:00:00Z' })).data.node.results).toEqual({
      count: 0,
      passRate: null,
      meanScore: null,
    });
    const backwards = await results({ from: '2026-02-01T00:00:00Z', to: '2026-01-01T00:00:00Z' });
    expect(backwards.errors[0].extensions).toMatchObject({ code: 'BAD_INPUT' });
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
    // The call that was not answered turns out to have failed.
    await server.db.prisma.runAttempt.updateMany({ where: { runId: runs[5]! }, data: { outcome: 'failed' } });

    const after = await generate('2026-03-01', '2026-03-02');
    expect(after).toMatchObject({ id: before.id, totalCalls: 7, issuesIdentified: 4, issueRate: 4 / 7 });
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
