// Backward pagination on every connection of the schema, as Relay does it:
// `last: N` with no `before` is the last N items of the whole list, and
// `before` the page's start cursor goes on backwards from there.
import { type GraphQLObjectType, getNamedType, isObjectType } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { schema } from '../src/schema/index.ts';
import { endedAttempt } from './support/ended-attempts.ts';
import { flows } from './support/flows.ts';
import { startTestServer, type TestServer } from './support/server.ts';

/** How one connection is reached: the query's arguments and variables, and the path from `data` to it. */
interface Reach {
  /** The query's selection, with `CONNECTION` where the connection field and its arguments go. */
  selection: string;
  variables: Record<string, unknown>;
  /** Field names from `data` down to the connection's parent. */
  path: string[];
}

/** The field that tells a connection's items apart: `id`, or `number` for the do-not-call list (no ids). */
function keyOf(coordinate: string): string {
  const [typeName, fieldName] = coordinate.split('.') as [string, string];
  const connection = getNamedType(
    (schema.getType(typeName) as GraphQLObjectType).getFields()[fieldName]!.type,
  ) as GraphQLObjectType;
  const item = getNamedType(connection.getFields().nodes!.type) as GraphQLObjectType;
  return 'id' in item.getFields() ? 'id' : 'number';
}

const variableTypes: Record<string, string> = {
  parent: 'ID!',
  workflowId: 'ID!',
  agentId: 'ID!',
  first: 'Int',
  last: 'Int',
  before: 'String',
  after: 'String',
};

/** Every connection field of the schema, as `Type.field`. */
const connectionFields = () =>
  Object.values(schema.getTypeMap())
    .filter(isObjectType)
    .filter((type) => !type.name.startsWith('__'))
    .flatMap((type) =>
      Object.values(type.getFields())
        .filter(
          (field) =>
            getNamedType(field.type).name.endsWith('Connection') && field.args.some((arg) => arg.name === 'last'),
        )
        .map((field) => `${type.name}.${field.name}`),
    );

