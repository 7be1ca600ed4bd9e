// Batch.recordBreakdown through the real server: a batch's call records
// counted by disposition and by detection, for a page of batches in one
// statement, the caller's organization's records alone.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { batchIn } from './support/batch-checks.ts';
import { flows } from './support/flows.ts';
import { restClient } from './support/rest.ts';
import { startTestServer, type TestServer } from './support/server.ts';
import { recordStatements } from './support/statements.ts';

const BREAKDOWN = `query Breakdowns { batches(first: 10) { nodes { id name
  recordBreakdown { records dispositions { label category count } detections { result count } } } } }`;

const demo = { label: 'demo booked', category: 'success' };
const declined = { label: 'not interested', category: 'neutral' };
const detected = (result: string) => ({ result, confidence: 0.9, detected_ms: 800 });

describe('Batch.recordBreakdown', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer({ engine: { callMs: 10, concurrency: 4, outcomes: { answered: 1 } } });
  });
  afterAll(() => server.close());

  /** A finished batch of the organization, and a record reported (after the call) for each of its runs in turn. */
  async function batchWithRecords(apiKey: string, organizationId: string, name: string, records: object[]) {
    const api = flows(server, apiKey);
    const batchId = await api.batch(
      await api.workflow([{ id: 'dial', type: 'call' }]),
      await api.prospects(records.length),
      {
        name,
      },
    );
    await batchIn(server.db, batchId, ['FINISHED']);
    const runs = await server.db.prisma.run.findMany({ where: { batchId }, orderBy: { id: 'asc' } });
    const rest = restClient(server, organizationId, apiKey);
    for (const [index, body] of records.entries()) {
      const reported = await rest('POST', `/org/{org}/runs/${runs[index]!.id}/attempts/1/record`, { body });
      expect(reported.status).toBe(200);
    }
    return batchId;
  }

  it('counts each batch of a page by disposition and detection, in one statement, most frequent first', async () => {
    const acme = await server.createOrganization('Acme');
    const renewals = await batchWithRecords(acme.apiKey, acme.organizationId, 'Renewals', [
      { disposition: declined, detection: detected('human') },
      { disposition: demo, detection: detected('human') },
      { disposition: demo, detection: detected('voicemail') },
      { summary: 'Analysis pending' },
    ]);
    await batchWithRecords(acme.apiKey, acme.organizationId, 'Screened', [
      { detection: detected('call_screening') },
      { detection: detected('ivr') },
    ]);
    const api = flows(server, acme.apiKey);
    const quiet = await api.batch(await api.workflow([{ id: 'dial', type: 'call' }]), await api.prospects(1), {
      name: 'Quiet',
    });
    await batchIn(server.db, quiet, ['FINISHED']);
    // Another organization's records, of the same labels, count for it alone.
    const globex = await server.createOrganization('Globex');
    const theirs = await batchWithRecords(globex.apiKey, globex.organizationId, 'Theirs', [
      { disposition: demo, detection: detected('human') },
    ]);

    const { result, statements } = await recordStatements(server.db, () => server.graphql(acme.apiKey, BREAKDOWN));
    expect(result.body.errors).toBeUndefined();
    const byName = Object.fromEntries(
      result.body.data.batches.nodes.map((batch: { name: string; recordBreakdown: unknown }) => [
        batch.name,
        batch.recordBreakdown,
      ]),
    );
    expect(byName).toEqual({
      Renewals: {
        records: 4,
        dispositions: [
          { ...demo, count: 2 },
          { ...declined, count: 1 },
        ],
        detections: [
          { result: 'human', count: 2 },
          { result: 'voicemail', count: 1 },
        ],
      },
      Screened: {
        records: 2,
        dispositions: [],
        detections: [
          { result: 'call_screening', count: 1 },
          { result: 'ivr', count: 1 },
        ],
      },
      Quiet: { records: 0, dispositions: [], detections: [] },
    });
    // Three batches, one statement on the records (the engine's own statements aside).
    expect(statements.filter((statement) => statement.includes('FROM "CallRecord"'))).toEqual([
      expect.stringContaining('GROUPING SETS'),
    ]);

    const { body: theirView } = await server.graphql(
      globex.apiKey,
      `query($id: ID!, $other: ID!) { batch(id: $id) { recordBreakdown { records dispositions { label count } } }
        other: batch(id: $other) { id } }`,
      { id: theirs, other: renewals },
    );
    expect(theirView.data).toEqual({
      batch: { recordBreakdown: { records: 1, dispositions: [{ label: 'demo booked', count: 1 }] } },
      other: null,
    });
  });
});
