// DateTime values read the same whichever way they reach the schema: as a
// Date (a row by id) or as the JSON text PostgreSQL writes in a page
// (json_agg, which drops the fraction's trailing zeros and is rewritten as
// text, src/schema/builder.ts): RFC 3339 UTC with three digits of milliseconds.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { flows } from './support/flows.ts';
import { startTestServer, type TestServer } from './support/server.ts';

const INSTANTS = [
  '2026-11-21T04:09:00.000Z',
  '2026-11-21T04:09:00.100Z',
  '2026-11-21T04:09:00.120Z',
  '2026-11-21T04:09:00.123Z',
  '2026-11-21T04:09:59.007Z',
];

describe('DateTime', () => {
  let server: TestServer;
  let api: ReturnType<typeof flows>;
  let workflowId: string;
  const batchIds: string[] = [];

  beforeAll(async () => {
    server = await startTestServer();
    const { apiKey } = await server.createOrganization('Instants');
    api = flows(server, apiKey);
    workflowId = await api.workflow([{ id: 'pause', type: 'wait', seconds: 1 }]);
    const prospectIds = await api.prospects(1);
    for (const instant of INSTANTS) {
      const batchId = await api.batch(workflowId, prospectIds);
      await server.db.sql.query(`UPDATE "Batch" SET "createdAt" = $1 WHERE id = $2`, [instant, batchId]);
      batchIds.push(batchId);
    }
  });
  afterAll(() => server.close());

  it('is written with three digits of milliseconds from a page and from a row alike', async () => {
    const page = await api.ok(`query($w: ID!) { workflow(id: $w) { batches(first: 10) { nodes { id createdAt } } } }`, {
      w: workflowId,
    });
    const fromPage = new Map(
      page.workflow.batches.nodes.map((batch: { id: string; createdAt: string }) => [batch.id, batch.createdAt]),
    );
    for (const [index, batchId] of batchIds.entries()) {
      const row = await api.ok(`query($id: ID!) { batch(id: $id) { createdAt } }`, { id: batchId });
      expect([fromPage.get(batchId), row.batch.createdAt]).toEqual([INSTANTS[index], INSTANTS[index]]);
    }
  });
});
