// One tenant cannot make another wait: the work one GraphQL request may ask
// for is bounded before it starts. A noisy organization sends what a hostile
// tenant would (thousands of ids in variables, costs hidden in variables, lists
// and variables too large) and is refused before any SQL runs; a quiet one's
// requests, made between and beside them, keep their answers.
import { parse } from 'graphql';
import { createClient } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { defaultGraphQLLimits } from '../src/config/request-limits.ts';
import { consoleOperations } from '../src/console-operations/console-operations.ts';
import { measureOperation } from '../src/graphql/operation-cost.ts';
import { MAX_REQUEST_BODY_BYTES } from '../src/graphql/use-request-bodies.ts';
import { routes } from '../src/rest/routes/index.ts';
import { schema } from '../src/schema/index.ts';
import { MAX_PAGE_SIZE } from '../src/schema/pagination.ts';
import { flows } from './support/flows.ts';
import { restClient } from './support/rest.ts';
import { startTestServer, type TestServer } from './support/server.ts';
import { recordStatements } from './support/statements.ts';

type Body = { data?: any; errors?: { message: string; extensions?: Record<string, unknown> }[] };

/** What a refused document answers: 400, one error with the code, no data. */
const expectRefused = (response: { status: number; body: Body }, message: string | RegExp) => {
  expect(response.status).toBe(400);
  expect(response.body.data).toBeUndefined();
  expect(response.body.errors).toEqual([
    {
      message: typeof message === 'string' ? message : expect.stringMatching(message),
      extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
    },
  ]);
};

const madeUpIds = (count: number) =>
  Array.from({ length: count }, (_, index) => `${['agt', 'wf', 'bat', 'run', 'prs'][index % 5]}_${index}`);

const NODES = 'query Nodes($ids: [ID!]!) { nodes(ids: $ids) { id } }';

/** Four connections deep, each page `size` (a literal or a variable), with ids at every level. */
const fourLevels = (size: string, variables = '') => `query Deep${variables} {
  workflows(first: ${size}) { nodes { id batches(first: ${size}) { nodes { id runs(first: ${size}) { nodes { id
    prospect { runs(first: ${size}) { nodes { id } } } } } } } } } }`;
// 100 × (2 + 2 + 1 + 100 × (2 + 2 + 1 + 100 × (2 + 2 + 1 + 2 + 100 × (2 + 2 + 1)))): the answer's values.
const FOUR_LEVELS_COST = 507_050_500;

