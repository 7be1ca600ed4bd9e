// A Relay application's queries: relay-compiler (from npm) compiles fragments
// nested six deep, with @connection (forwards and backwards) and @refetchable,
// against the schema the code builds. Its persisted queries are registered with
// `gateway persisted-operations import` and run by hash on a server in
// allow-list mode; they answer without errors, and page as Relay pages.
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { printedSchema } from '../scripts/print-schema.ts';
import { defaultGraphQLLimits } from '../src/config/request-limits.ts';
import { flows } from './support/flows.ts';
import { runCli } from './support/processes.ts';
import { startTestServer, type TestServer } from './support/server.ts';

/** The relay-compiler binary the npm package ships for this platform. */
const relayCompiler = createRequire(import.meta.url)('relay-compiler') as string;

const components = `
const graphql = (strings: TemplateStringsArray) => strings.join('');

export const dashboard = graphql\`
  query DashboardQuery($id: ID!) {
    workflow(id: $id) { name ...WorkflowBatches_workflow }
  }
\`;

export const workflowBatches = graphql\`
  fragment WorkflowBatches_workflow on Workflow
  @refetchable(queryName: "WorkflowBatchesPaginationQuery")
  @argumentDefinitions(count: { type: "Int", defaultValue: 2 }, cursor: { type: "String" }) {
    batches(first: $count, after: $cursor) @connection(key: "WorkflowBatches_batches") {
      totalCount
      edges { node { id ...BatchRow_batch } }
    }
  }
\`;

export const batchRow = graphql\`
  fragment BatchRow_batch on Batch {
    name status stats { totalCount }
    ...BatchRuns_batch
  }
\`;

export const batchRuns = graphql\`
  fragment BatchRuns_batch on Batch
  @refetchable(queryName: "BatchRunsPaginationQuery")
  @argumentDefinitions(last: { type: "Int", defaultValue: 2 }, before: { type: "String" }) {
    runs(last: $last, before: $before) @connection(key: "BatchRuns_runs") {
      edges { node { id ...RunRow_run } }
    }
  }
\`;

export const runRow = graphql\`
  fragment RunRow_run on Run {
    status startedAt
    prospect { ...ProspectCard_prospect }
  }
\`;

export const prospectCard = graphql\`
  fragment ProspectCard_prospect on Prospect {
    firstName phone
    ...ProspectTags_prospect
  }
\`;

export const prospectTags = graphql\`
  fragment ProspectTags_prospect on Prospect {
    tags { id name }
  }
\`;
`;

interface Edge<T> {
  cursor: string;
  node: T;
}

