// Finding call records through the real server: GET /call-records (both
// prefixes, envelope A) and GraphQL `callRecords`, by words said (PostgreSQL's
// full-text search in the organization's language, ranked) and by filters.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Dialer } from '../src/engine/dialer.ts';
import { batchIn } from './support/batch-checks.ts';
import { flows } from './support/flows.ts';
import { expectErrorBody, restClient } from './support/rest.ts';
import { startTestServer, type TestServer } from './support/server.ts';
import { recordStatements } from './support/statements.ts';

/** Every call is answered at once: records are reported after it, as post-call analysis is. */
const answering: Dialer = { dial: async () => ({ outcome: 'answered', durationSeconds: 30, reason: null }) };

interface Reported {
  id: string;
  run_id: string;
  agent_id: string;
  batch_id: string;
  created_at: string;
}

const turn = (role: string, text: string, started_ms: number) => ({
  role,
  text,
  started_ms,
  ended_ms: started_ms + 900,
});

describe('call record search', () => {
  let server: TestServer;
  let rest: ReturnType<typeof restClient>;
  let apiKey: string;
  const records: Reported[] = [];
  let batches: string[] = [];
  let agents: string[] = [];
  let theirs: Reported;

  /** The runs of a finished one-call batch of `size` prospects, with a workflow of its own agent. */
  async function finishedRuns(api: ReturnType<typeof flows>, size: number) {
    const agentId = await api.agent();
    const workflowId = await api.workflow([{ id: 'dial', type: 'call', agent_id: agentId }]);
    const batchId = await api.batch(workflowId, await api.prospects(size));
    await batchIn(server.db, batchId, ['FINISHED']);
    const runs = await server.db.prisma.run.findMany({ where: { batchId }, orderBy: { id: 'asc' } });
    return { agentId, batchId, runIds: runs.map((run) => run.id) };
  }

  beforeAll(async () => {
    server = await startTestServer({ engine: { dialer: answering, concurrency: 10 } });
    const acme = await server.createOrganization('Acme');
    apiKey = acme.apiKey;
    rest = restClient(server, acme.organizationId, apiKey);
    const api = flows(server, apiKey);
    const first = await finishedRuns(api, 4);
    const second = await finishedRuns(api, 2);
    batches = [first.batchId, second.batchId];
    agents = [first.agentId, second.agentId];
    const bodies = [
      // 0: "booked" twice, in the transcript and the summary: the best match for "booking".
      {
        transcript: [turn('agent', 'Shall I book you a demo?', 0), turn('callee', 'Yes, I booked Tuesday', 1000)],
        summary: 'The callee booked a demo for Tuesday.',
        disposition: { label: 'demo booked', category: 'success' },
        detection: { result: 'human', confidence: 0.99, detected_ms: 800 },
      },
      // 1: "booking" once, among many other words.
      {
        transcript: [
          turn('agent', 'Hello, I am calling about your insurance renewal and the premium for next year', 0),
          turn('callee', 'I am not interested in any booking right now, thank you, goodbye', 3000),
        ],
        summary: 'Not interested.',
        disposition: { label: 'not interested', category: 'neutral' },
        detection: { result: 'human', confidence: 0.9, detected_ms: 500 },
      },
      // 2: a voicemail, no booking.
      {
        transcript: [turn('agent', 'Please call us back about your invoice', 0)],
        disposition: { label: 'left voicemail', category: 'neutral' },
        detection: { result: 'voicemail', confidence: 0.95, detected_ms: 2100 },
      },
      // 3: an issue.
      {
        transcript: [turn('callee', 'Your last invoice was wrong and I want a refund', 0)],
        summary: 'Complaint about a wrong invoice.',
        disposition: { label: 'complaint', category: 'issue' },
        detection: { result: 'human', confidence: 0.97, detected_ms: 400 },
      },
      // 4, 5: the second batch and agent.
      {
        transcript: [turn('callee', 'Booking a table for two, please', 0)],
        disposition: { label: 'demo booked', category: 'success' },
        detection: { result: 'human', confidence: 0.8, detected_ms: 900 },
      },
      {
        transcript: [turn('agent', 'This is an automated menu, press one', 0)],
        disposition: { label: 'ivr', category: 'neutral' },
        detection: { result: 'ivr', confidence: 0.9, detected_ms: 300 },
      },
    ];
    const runIds = [...first.runIds, ...second.runIds];
    for (const [index, body] of bodies.entries()) {
      const reported = await rest('POST', `/org/{org}/runs/${runIds[index]}/attempts/1/record`, { body });
      expect(reported.status).toBe(200);
      records.push(reported.body);
    }
    // Another organization said the same words.
    const globex = await server.createOrganization('Globex');
    const other = await finishedRuns(flows(server, globex.apiKey), 1);
    const otherRest = restClient(server, globex.organizationId, globex.apiKey);
    theirs = (
      await otherRest('POST', `/org/{org}/runs/${other.runIds[0]}/attempts/1/record`, {
        body: { transcript: [turn('callee', 'I booked a demo and a table', 0)], summary: 'booked booking' },
      })
    ).body;
  });
  afterAll(() => server.close());

  const ids = (body: { data: { id: string }[] }) => body.data.map((record) => record.id);
  const find = (query: Record<string, string | number>, prefix = '') =>
    rest(
      'GET',
      `${prefix}/org/{org}/call-records?${new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)]))}`,
    );

  it('finds words said or summarized, stemmed, best matches first, in envelope A under both prefixes', async () => {
    const found = await find({ q: 'booking' });
    expect(found.status).toBe(200);
    // 0 says "book" three times (book, booked, booked), 1 and 4 once each; 2, 3, 5 never.
    expect(ids(found.body)[0]).toBe(records[0]!.id);
    expect(ids(found.body).sort()).toEqual([records[0]!.id, records[1]!.id, records[4]!.id].sort());
    expect(found.body.pagination).toEqual({ page: 1, limit: 20, total: 3, total_pages: 1 });
    expect(found.body.data[0]).toMatchObject({
      summary: 'The callee booked a demo for Tuesday.',
      run_id: records[0]!.run_id,
    });

    const phrase = await find({ q: '"wrong invoice" -refund' }, '/api');
    expect(phrase.status).toBe(200);
    expect(ids(phrase.body)).toEqual([]);
    const invoice = await find({ q: 'invoice' }, '/api');
    expect(ids(invoice.body).sort()).toEqual([records[2]!.id, records[3]!.id].sort());
    expect(ids((await find({ q: 'invoice -refund' })).body)).toEqual([records[2]!.id]);
    // Words nobody said, and words only another organization said.
    expect((await find({ q: 'table' })).body.data.map((record: { id: string }) => record.id)).toEqual([records[4]!.id]);
    expect((await find({ q: 'zeppelin' })).body).toEqual({
      data: [],
      pagination: { page: 1, limit: 20, total: 0, total_pages: 0 },
    });
  });

  it('lists newest first without words, and pages with limit or size', async () => {
    const all = await find({});
    expect(ids(all.body)).toEqual(
      [...records]
        .sort((a, b) => b.created_at.localeCompare(a.created_at) || b.id.localeCompare(a.id))
        .map((r) => r.id),
    );
    expect(ids(all.body)).not.toContain(theirs.id);
    const second = await find({ page: 2, limit: 4 });
    expect(second.body.pagination).toEqual({ page: 2, limit: 4, total: 6, total_pages: 2 });
    expect(ids(second.body)).toEqual(ids(all.body).slice(4));
    const sized = await find({ page: 3, size: 2 });
    expect(sized.body.pagination).toEqual({ page: 3, limit: 2, total: 6, total_pages: 3 });
    expect(ids(sized.body)).toEqual(ids(all.body).slice(4));
  });

  it('combines filters, through REST and GraphQL alike', async () => {
    const human = await find({ detection: 'human', batch_id: batches[0]! });
    expect(ids(human.body).sort()).toEqual([records[0]!.id, records[1]!.id, records[3]!.id].sort());
    expect(ids((await find({ q: 'booked', agent_id: agents[1]! })).body)).toEqual([records[4]!.id]);
    expect(ids((await find({ disposition: 'demo booked', category: 'success' })).body).sort()).toEqual(
      [records[0]!.id, records[4]!.id].sort(),
    );
    expect(ids((await find({ category: 'issue' })).body)).toEqual([records[3]!.id]);
    expect(ids((await find({ disposition: 'demo booked', category: 'neutral' })).body)).toEqual([]);
    // A window of time: records made at or after `from`, before `to`.
    const sorted = [...records].sort((a, b) => a.created_at.localeCompare(b.created_at));
    const from = sorted[1]!.created_at;
    const to = sorted[4]!.created_at;
    const inWindow = records.filter((r) => r.created_at >= from && r.created_at < to).map((r) => r.id);
    expect(ids((await find({ from, to })).body).sort()).toEqual(inWindow.sort());

    const { body } = await server.graphql(
      apiKey,
      `query($s: String, $b: ID, $d: String) { callRecords(search: $s, batchId: $b, detection: $d, first: 10) {
        totalCount nodes { id disposition { label } } } }`,
      { s: 'book', b: batches[0], d: 'human' },
    );
    expect(body.errors).toBeUndefined();
    expect(body.data.callRecords.totalCount).toBe(2);
    expect(body.data.callRecords.nodes[0]).toEqual({ id: expect.any(String), disposition: { label: 'demo booked' } });
  });

  it('ranks the newest 1,000 matches; older matches follow by time, and every match is counted', async () => {
    // 1,003 records of one run say "walrus", a second apart, the oldest (attempt 2) four times, attempt 502 twice,
    // the rest once: the best match is the oldest, past the newest 1,000.
    const bulk = await server.createOrganization('Bulk');
    const { runIds } = await finishedRuns(flows(server, bulk.apiKey), 1);
    await server.db.prisma.$executeRaw`
      INSERT INTO "RunAttempt" ("organizationId", "runId", "batchId", number, "stepId", "startedAt", "endedAt", outcome, "toNumber")
      SELECT a."organizationId", a."runId", a."batchId", g, a."stepId", a."startedAt", a."endedAt", a.outcome, a."toNumber"
      FROM "RunAttempt" AS a, generate_series(2, 1004) AS g WHERE a."runId" = ${runIds[0]} AND a.number = 1`;
    await server.db.prisma.$executeRaw`
      INSERT INTO "CallRecord" ("organizationId", "attemptId", "runId", "attemptNumber", "batchId", "agentId",
        transcript, summary, "searchVector", "createdAt", "updatedAt")
      SELECT a."organizationId", a.id, a."runId", a.number, a."batchId", '', '[]', said.text,
        to_tsvector('english', said.text), timestamptz '2026-01-01T00:00:00Z' + a.number * interval '1 second', now()
      FROM "RunAttempt" AS a CROSS JOIN LATERAL (SELECT CASE a.number WHEN 2 THEN 'walrus walrus walrus walrus'
        WHEN 502 THEN 'a walrus and a walrus' ELSE 'a walrus' END AS text) AS said
      WHERE a."runId" = ${runIds[0]} AND a.number >= 2`;
    const bulkRest = restClient(server, bulk.organizationId, bulk.apiKey);
    const walrus = async (page: number, limit: number) => {
      const found = await bulkRest('GET', `/org/{org}/call-records?q=walrus&page=${page}&limit=${limit}`);
      expect(found.status).toBe(200);
      return found.body as { data: { attempt: number }[]; pagination: Record<string, number> };
    };
    const { result: first, statements } = await recordStatements(server.db, () => walrus(1, 5));
    // The page and its total in one statement.
    expect(statements.filter((sql) => sql.includes('"CallRecord"'))).toHaveLength(1);
    // The best of the newest 1,000 first, then equal ranks newest first.
    expect(first.data.map((record) => record.attempt)).toEqual([502, 1004, 1003, 1002, 1001]);
    expect(first.pagination).toEqual({ page: 1, limit: 5, total: 1003, total_pages: 201 });
    // Past the newest 1,000 (positions 1,000 to 1,002): by time, newest first; the best match overall is last.
    const last = await walrus(201, 5);
    expect(last.data.map((record) => record.attempt)).toEqual([4, 3, 2]);
    expect(last.pagination.total).toBe(1003);
    // A page across the bound: the last ranked ones, then the first by time.
    expect((await walrus(143, 7)).data.map((record) => record.attempt)).toEqual([10, 9, 8, 7, 6, 5, 4]);
    const { body } = await server.graphql(
      bulk.apiKey,
      `{ callRecords(search: "walrus", first: 2, after: "${Buffer.from('OffsetConnection:998').toString('base64')}") {
        totalCount nodes { attemptNumber } } }`,
    );
    expect(body.errors).toBeUndefined();
    expect(body.data.callRecords).toEqual({ totalCount: 1003, nodes: [{ attemptNumber: 5 }, { attemptNumber: 4 }] });
  });

  it("never shows another organization's records, even named by its agent or batch", async () => {
    const theirAgent = await find({ agent_id: theirs.agent_id });
    expect(theirAgent.body.data).toEqual([]);
    expect(ids((await find({ q: 'booked', batch_id: theirs.batch_id })).body)).toEqual([]);
    expect(ids((await find({ q: 'table' })).body)).not.toContain(theirs.id);
  });

  it('answers 400 naming the parameter for a bad filter, through REST and GraphQL', async () => {
    const refusals: [Record<string, string>, string][] = [
      [{ category: 'great' }, 'category'],
      [{ detection: 'fax' }, 'detection'],
      [{ from: 'yesterday' }, 'from'],
      [{ to: '2026-13-01T00:00:00Z' }, 'to'],
      [{ from: '2026-02-01T00:00:00Z', to: '2026-01-01T00:00:00Z' }, 'to'],
      [{ q: 'x'.repeat(201) }, 'q'],
      [{ size: '0' }, 'size'],
      [{ limit: '101' }, 'limit'],
    ];
    for (const [query, name] of refusals) {
      const refused = expectErrorBody(await find(query), 400);
      expect(JSON.stringify(refused.error), JSON.stringify(query)).toContain(`"${name}`);
    }
    const { body } = await server.graphql(apiKey, `{ callRecords(category: "great") { totalCount } }`);
    expect(body.errors[0].extensions.code).toBe('BAD_INPUT');
    expect(JSON.stringify(body.errors[0].extensions)).toContain('category');
  });

  it("reads a batch page's records through the loaders: as many statements for 2 runs as for 4", async () => {
    const page = async (batchId: string) =>
      recordStatements(server.db, async () => {
        const { body } = await server.graphql(
          apiKey,
          `query($id: ID!) { batch(id: $id) { name runs(first: 100) { nodes { id
            lastRecord { summary disposition { label category } detection { result } }
            callAttempts { number outcome record { transcript { role text } evaluations { score } } } } } } }`,
          { id: batchId },
        );
        expect(body.errors).toBeUndefined();
        return body.data.batch.runs.nodes as { lastRecord: unknown }[];
      });
    const four = await page(batches[0]!);
    const two = await page(batches[1]!);
    expect(four.result.filter((run) => run.lastRecord)).toHaveLength(4);
    expect(two.result.filter((run) => run.lastRecord)).toHaveLength(2);
    // The engine's own statements run beside the page's: only those reading attempts and records are counted.
    const reading = (statements: string[]) =>
      statements.filter((sql) => sql.includes('"CallRecord"') || sql.includes('"RunAttempt"'));
    expect(reading(four.statements)).toEqual(reading(two.statements));
    // One for the attempts of every run, one for their records, one for the runs' last records.
    expect(reading(four.statements).length).toBe(3);
  });
});