describe('backward pagination on every connection', () => {
  let server: TestServer;
  let apiKey: string;
  const reaches = new Map<string, Reach>();

  beforeAll(async () => {
    server = await startTestServer();
    ({ apiKey } = await server.createOrganization('Pages'));
    const api = flows(server, apiKey);
    const { ok } = api;
    const node = (type: string, id: string): Reach => ({
      selection: `node(id: $parent) { ... on ${type} { CONNECTION } }`,
      variables: { parent: id },
      path: ['node'],
    });
    // Root connections take their own arguments (ids) besides the page's.
    const root = (variables: Record<string, string> = {}): Reach => ({
      selection: 'CONNECTION',
      variables,
      path: [],
    });

    // Three of everything, and each nested list holding three.
    const workflowId = await api.workflow([{ id: 'dial', type: 'call' }]);
    await api.workflow([{ id: 'dial', type: 'call' }]);
    await api.workflow([{ id: 'dial', type: 'call' }]);
    for (let version = 0; version < 2; version += 1) {
      await ok(
        `mutation($w: ID!) { publishWorkflowVersion(workflowId: $w, input: { definition: { steps: [{ id: "pause", type: "wait", seconds: 1 }] } }) { id } }`,
        { w: workflowId },
      );
    }
    const prospectIds = await api.prospects(3);
    const batchIds: string[] = [];
    for (let batch = 0; batch < 3; batch += 1) batchIds.push(await api.batch(workflowId, prospectIds));
    // Three call records: attempts ended as the engine ends them, their records reported after the call.
    for (const run of await server.db.prisma.run.findMany({ where: { batchId: batchIds[0] } })) {
      await endedAttempt(server.db, run.id, 'answered', '2026-11-02T10:00:00Z');
      await ok(`mutation($r: ID!) { reportCallRecord(runId: $r, attempt: 1, input: { summary: "Spoke" }) { id } }`, {
        r: run.id,
      });
    }
    for (const name of ['a', 'b', 'c'])
      await ok(`mutation($n: String!) { createTag(input: { name: $n }) { id } }`, { n: name });
    let listId = '';
    for (const name of ['one', 'two', 'three']) {
      listId = (
        await ok(
          `mutation($n: String!, $p: [String!]) { createProspectList(input: { name: $n, prospectIds: $p }) { id } }`,
          { n: name, p: prospectIds },
        )
      ).createProspectList.id;
    }
    let agentId = '';
    for (const name of ['A', 'B', 'C'])
      agentId = (await ok(`mutation($n: String!) { createAgent(input: { name: $n }) { id } }`, { n: name })).createAgent
        .id;
    for (const score of [10, 20, 30]) {
      await ok(`mutation($a: String!, $s: Int!) { createEvaluation(input: { agentId: $a, score: $s }) { id } }`, {
        a: agentId,
        s: score,
      });
    }
    const connections = [
      { slug: 'hubspot', credentials: { private_app_token: 't' } },
      { slug: 'pipedrive', credentials: { company_domain: 'acme', api_token: 't' } },
      { slug: 'slack', credentials: { bot_token: 'xoxb-t' } },
    ];
    for (const input of connections)
      await ok(`mutation($i: ConnectIntegrationInput!) { connectIntegration(input: $i) { id } }`, { i: input });
    for (const name of ['North', 'South']) {
      await ok(`mutation($i: SipTrunkCreateInput!) { createSipTrunk(input: $i) { inboundTrunk { id } } }`, {
        i: {
          name,
          address: 'sip.example.com',
          provider: 'twilio',
          phoneNumbers: [
            `+1415555${name === 'North' ? '0101' : '0102'}`,
            `+1415555${name === 'North' ? '0103' : '0104'}`,
          ],
        },
      });
    }
    for (const day of ['2026-11-01', '2026-11-02', '2026-11-03']) {
      await ok(`mutation($d: Date!) { generateInsight(periodStart: $d, periodEnd: $d) { id } }`, { d: day });
    }
    await ok(
      `mutation { addDoNotCallNumbers(input: { numbers: ["+14155550199", "+14155550198", "+14155550197"] }) { count } }`,
    );
    let endpointId = '';
    for (const path of ['one', 'two', 'three']) {
      endpointId = (
        await ok(`mutation($i: WebhookEndpointCreateInput!) { createWebhookEndpoint(input: $i) { endpoint { id } } }`, {
          i: { url: `http://127.0.0.1:9/${path}`, events: ['agent.updated'] },
        })
      ).createWebhookEndpoint.endpoint.id;
    }
    // Three events for the last endpoint: three deliveries.
    for (const name of ['X', 'Y', 'Z'])
      await ok(`mutation($id: ID!, $n: String!) { updateAgent(id: $id, input: { name: $n }) { id } }`, {
        id: agentId,
        n: name,
      });

    const covered: Record<string, Reach> = {
      'Query.workflows': root(),
      'Query.agents': root(),
      'Query.evaluations': root({ agentId }),
      'Query.runs': root({ workflowId }),
      'Query.prospects': root(),
      'Query.prospectLists': root(),
      'Query.tags': root(),
      'Query.integrations': root(),
      'Query.connectedIntegrations': root(),
      'Query.sipTrunks': root(),
      'Query.phoneNumbers': root(),
      'Query.insights': root(),
      'Query.doNotCallNumbers': root(),
      'Query.batches': root(),
      'Query.callRecords': root(),
      // The writes above appended their audit events.
      'Query.auditEvents': root(),
      'Query.webhookEndpoints': root(),
      'WebhookEndpoint.deliveries': node('WebhookEndpoint', endpointId),
      'Workflow.versions': node('Workflow', workflowId),
      'Workflow.batches': node('Workflow', workflowId),
      'Workflow.runs': node('Workflow', workflowId),
      'Batch.runs': node('Batch', batchIds[0]!),
      'Prospect.runs': node('Prospect', prospectIds[0]!),
      'ProspectList.prospects': node('ProspectList', listId),
      'Agent.evaluations': node('Agent', agentId),
    };
    for (const [field, reach] of Object.entries(covered)) reaches.set(field, reach);
  });
  afterAll(() => server.close());

  it('covers every connection of the schema', () => {
    expect([...reaches.keys()].sort()).toEqual(connectionFields().sort());
  });

  it('gives the last items of the whole list, then the ones before them', async () => {
    for (const [coordinate, reach] of reaches) {
      const field = coordinate.split('.')[1]!;
      const rootArguments = Object.keys(reach.variables)
        .filter((name) => name !== 'parent')
        .map((name) => `${name}: $${name}, `)
        .join('');
      const page = async (pageArguments: string, pageVariables: Record<string, unknown>) => {
        const variables = { ...reach.variables, ...pageVariables };
        const declarations = Object.keys(variables).map((name) => `$${name}: ${variableTypes[name]}`);
        const selection = reach.selection.replace(
          'CONNECTION',
          `${field}(${rootArguments}${pageArguments}) { totalCount pageInfo { hasPreviousPage hasNextPage startCursor endCursor } edges { cursor node { ${keyOf(coordinate)} } } }`,
        );
        const { body } = await server.graphql(apiKey, `query(${declarations.join(', ')}) { ${selection} }`, variables);
        expect(body.errors, coordinate).toBeUndefined();
        const connection = reach.path.reduce((value, name) => value[name], body.data)[field];
        return {
          keys: connection.edges.map(
            (edge: { node: Record<string, string> }) => Object.values(edge.node)[0],
          ) as string[],
          totalCount: connection.totalCount as number,
          pageInfo: connection.pageInfo,
          cursors: connection.edges.map((edge: { cursor: string }) => edge.cursor) as string[],
        };
      };
      const all = await page('first: $first', { first: 100 });
      expect(all.keys.length, coordinate).toBeGreaterThanOrEqual(3);
      const last = await page('last: $last', { last: 2 });
      expect(last.keys, coordinate).toEqual(all.keys.slice(-2));
      expect(last.totalCount, coordinate).toBe(all.totalCount);
      expect(last.pageInfo, coordinate).toMatchObject({
        hasPreviousPage: true,
        hasNextPage: false,
        startCursor: last.cursors[0],
      });
      const before = await page('last: $last, before: $before', { last: 2, before: last.pageInfo.startCursor });
      expect(before.keys, coordinate).toEqual(all.keys.slice(-4, -2));
      const afterFirst = await page('last: $last, after: $after', { last: 2, after: all.cursors[0] });
      expect(afterFirst.keys, coordinate).toEqual(all.keys.slice(-2));
    }
  });
});
