// A write's input is parsed once, by the adapter it came through: a REST body
// by the router (the GraphQL operation it runs hands the parsed body to the
// domain), GraphQL's input by its resolver. Counted on the input's own zod
// schema, through the real server.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { batchStatusUpdate } from '../src/domain/batches.ts';
import { prospectsCreate } from '../src/domain/prospects.ts';
import { workflowCreate } from '../src/domain/workflows.ts';
import { routes } from '../src/rest/routes/index.ts';
import { graphqlCalls } from './support/graphql.ts';
import { acmeAndGlobex, expectErrorBody, type restClient } from './support/rest.ts';
import { startTestServer, type TestServer } from './support/server.ts';

let server: TestServer;
let rest: ReturnType<typeof restClient>;
let apiKey: string;
const { ok, gql } = graphqlCalls(
  () => server,
  () => apiKey,
);

beforeAll(async () => {
  server = await startTestServer();
  ({ rest, apiKey } = await acmeAndGlobex(server));
});
afterAll(() => server.close());
afterEach(() => vi.restoreAllMocks());

/** How many times `schema` parses while `work` runs. */
async function parsesOf(schema: { safeParse: (...args: never[]) => unknown }, work: () => Promise<unknown>) {
  const spy = vi.spyOn(schema, 'safeParse');
  try {
    await work();
    return spy.mock.calls.length;
  } finally {
    spy.mockRestore();
  }
}

describe('a write is parsed once', () => {
  it('POST /workflows: by the router; createWorkflow: by its resolver', async () => {
    const body = { name: 'Once', definition: { steps: [] } };
    expect(
      await parsesOf(workflowCreate, async () =>
        expect((await rest('POST', '/org/{org}/workflows', { body })).status).toBe(201),
      ),
    ).toBe(1);
    expect(
      await parsesOf(workflowCreate, () =>
        ok('mutation($input: WorkflowCreateInput!) { createWorkflow(input: $input) { id } }', { input: body }),
      ),
    ).toBe(1);
  });

  it("POST /prospects: one prospect alone is read as a list of one by the route's body schema; the resolver takes that", async () => {
    const route = routes.find((row) => row.method === 'POST' && row.path === '/prospects')!;
    const counted = { body: vi.spyOn(route.body!, 'safeParse'), input: vi.spyOn(prospectsCreate, 'safeParse') };
    const created = await rest('POST', '/org/{org}/prospects', { body: { first_name: 'Solo', phone: '+14155550100' } });
    expect(created.body).toMatchObject({ count: 1, created: [{ first_name: 'Solo' }] });
    expect([counted.body.mock.calls.length, counted.input.mock.calls.length]).toEqual([1, 0]);
  });

  it('PATCH /batches/{id}: the status, an argument of the operation, parsed by the router only; GraphQL parses its own', async () => {
    const workflow = await rest('POST', '/org/{org}/workflows', { body: { name: 'W', definition: { steps: [] } } });
    const prospect = await rest('POST', '/org/{org}/prospects', { body: { phone: '+14155550100' } });
    const batch = await rest('POST', `/org/{org}/workflows/${workflow.body.id}/batches`, {
      body: { prospect_ids: [prospect.body.created[0].id], scheduled_at: '2099-01-01T00:00:00Z' },
    });
    const path = `/org/{org}/batches/${batch.body.id}`;
    expect(
      await parsesOf(batchStatusUpdate, async () =>
        expect((await rest('PATCH', path, { body: { status: 'PAUSED' } })).body.status).toBe('PAUSED'),
      ),
    ).toBe(1);
    // A status GraphQL takes but a client may not set is refused by the resolver's parse, as the router's would.
    const refused = await gql('mutation($id: ID!) { updateBatchStatus(id: $id, status: IN_PROGRESS) { id } }', {
      id: batch.body.id,
    });
    expect(refused.errors[0].extensions).toMatchObject({
      code: 'BAD_INPUT',
      detail: [{ path: 'status', rule: 'enum' }],
    });
    expect(expectErrorBody(await rest('PATCH', path, { body: { status: 'IN_PROGRESS' } }), 400).error).toEqual(
      refused.errors[0].extensions.detail,
    );
  });
});
