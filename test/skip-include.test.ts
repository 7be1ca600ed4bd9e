// @skip and @include as the spec's CollectFields gives them, whichever
// executor answers (queries run compiled by graphql-jit, which departs from
// the spec on these: compiled-execution.ts) and whether PostgreSQL writes the
// connection (sql-subtrees/fields.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { graphqlCalls } from './support/graphql.ts';
import { startTestServer, type TestServer } from './support/server.ts';

describe('GraphQL: @skip and @include', () => {
  let server: TestServer;
  let apiKey: string;
  let workflowId: string;
  const { ok } = graphqlCalls(
    () => server,
    () => apiKey,
  );

  beforeAll(async () => {
    server = await startTestServer();
    ({ apiKey } = await server.createOrganization('Acme'));
    const { createWorkflow } = await ok(
      `mutation($input: WorkflowCreateInput!) { createWorkflow(input: $input) { id } }`,
      { input: { name: 'Outbound', definition: { steps: [{ id: 'pause', type: 'wait', seconds: 1 }] } } },
    );
    workflowId = createWorkflow.id;
  });
  afterAll(() => server.close());

  /** The workflow's answer to `selection`, with `$s` true. */
  async function workflow(selection: string, fragments = '') {
    const data = await ok(`query($w: ID!, $s: Boolean!) { ${selection} } ${fragments}`, { w: workflowId, s: true });
    return data;
  }

  it("leaves out a left-out field's fragments when its key is selected again", async () => {
    const data = await workflow('workflow(id: $w) @skip(if: $s) { ... on Workflow { name } } workflow(id: $w) { id }');
    expect(data).toEqual({ workflow: { id: workflowId } });
    const nested = await workflow(
      `workflow(id: $w) { versions @skip(if: $s) { ... on WorkflowVersionsConnection { totalCount } }
        versions { nodes { version } } }`,
    );
    expect(nested).toEqual({ workflow: { versions: { nodes: [{ version: 1 }] } } });
  });

  it('orders a key where its first kept node is', async () => {
    const data = await workflow('workflow(id: $w) { name @skip(if: $s) id name }');
    expect(Object.keys(data.workflow)).toEqual(['id', 'name']);
  });

  it('reads a fragment spread again after a left-out spread', async () => {
    const data = await workflow(
      'workflow(id: $w) { ...Named @skip(if: $s) ...Named }',
      'fragment Named on Workflow { name }',
    );
    expect(data).toEqual({ workflow: { name: 'Outbound' } });
  });

  it('writes data before errors, as a query without them', async () => {
    const texts = await Promise.all(
      [
        ['query($w: ID!, $s: Boolean!)', 'name @skip(if: $s)'],
        ['query($w: ID!)', 'name'],
      ].map(async ([head, name]) => {
        const response = await fetch(`${server.url}/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
          body: JSON.stringify({
            query: `${head} { workflow(id: $w) { ${name} versions(first: 101) { totalCount } } }`,
            variables: { w: workflowId, s: true },
          }),
        });
        return response.text();
      }),
    );
    expect(texts[0]).toMatch(/^\{"data":\{"workflow":null\},"errors":/);
    expect(texts[1]).toMatch(/^\{"data":\{"workflow":null\},"errors":/);
  });
});