describe('GraphQL work per request, bounded before it starts', () => {
  let server: TestServer;
  let noisy: { organizationId: string; apiKey: string };
  let quiet: { organizationId: string; apiKey: string };
  let quietAgentId: string;
  const post = (apiKey: string, query: string, variables?: Record<string, unknown>) =>
    server.graphql(apiKey, query, variables);
  const noisyPost = (query: string, variables?: Record<string, unknown>) => post(noisy.apiKey, query, variables);

  /** The quiet organization's own data, read whole and right. */
  const QUIET_READ = `query Quiet($id: ID!) { organization { name } agents(first: 5) { totalCount nodes { id name } }
    node(id: $id) { id ... on Agent { name } } }`;
  const expectQuietAnswered = async () => {
    const { status, body } = await post(quiet.apiKey, QUIET_READ, { id: quietAgentId });
    expect(status).toBe(200);
    expect(body).toEqual({
      data: {
        organization: { name: 'Quiet' },
        agents: { totalCount: 1, nodes: [{ id: quietAgentId, name: 'Receptionist' }] },
        node: { id: quietAgentId, name: 'Receptionist' },
      },
    });
  };

  /** `work`'s response, with the SQL statements sent while it ran (the noisy key is cached: none about it). */
  const statementsOf = <T>(work: () => Promise<T>) => recordStatements(server.db, work);

  beforeAll(async () => {
    server = await startTestServer();
    await server.services.apiKeys.listening();
    noisy = await server.createOrganization('Noisy');
    quiet = await server.createOrganization('Quiet');
    quietAgentId = await flows(server, quiet.apiKey).agent({ name: 'Receptionist' });
    // The noisy key is read once here: the requests below send no statement about it.
    expect((await noisyPost('{ organization { id } }')).status).toBe(200);
  });
  afterAll(() => server.close());

  describe('nodes(ids:)', () => {
    for (const count of [3_000, 200_000]) {
      it(`refuses ${count.toLocaleString('en')} ids, naming the argument, before any SQL runs`, async () => {
        const ids = madeUpIds(count);
        const { result, statements } = await statementsOf(() => noisyPost(NODES, { ids }));
        expectRefused(result, `List limit of 100 exceeded by nodes(ids), found ${count}.`);
        expect(statements).toEqual([]);
        // Beside it, the quiet organization's requests are answered, whole and right.
        const [again] = await Promise.all([noisyPost(NODES, { ids }), expectQuietAnswered()]);
        expect(again.status).toBe(400);
      });
    }

    it('takes 100 ids, and refuses 101 written in the document too', async () => {
      const accepted = await noisyPost(NODES, { ids: madeUpIds(100) });
      expect(accepted.status).toBe(200);
      expect(accepted.body.data.nodes).toEqual(Array(100).fill(null));
      const literal = `{ nodes(ids: ${JSON.stringify(madeUpIds(101))}) { id } }`;
      expectRefused(await noisyPost(literal), 'List limit of 100 exceeded by nodes(ids), found 101.');
    });

    it("reads ids of mixed types in one statement per type, the caller's alone, in their order", async () => {
      const api = flows(server, noisy.apiKey);
      const [agentA, agentB] = [await api.agent({ name: 'A' }), await api.agent({ name: 'B' })];
      const workflowId = await api.workflow([{ id: 'pause', type: 'wait', seconds: 60 }]);
      const [prospectA, prospectB] = await api.prospects(2);
      const batchId = await api.batch(workflowId, [prospectA!, prospectB!]);
      const evaluation = await api.ok(
        'mutation($input: EvaluationCreateInput!) { createEvaluation(input: $input) { id databaseId } }',
        { input: { agentId: agentA, score: 90 } },
      );
      const ids = [
        agentA,
        workflowId,
        batchId,
        prospectA,
        evaluation.createEvaluation.id,
        agentB,
        quietAgentId, // another organization's: null
        'agt_made_up', // none: null
        'evl_not_a_number', // none: null
        prospectB,
        batchId, // twice: the same object twice
      ];
      const query = `query Mixed($ids: [ID!]!) { nodes(ids: $ids) { __typename id
        ... on Agent { name } ... on Workflow { name } ... on Batch { status } ... on Prospect { firstName }
        ... on Evaluation { databaseId score } } }`;
      const { result, statements } = await statementsOf(() => noisyPost(query, { ids }));
      expect(result.body.errors).toBeUndefined();
      expect(result.body.data.nodes).toEqual([
        { __typename: 'Agent', id: agentA, name: 'A' },
        { __typename: 'Workflow', id: workflowId, name: 'Engine test' },
        { __typename: 'Batch', id: batchId, status: 'PENDING' },
        { __typename: 'Prospect', id: prospectA, firstName: 'P0' },
        { __typename: 'Evaluation', ...evaluation.createEvaluation, score: 90 },
        { __typename: 'Agent', id: agentB, name: 'B' },
        null,
        null,
        null,
        { __typename: 'Prospect', id: prospectB, firstName: 'P1' },
        { __typename: 'Batch', id: batchId, status: 'PENDING' },
      ]);
      // Five types, five statements: each reads its ids at once, confined to the caller's organization.
      const tablesOf = (sent: string[]) =>
        sent.map((statement) => /FROM "public"\."(\w+)"/.exec(statement)?.[1]).sort();
      expect(tablesOf(statements)).toEqual(['Agent', 'Batch', 'Evaluation', 'Prospect', 'Workflow']);
      for (const statement of statements) {
        expect(statement).toMatch(/"id" IN \(\$(?:n|…)\) AND "public"\."\w+"\."organizationId" = \$n\)/);
      }
      // As many ids again of each type read in as many statements: the count follows the types, not the ids.
      const more = await statementsOf(() => noisyPost(query, { ids: [...ids, ...madeUpIds(80)] }));
      expect(more.result.status).toBe(200);
      expect(tablesOf(more.statements)).toEqual(['Agent', 'Batch', 'Evaluation', 'Prospect', 'Run', 'Workflow']);
    });
  });

  describe('cost', () => {
    const refusedAt = (cost: number) => `Query Cost limit of ${defaultGraphQLLimits.maxCost} exceeded, found ${cost}.`;

    it('costs `first: $n` as `first: 100`: the same query refused the same way, before any SQL runs', async () => {
      const literal = await statementsOf(() => noisyPost(fourLevels('100')));
      expectRefused(literal.result, refusedAt(FOUR_LEVELS_COST));
      const variable = await statementsOf(() => noisyPost(fourLevels('$n', '($n: Int)'), { n: 100 }));
      expectRefused(variable.result, refusedAt(FOUR_LEVELS_COST));
      // A variable left to its default counts its default.
      expectRefused(await noisyPost(fourLevels('$n', '($n: Int = 100)')), refusedAt(FOUR_LEVELS_COST));
      expect([...literal.statements, ...variable.statements]).toEqual([]);
      await expectQuietAnswered();
    });

    it('costs a connection without `first` or `last` at the default page size, 20', async () => {
      const bare = `{ workflows { nodes { batches { nodes { runs { nodes { prospect { runs { nodes { id } } } } } } } } } }`;
      const twenty = `{ workflows(first: 20) { nodes { batches(first: 20) { nodes { runs(first: 20) { nodes {
        prospect { runs(first: 20) { nodes { id } } } } } } } } } }`;
      // 20 × (2 + 2 + 20 × (2 + 2 + 20 × (2 + 2 + 2 + 20 × (2 + 2 + 1)))).
      expectRefused(await noisyPost(bare), refusedAt(849_680));
      expectRefused(await noisyPost(twenty), refusedAt(849_680));
      // The pages it would answer: 20 when neither is given.
      const accepted = await noisyPost('{ workflows { nodes { batches { totalCount } } } }');
      expect(accepted.body.errors).toBeUndefined();
    });

    it('costs a page over the largest as the largest: the connection refuses it itself', async () => {
      const response = await noisyPost('query($n: Int) { agents(first: $n) { nodes { id } } }', { n: 1_000_000 });
      expect(response.body.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_INPUT' });
    });

    it('costs fragments as the fields they hold, and `nodes` by its ids', () => {
      const cost = (text: string, variables?: Record<string, unknown>) =>
        measureOperation(schema, parse(text), undefined, variables);
      const written = '{ agents(first: 10) { nodes { id name tools { id } } } }';
      const spread = `{ agents(first: 10) { ...A } } fragment A on QueryAgentsConnection { nodes { ...B } }
        fragment B on Agent { id ... on Agent { name tools { id } } }`;
      // 10 × (2 + 2 + 1 + 1 + 2 + 1)
      expect(cost(written)).toEqual({ cost: 90 });
      expect(cost(spread)).toEqual({ cost: 90 });
      expect(cost(NODES, { ids: madeUpIds(7) })).toEqual({ cost: 7 * 3 });
      expect(cost('{ __schema { types { name } } __typename }')).toEqual({ cost: 1 });
    });

    it('fits every operation the gateway runs itself (REST routes, the console) at its largest pages', () => {
      const texts = [...routes.flatMap((route) => route.operation ?? []), ...consoleOperations.map((op) => op.text)];
      expect(texts.length).toBeGreaterThan(50);
      for (const text of texts) {
        const largest = { first: MAX_PAGE_SIZE, last: MAX_PAGE_SIZE };
        const { cost } = measureOperation(schema, parse(text), undefined, largest) as { cost: number };
        expect({ text, cost: cost <= defaultGraphQLLimits.maxCost }).toEqual({ text, cost: true });
      }
    });
  });

  describe('lists and variables', () => {
    const CREATE_AGENT = 'mutation($input: AgentCreateInput!) { createAgent(input: $input) { id } }';
    const agentCount = async () => (await noisyPost('{ agents { totalCount } }')).body.data.agents.totalCount;

    it('caps every list that has no bound of its own, at any depth, naming where it is', async () => {
      const before = await agentCount();
      const words = (count: number) => Array.from({ length: count }, (_, index) => `word${index}`);
      const keywords = (count: number) => ({
        name: 'Listener',
        transcriberConfig: { provider: 'deepgram', keywords: words(count) },
      });
      const { result, statements } = await statementsOf(() => noisyPost(CREATE_AGENT, { input: keywords(101) }));
      expectRefused(result, 'List limit of 100 exceeded by createAgent(input.transcriberConfig.keywords), found 101.');
      expect(statements).toEqual([]);
      const nested = {
        name: 'Fallbacks',
        llmConfig: {
          provider: 'openai',
          model: 'm',
          fallbacks: [
            { provider: 'openai', model: 'n', fallbacks: words(101).map((model) => ({ provider: 'openai', model })) },
          ],
        },
      };
      expectRefused(
        await noisyPost(CREATE_AGENT, { input: nested }),
        'List limit of 100 exceeded by createAgent(input.llmConfig.fallbacks.0.fallbacks), found 101.',
      );
      expect(await agentCount()).toBe(before);
      expect((await noisyPost(CREATE_AGENT, { input: keywords(100) })).body.errors).toBeUndefined();
    });

    it("leaves a list with a bound of its own to it: the domain's refusal, naming the member", async () => {
      const agentId = await flows(server, noisy.apiKey).agent();
      const tools = Array.from({ length: 101 }, (_, index) => ({ name: `tool${index}` }));
      const setTools = await noisyPost(
        'mutation($a: ID!, $t: [AgentToolInput!]!) { setAgentTools(agentId: $a, tools: $t) { id } }',
        { a: agentId, t: tools },
      );
      expect(setTools.body.errors?.[0]?.extensions).toMatchObject({
        code: 'BAD_INPUT',
        detail: [expect.objectContaining({ path: 'tools' })],
      });
      // 101 prospect ids fit the list's own bound (10,000): the domain finds them unknown.
      const list = await noisyPost(
        'mutation($input: ProspectListCreateInput!) { createProspectList(input: $input) { id } }',
        {
          input: { name: 'Unknowns', prospectIds: madeUpIds(101).map((_, index) => `prs_${index}`) },
        },
      );
      expect(list.body.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_INPUT' });
    });

    it('refuses variables larger than 8 MiB before they are read, whatever they hold', async () => {
      const before = await agentCount();
      const huge = 'x'.repeat(defaultGraphQLLimits.maxVariablesBytes);
      const { result, statements } = await statementsOf(() => noisyPost(CREATE_AGENT, { input: { name: huge } }));
      expectRefused(result, `Variables size limit of ${defaultGraphQLLimits.maxVariablesBytes} bytes exceeded.`);
      expect(statements).toEqual([]);
      expect(await agentCount()).toBe(before);
      await expectQuietAnswered();
    });

    it('counts the variables as their compact JSON: a limit of N bytes takes N and refuses N + 1', async () => {
      const small = await startTestServer({ graphqlLimits: { ...defaultGraphQLLimits, maxVariablesBytes: 64 } });
      try {
        const { apiKey } = await small.createOrganization();
        const query = 'query($id: ID!) { node(id: $id) { id } }';
        // {"id":"…"}: 9 bytes around the id; "é" is 2 bytes of UTF-8.
        const fits = await small.graphql(apiKey, query, { id: `agt_${'é'.repeat(25)}${'x'.repeat(1)}` });
        expect(fits.body).toEqual({ data: { node: null } });
        const over = await small.graphql(apiKey, query, { id: `agt_${'é'.repeat(25)}${'x'.repeat(2)}` });
        expectRefused(over, 'Variables size limit of 64 bytes exceeded.');
      } finally {
        await small.close();
      }
    });
  });

  describe('on every transport', () => {
    const fourLevelsOfRuns = (
      size: string,
      variables = '',
    ) => `subscription Deep${variables} { batchProgress(batchId: "bat_x") {
      batch { runs(first: ${size}) { nodes { prospect { runs(first: ${size}) { nodes { batch { runs(first: ${size}) {
        nodes { id } } } } } } } } } } }`;
    // 2 + 2 + 100 × (2 + 2 + 2 + 100 × (2 + 2 + 2 + 100 × (2 + 2 + 1))).
    const DEEP_SUBSCRIPTION_COST = 5_060_604;

    it('over graphql-ws: queries and subscriptions, refused as over HTTP', async () => {
      const client = createClient({
        url: `${server.url.replace('http', 'ws')}/graphql`,
        webSocketImpl: WebSocket,
        connectionParams: { 'x-api-key': noisy.apiKey },
        retryAttempts: 0,
      });
      const run = (query: string, variables?: Record<string, unknown>) =>
        new Promise<Body>((resolve) => {
          client.subscribe(
            { query, variables },
            {
              next: (result) => resolve(result as Body),
              error: (errors) => resolve({ errors: errors as Body['errors'] }),
              complete: () => {},
            },
          );
        });
      try {
        const nodes = await run(NODES, { ids: madeUpIds(3_000) });
        expect(nodes.errors?.map((error) => error.message)).toEqual([
          'List limit of 100 exceeded by nodes(ids), found 3000.',
        ]);
        const deep = await run(fourLevels('$n', '($n: Int)'), { n: 100 });
        expect(deep.errors?.[0]?.message).toBe(
          `Query Cost limit of ${defaultGraphQLLimits.maxCost} exceeded, found ${FOUR_LEVELS_COST}.`,
        );
        const subscription = await run(fourLevelsOfRuns('$n', '($n: Int)'), { n: 100 });
        expect(subscription.errors?.[0]?.message).toBe(
          `Query Cost limit of ${defaultGraphQLLimits.maxCost} exceeded, found ${DEEP_SUBSCRIPTION_COST}.`,
        );
        const nested = await run('query($v: JSON) { __typename }', {
          v: JSON.parse(`${'['.repeat(100)}${']'.repeat(100)}`),
        });
        expect(nested.errors?.[0]).toMatchObject({ extensions: { code: 'BAD_INPUT' } });
        // A message larger than a /graphql body is not read: the connection is closed (1009, message too big).
        const huge = await run(NODES, { ids: ['x'.repeat(MAX_REQUEST_BODY_BYTES)] });
        expect(huge.errors).toMatchObject({ code: 1009 });
      } finally {
        await client.dispose();
      }
      await expectQuietAnswered();
    });

    it('over SSE: a subscription written with variables is refused as the literal one', async () => {
      const events = async (query: string, variables?: Record<string, unknown>) => {
        const response = await fetch(`${server.url}/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'x-api-key': noisy.apiKey },
          body: JSON.stringify({ query, variables }),
        });
        return (await response.text()).match(/^data: (.+)$/gm)?.map((line) => JSON.parse(line.slice('data: '.length)));
      };
      const refusal = [
        {
          errors: [
            {
              message: `Query Cost limit of ${defaultGraphQLLimits.maxCost} exceeded, found ${DEEP_SUBSCRIPTION_COST}.`,
              extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
            },
          ],
        },
      ];
      expect(await events(fourLevelsOfRuns('100'))).toEqual(refusal);
      expect(await events(fourLevelsOfRuns('$n', '($n: Int)'), { n: 100 })).toEqual(refusal);
    });

    it('through REST: an over-long list in a body is a 400 with the error body; bulk creates still go through', async () => {
      const rest = restClient(server, noisy.organizationId, noisy.apiKey);
      const words = Array.from({ length: 101 }, (_, index) => `word${index}`);
      const refused = await rest('POST', '/org/{org}/agents', {
        body: { name: 'Listener', transcriber_config: { provider: 'deepgram', keywords: words } },
      });
      expect(refused.status).toBe(400);
      expect(refused.body).toMatchObject({
        status: false,
        message: 'List limit of 100 exceeded by createAgent(input.transcriberConfig.keywords), found 101.',
        data: null,
      });
      const numbers = Array.from({ length: 1_000 }, (_, index) => `+1650${String(index).padStart(7, '0')}`);
      const trunk = await rest('POST', '/org/{org}/sip-trunks', {
        body: { name: 'Bulk', provider: 'twilio', address: 'sip.example.com', phone_numbers: numbers },
      });
      expect(trunk.status).toBe(201);
    });
  });
});