describe('a Relay client', () => {
  let project: string;
  /** Relay's persisted queries: operation name -> id (the SHA-256 of its text). */
  const ids = new Map<string, string>();
  let server: TestServer;
  let allowListOnly: TestServer;
  let apiKey: string;
  let workflowId: string;
  const batchIds: string[] = [];

  beforeAll(async () => {
    project = await mkdtemp(path.join(os.tmpdir(), 'relay-app-'));
    await mkdir(path.join(project, 'src'));
    await writeFile(path.join(project, 'schema.graphql'), printedSchema());
    await writeFile(path.join(project, 'src', 'Dashboard.ts'), components);
    // relay-compiler wants the persisted-queries file to exist; SHA-256 ids are the keys the gateway allows.
    await writeFile(path.join(project, 'persisted_queries.json'), '{}');
    await writeFile(
      path.join(project, 'relay.config.json'),
      JSON.stringify({
        src: './src',
        schema: './schema.graphql',
        language: 'typescript',
        persistConfig: { file: './persisted_queries.json', algorithm: 'SHA256' },
      }),
    );

    server = await startTestServer();
    ({ apiKey } = await server.createOrganization('Relay org'));
    const api = flows(server, apiKey);
    const tag = await api.ok(`mutation { createTag(input: { name: "vip" }) { id } }`);
    workflowId = await api.workflow([{ id: 'dial', type: 'call' }]);
    for (let batch = 0; batch < 2; batch += 1) {
      const prospects = await api.prospects(3);
      for (const prospectId of prospects) {
        await api.ok(
          `mutation($p: ID!, $t: [String!]!) { addTagsToProspect(prospectId: $p, input: { tagIds: $t }) { id } }`,
          {
            p: prospectId,
            t: [tag.createTag.id],
          },
        );
      }
      batchIds.push(await api.batch(workflowId, prospects));
    }
  });
  afterAll(async () => {
    await allowListOnly?.close();
    await server?.close();
  });

  it('compiles its fragments with relay-compiler against schema.graphql', { timeout: 60_000 }, async () => {
    await promisify(execFile)(relayCompiler, [], { cwd: project });
    const persisted = JSON.parse(await readFile(path.join(project, 'persisted_queries.json'), 'utf8')) as Record<
      string,
      string
    >;
    for (const [id, text] of Object.entries(persisted)) ids.set(/^query (\w+)/.exec(text)![1]!, id);
    expect([...ids.keys()].sort()).toEqual([
      'BatchRunsPaginationQuery',
      'DashboardQuery',
      'WorkflowBatchesPaginationQuery',
    ]);
    // The first backward page: `last` with no `before`, as Relay sends it.
    expect(persisted[ids.get('DashboardQuery')!]).toContain('runs(last: 2)');
  });

  it('registers its persisted queries with the gateway CLI', { timeout: 60_000 }, async () => {
    const allowList = path.join(project, 'allow-list.json');
    const imported = await runCli(
      [
        'persisted-operations',
        'import',
        '--manifest',
        path.join(project, 'persisted_queries.json'),
        '--out',
        allowList,
      ],
      {},
    );
    expect(imported).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(imported.stdout)).toMatchObject({ operations: 3, added: 3 });
    allowListOnly = await startTestServer({
      sharing: server,
      graphqlLimits: { ...defaultGraphQLLimits, persistedOnly: true, persistedOperationsFile: allowList },
    });
  });

  /** Runs a compiled query as Relay's network layer would: by its id, on the server that runs nothing else. */
  const run = async (name: string, variables: Record<string, unknown>) => {
    const response = await fetch(`${allowListOnly.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json', 'x-api-key': apiKey },
      body: JSON.stringify({ extensions: { persistedQuery: { version: 1, sha256Hash: ids.get(name) } }, variables }),
    });
    const body = await response.json();
    expect(body.errors).toBeUndefined();
    expect(response.status).toBe(200);
    return body.data;
  };

  /** The ids of a batch's runs in list order, read plainly. */
  const runsOf = async (batchId: string) => {
    const data = await flows(server, apiKey).ok(
      `query($id: ID!) { batch(id: $id) { runs(first: 100) { nodes { id } } } }`,
      { id: batchId },
    );
    return data.batch.runs.nodes.map((run: { id: string }) => run.id) as string[];
  };

  it('runs the query built of six nested fragments, each batch showing its last runs', async () => {
    const data = await run('DashboardQuery', { id: workflowId });
    const { batches } = data.workflow;
    expect(batches.totalCount).toBe(2);
    expect(batches.pageInfo).toEqual({ endCursor: batches.edges[1].cursor, hasNextPage: false });
    for (const { node: batch } of batches.edges as Edge<{
      id: string;
      runs: { edges: Edge<any>[]; pageInfo: any };
    }>[]) {
      const all = await runsOf(batch.id);
      expect(batch.runs.edges.map((edge) => edge.node.id)).toEqual(all.slice(-2));
      expect(batch.runs.pageInfo).toEqual({ hasPreviousPage: true, startCursor: batch.runs.edges[0]!.cursor });
      for (const { node: run } of batch.runs.edges) {
        expect(run).toMatchObject({ __typename: 'Run', status: 'PENDING', prospect: { tags: [{ name: 'vip' }] } });
      }
    }
  });

  it('pages forwards with the refetchable connection', async () => {
    const first = await run('WorkflowBatchesPaginationQuery', { id: workflowId, count: 1 });
    const second = await run('WorkflowBatchesPaginationQuery', {
      id: workflowId,
      count: 1,
      cursor: first.node.batches.pageInfo.endCursor,
    });
    const pages = [first, second].map((data) => data.node.batches);
    expect(pages.map((page) => page.pageInfo.hasNextPage)).toEqual([true, false]);
    expect(pages.flatMap((page) => page.edges.map((edge: Edge<{ id: string }>) => edge.node.id)).sort()).toEqual(
      [...batchIds].sort(),
    );
  });

  it('pages backwards from the end with the refetchable connection', async () => {
    const [batchId] = batchIds;
    const all = await runsOf(batchId!);
    const last = await run('BatchRunsPaginationQuery', { id: batchId, last: 2 });
    const before = await run('BatchRunsPaginationQuery', {
      id: batchId,
      last: 2,
      before: last.node.runs.pageInfo.startCursor,
    });
    const pages = [before, last].map((data) => data.node.runs);
    expect(pages.flatMap((page) => page.edges.map((edge: Edge<{ id: string }>) => edge.node.id))).toEqual(all);
    expect(pages.map((page) => page.pageInfo.hasPreviousPage)).toEqual([false, true]);
  });
});
