// FEDERATION=on: the gateway as a subgraph, composed with a second, tiny
// subgraph (escalations that point at batches) and queried through a real
// router (Hive Gateway's runtime, over a supergraph composed by The Guild's
// composition library), across both subgraphs.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildSubgraphSchema } from '@apollo/subgraph';
import { createGatewayRuntime } from '@graphql-hive/gateway-runtime';
import httpTransport from '@graphql-mesh/transport-http';
import { composeServices } from '@theguild/federation-composition';
import { parse } from 'graphql';
import { createYoga } from 'graphql-yoga';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { graphqlCalls } from './support/graphql.ts';
import { startTestServer, type TestServer } from './support/server.ts';
import { recordStatements } from './support/statements.ts';

/** The second subgraph: escalations, each about a batch it names by id, which it extends with an SLA. */
const ESCALATIONS_SDL = /* GraphQL */ `
  extend schema @link(url: "https://specs.apollo.dev/federation/v2.6", import: ["@key"])
  type Query { escalations: [Escalation!]! }
  type Escalation { id: ID! reason: String! batch: Batch }
  type Batch @key(fields: "id") { id: ID! slaMinutes: Int! }
`;

interface Escalation {
  id: string;
  reason: string;
  batchId: string;
}

/** The escalations subgraph on a loopback port; `escalations` is what it answers. */
async function startEscalations(escalations: Escalation[]) {
  const schema = buildSubgraphSchema({
    typeDefs: parse(ESCALATIONS_SDL),
    resolvers: {
      Query: { escalations: () => escalations },
      Escalation: { batch: (escalation: Escalation) => ({ id: escalation.batchId, slaMinutes: 30 }) },
      Batch: { __resolveReference: (batch: { id: string }) => ({ id: batch.id, slaMinutes: 30 }) },
    } as never,
  });
  const yoga = createYoga({ schema, logging: false, graphqlEndpoint: '/graphql' });
  const server: Server = createServer(yoga);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/graphql`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('FEDERATION=on: a subgraph composed with another behind a router', () => {
  let server: TestServer;
  let escalationsServer: Awaited<ReturnType<typeof startEscalations>>;
  let router: ReturnType<typeof createGatewayRuntime>;
  let org: { organizationId: string; apiKey: string };
  let other: { organizationId: string; apiKey: string };
  const escalations: Escalation[] = [];
  const { ok } = graphqlCalls(
    () => server,
    () => org.apiKey,
  );

  async function newBatch(key: string, name: string) {
    const workflow = await ok(`mutation { createWorkflow(input: { name: "Fed" }) { id } }`, undefined, key);
    const prospects = await ok(
      `mutation { createProspects(input: { prospects: [{ firstName: "A" }] }) { id } }`,
      undefined,
      key,
    );
    const batch = await ok(
      `mutation($w: ID!, $n: String!, $ids: [String!]) { createBatch(workflowId: $w, input: { name: $n, prospectIds: $ids }) {
        id runs(first: 1) { nodes { id prospect { id } } } } }`,
      { w: workflow.createWorkflow.id, n: name, ids: prospects.createProspects.map((p: { id: string }) => p.id) },
      key,
    );
    return { workflowId: workflow.createWorkflow.id as string, ...batch.createBatch };
  }

  /** POSTs to the router with the caller's key, which it passes on to the subgraphs. */
  async function throughRouter(apiKey: string, query: string) {
    const response = await router.fetch('http://router/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
      body: JSON.stringify({ query }),
    });
    return (await response.json()) as { data?: any; errors?: unknown[] };
  }

  beforeAll(async () => {
    server = await startTestServer({ federation: true });
    org = await server.createOrganization();
    other = await server.createOrganization('Other');
    escalationsServer = await startEscalations(escalations);
    // The gateway's SDL as a router reads it from a running subgraph.
    const { _service } = await ok('{ _service { sdl } }');
    const composed = composeServices([
      { name: 'gateway', typeDefs: parse(_service.sdl), url: `${server.url}/graphql` },
      { name: 'escalations', typeDefs: parse(ESCALATIONS_SDL), url: escalationsServer.url },
    ]);
    if (composed.errors) throw new Error(composed.errors.map((error) => error.message).join('\n'));
    router = createGatewayRuntime({
      supergraph: composed.supergraphSdl,
      logging: false,
      // Given, not looked up: the runtime would import it by name when the first subgraph is called.
      transports: { http: httpTransport },
      propagateHeaders: { fromClientToSubgraphs: ({ request }) => ({ 'x-api-key': request.headers.get('x-api-key') }) },
    });
  });
  afterAll(async () => {
    await router?.dispose();
    await escalationsServer?.close();
    await server?.close();
  });

  it("answers a query across both subgraphs, the batches' references read in one statement", async () => {
    const first = await newBatch(org.apiKey, 'First');
    const second = await newBatch(org.apiKey, 'Second');
    escalations.splice(
      0,
      escalations.length,
      { id: 'e1', reason: 'slow', batchId: first.id },
      { id: 'e2', reason: 'stuck', batchId: second.id },
    );
    const { result, statements } = await recordStatements(server.db, () =>
      throughRouter(org.apiKey, '{ escalations { reason batch { id name status slaMinutes } } }'),
    );
    expect(result.errors).toBeUndefined();
    expect(result.data.escalations).toEqual([
      { reason: 'slow', batch: { id: first.id, name: 'First', status: 'PENDING', slaMinutes: 30 } },
      { reason: 'stuck', batch: { id: second.id, name: 'Second', status: 'PENDING', slaMinutes: 30 } },
    ]);
    // Both references through the batch loader: one statement for the two batches.
    expect(statements.filter((sql) => sql.includes('JOIN "Batch"'))).toHaveLength(1);
  });

  it("reads another organization's batch as null: references are confined to the caller's organization", async () => {
    const mine = await newBatch(org.apiKey, 'Mine');
    const theirs = await newBatch(other.apiKey, 'Theirs');
    escalations.splice(
      0,
      escalations.length,
      { id: 'e3', reason: 'mine', batchId: mine.id },
      { id: 'e4', reason: 'theirs', batchId: theirs.id },
    );
    const result = await throughRouter(org.apiKey, '{ escalations { reason batch { id name } } }');
    const byReason = Object.fromEntries(
      (result.data.escalations as { reason: string; batch: { name: string } | null }[]).map((e) => [e.reason, e.batch]),
    );
    expect(byReason.mine).toEqual({ id: mine.id, name: 'Mine' });
    expect(byReason.theirs ?? null).toBeNull();
    // And the other organization's key sees its own.
    const theirsSeen = await throughRouter(other.apiKey, '{ escalations { reason batch { name } } }');
    expect(
      (theirsSeen.data.escalations as { reason: string; batch: { name: string } | null }[]).find(
        (e) => e.reason === 'theirs',
      )?.batch,
    ).toEqual({ name: 'Theirs' });
  });

  it('resolves each entity type by id: Agent, Workflow, Batch, Run, Prospect, SipTrunk, PhoneNumber', async () => {
    const agent = await ok(`mutation { createAgent(input: { name: "Ava" }) { id } }`);
    const batch = await newBatch(org.apiKey, 'Entities');
    const run = batch.runs.nodes[0];
    const trunk = await ok(
      `mutation($input: SipTrunkCreateInput!) { createSipTrunk(input: $input) { outboundTrunk { id } phoneNumbers { id } } }`,
      { input: { name: 'Fed', address: 'sip.example.com', provider: 'twilio', phoneNumbers: ['+14155550123'] } },
    );
    const representations = [
      { __typename: 'Agent', id: agent.createAgent.id },
      { __typename: 'Workflow', id: batch.workflowId },
      { __typename: 'Batch', id: batch.id },
      { __typename: 'Run', id: run.id },
      { __typename: 'Prospect', id: run.prospect.id },
      { __typename: 'SipTrunk', id: trunk.createSipTrunk.outboundTrunk.id },
      { __typename: 'PhoneNumber', id: trunk.createSipTrunk.phoneNumbers[0].id },
    ];
    const query = `query($r: [_Any!]!) { _entities(representations: $r) { __typename ... on Node { id } } }`;
    const mine = await ok(query, { r: representations });
    expect(mine._entities).toEqual(representations);
    // Another organization's key reads every one of them as null.
    const theirs = await ok(query, { r: representations }, other.apiKey);
    expect(theirs._entities).toEqual(representations.map(() => null));
  });
});
