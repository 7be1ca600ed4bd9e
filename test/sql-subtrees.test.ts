// PostgreSQL writes connection subtrees (docs/sql-rendering.md): whatever a
// query selects over the connections, the answer's bytes are those the
// resolvers give. Two instances on one database, the resolvers' alone
// (GRAPHQL_SQL_SUBTREES=off), are asked the same generated queries, without
// the response cache (which leaves the renderer out).
import fc from 'fast-check';
import { parse, validate } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { planQuery } from '../src/graphql/sql-subtrees/plan.ts';
import { schema } from '../src/schema/index.ts';
import { startTestServer, type TestServer } from './support/server.ts';
import { recordStatements } from './support/statements.ts';

const noCache = { ttlMs: 0, maxEntries: 1 };

describe('connection subtrees written by PostgreSQL', () => {
  let rendered: TestServer;
  let resolved: TestServer;
  let apiKey: string;
  let otherApiKey: string;
  let workflowId: string;
  let otherWorkflowId: string;

  /** The answer's status and bytes. */
  async function ask(server: TestServer, query: string, variables: Record<string, unknown>, key = apiKey) {
    const response = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      body: JSON.stringify({ query, variables }),
    });
    return { status: response.status, text: await response.text() };
  }

  async function ok(key: string, query: string, variables: Record<string, unknown>) {
    const { body } = await rendered.graphql(key, query, variables);
    expect(body.errors).toBeUndefined();
    return body.data;
  }

  /** A workflow with batches of `sizes` runs, over prospects with unicode, empty and null members. */
  async function seed(key: string, sizes: number[]) {
    const { createWorkflow } = await ok(
      key,
      `mutation($input: WorkflowCreateInput!) { createWorkflow(input: $input) { id } }`,
      { input: { name: 'Dashboards', definition: { steps: [{ id: 'pause', type: 'wait', seconds: 1 }] } } },
    );
    await ok(
      key,
      `mutation($w: ID!, $input: WorkflowVersionCreateInput!) { publishWorkflowVersion(workflowId: $w, input: $input) { id } }`,
      { w: createWorkflow.id, input: { definition: { steps: [{ id: 'pause', type: 'wait', seconds: 2 }] } } },
    );
    const prospects = Array.from({ length: Math.max(...sizes) }, (_, index) => ({
      firstName: ['Zoë', '"quoted" \\ back', 'tab\there', '😀 emoji', 'line\nbreak', ''][index % 6],
      lastName: index % 3 === 0 ? '' : `Ł${index}\u2028`,
      ...(index % 2 ? { email: `p${index}@example.com`, timezone: 'Europe/Paris' } : {}),
      phone: `+1415555${String(index).padStart(4, '0')}`,
    }));
    const { createProspects } = await ok(
      key,
      `mutation($input: ProspectsCreateInput!) { createProspects(input: $input) { id } }`,
      { input: { prospects } },
    );
    const ids = createProspects.map((prospect: { id: string }) => prospect.id);
    for (const size of sizes)
      await ok(
        key,
        `mutation($w: ID!, $input: BatchCreateInput!) { createBatch(workflowId: $w, input: $input) { id } }`,
        {
          w: createWorkflow.id,
          input: { prospectIds: ids.slice(0, size) },
        },
      );
    return createWorkflow.id as string;
  }

  beforeAll(async () => {
    rendered = await startTestServer({ responseCache: noCache });
    resolved = await startTestServer({ responseCache: noCache, sharing: rendered, sqlSubtrees: false });
    ({ apiKey } = await rendered.createOrganization('Acme'));
    const other = await rendered.createOrganization('Globex');
    workflowId = await seed(apiKey, [3, 1, 5, 2]);
    otherApiKey = other.apiKey;
    otherWorkflowId = await seed(other.apiKey, [2]);
    // Runs in every state a page shows: started or not, ended, with an outcome, due again.
    await rendered.db.sql.query(
      `UPDATE "Run" SET "startedAt" = now() - (random() * interval '3 days'),
         "endedAt" = CASE WHEN random() < 0.5 THEN now() END, attempts = 1 + (random() * 3)::int,
         "lastOutcome" = 'no_answer', "nextAttemptAt" = now() + interval '1 hour'
       WHERE random() < 0.6`,
    );
    await rendered.db.sql.query(`UPDATE "Run" SET status = 'PAUSED' WHERE random() < 0.3`);
    // Call records on most runs' attempts (the last one is the run's lastRecord), each run's members
    // its own: numbers JavaScript and PostgreSQL write differently, unicode, JSON nulls, members absent.
    await rendered.db.sql.query(
      `INSERT INTO "RunAttempt" ("organizationId", "runId", "batchId", number, "stepId", "startedAt", "toNumber")
       SELECT r."organizationId", r.id, r."batchId", n, 'call', now(), '+14155550000'
       FROM (SELECT r.*, row_number() OVER (ORDER BY r.id) AS k FROM "Run" AS r) AS r, generate_series(1, 2) AS n
       WHERE k % 6 <> 0 AND n <= 1 + k % 2`,
    );
    await rendered.db.sql.query(
      `INSERT INTO "CallRecord" ("organizationId", "attemptId", "runId", "attemptNumber", "batchId", "agentId",
         summary, sentiment, "endedBy", detection, disposition, latency, transfer, "callbackAt", "updatedAt")
       SELECT a."organizationId", a.id, a."runId", a.number, a."batchId", 'agt_x',
         (ARRAY['Booked 😀 "Tue"', E'line\nbreak \\ ', NULL, ''])[1 + (k + a.number) % 4],
         (ARRAY[1e-5, -0.25, 1e-7, NULL, 1, -4.56e-5, 0.000123, 0.1, 0.3333333333333333, -0.0, 2.5e-10])[1 + k % 11],
         (ARRAY['agent', NULL])[1 + k % 2],
         (ARRAY['{"result":"human","confidence":0.95,"detected_ms":1200}', '{"result":"voicemail","confidence":1e-7,"detected_ms":0}',
                NULL, 'null', '{"result":"ivr","confidence":0.00005,"detected_ms":99}'])[1 + k % 5]::jsonb,
         (ARRAY['{"label":"Rendez-vous pris ✓","category":"success"}', NULL, '{"label":"\\u0007-bell \\"q\\"","category":"issue"}'])[1 + k % 3]::jsonb,
         (ARRAY['{"p50_ms":420,"p95_ms":1800}', NULL])[1 + k % 2]::jsonb,
         (ARRAY[NULL, '{"to":"+14155550100","mode":"cold","at":"2026-11-21T04:09:00Z","status":"failed","reason":null}'])[1 + k % 2]::jsonb,
         CASE WHEN k % 3 = 0 THEN now() END, now() - k * interval '1 second'
       FROM (SELECT a.*, dense_rank() OVER (ORDER BY a."runId") AS k FROM "RunAttempt" AS a) AS a`,
    );
  });
  afterAll(async () => {
    await resolved?.close();
    await rendered?.close();
  });

  const directive = fc.constantFrom(
    '',
    '',
    '',
    ' @include(if: true)',
    ' @skip(if: true)',
    ' @include(if: $yes)',
    ' @skip(if: $no)',
  );
  /**
   * A field (`head`: its name and arguments, then its selection set `body`),
   * maybe aliased (an alias of its own: two fields under one key must be the
   * same field), maybe under a directive.
   */
  const field = (head: string, body = '') =>
    fc
      .tuple(fc.constantFrom('', '', `${head.replace(/\W.*/, '')}2: `), directive)
      .map(([alias, directives]) => `${alias}${head}${directives}${body && ` { ${body} }`}`);
  /** Some of `members`, in any order, some inside inline fragments. */
  const selection = (type: string, members: fc.Arbitrary<string>[]) =>
    fc.tuple(fc.shuffledSubarray(members, { minLength: 1 }), fc.constantFrom(0, 0, 1, 2)).chain(([chosen, wrap]) =>
      fc.tuple(...chosen).map((texts) => {
        const inner = texts.join(' ');
        if (wrap === 1) return `... on ${type} { ${inner} }`;
        if (wrap === 2) return `... @include(if: $yes) { ${inner} } __typename`;
        return inner;
      }),
    );

  const cursor = (offset: number) => `"${Buffer.from(`OffsetConnection:${offset}`).toString('base64')}"`;
  const page = fc.constantFrom(
    '',
    '(first: 2)',
    '(first: 0)',
    '(first: $n)',
    `(first: 2, after: ${cursor(0)})`,
    `(last: 1, before: ${cursor(2)})`,
    '(last: 2)',
    '(first: 101)',
  );
  const connection = (node: fc.Arbitrary<string>, type: string, args: fc.Arbitrary<string>) =>
    fc.tuple(
      args,
      selection(type, [
        field('totalCount'),
        field('totalCount'),
        field('__typename'),
        field('pageInfo', 'hasNextPage hasPreviousPage startCursor endCursor'),
        node.chain((inner) => field('edges', `cursor node { ${inner} }`)),
        node.chain((inner) => field('nodes', inner)),
      ]),
    );
  /** A connection field `name` of `type`, its arguments from `args`, its nodes from `node`. */
  const connectionField = (name: string, node: fc.Arbitrary<string>, type: string, args: fc.Arbitrary<string>) =>
    connection(node, type, args).chain(([given, inner]) => field(`${name}${given}`, inner));

  // A field may be selected twice (under directives of its own): its key is where it first appears.
  const prospect = selection('Prospect', [
    field('id'),
    field('firstName'),
    field('firstName'),
    field('lastName'),
    field('email'),
    field('timezone'),
    field('createdAt'),
    fc.constant('...Person'),
    fc.constantFrom('...Person', '...Person @skip(if: true)'),
    field('__typename'),
    connectionField(
      'runs',
      selection('Run', [field('id'), field('status'), field('startedAt'), field('nextAttemptAt')]),
      'ProspectRunsConnection',
      page,
    ),
  ]);
  const record = selection('CallRecord', [
    field('id'),
    field('summary'),
    field('sentiment'),
    field('attemptNumber'),
    field('endedBy'),
    field('callbackAt'),
    field('updatedAt'),
    field('disposition', 'label category'),
    field('detection', 'confidence result detectedMs'),
    field('latency', 'p95Ms p50Ms'),
    field('transfer', 'at reason to'),
    fc.constantFrom('__typename', 'transcript { text }', 'data', 'detection { json }'),
  ]);
  const run = selection('Run', [
    field('id'),
    field('status'),
    field('status'),
    field('startedAt'),
    field('endedAt'),
    field('nextAttemptAt'),
    field('attempts'),
    field('lastOutcome'),
    prospect.chain((inner) => field('prospect', inner)),
    record.chain((inner) => field('lastRecord', inner)),
    fc.constantFrom('phone: prospectId', 'batchName', 'updatedAt', 'updatedAt'),
  ]);
  const runArgs = fc
    .tuple(
      page,
      fc.constantFrom(
        '',
        'orderBy: STARTED_ASC',
        'orderBy: STARTED_DESC',
        'orderBy: STATUS_ASC',
        'orderBy: STATUS_DESC',
      ),
      fc.constantFrom(
        '',
        'filter: { status: "PAUSED" }',
        'filter: { status: "PENDING" }',
        'filter: { startedAfter: "2000-01-01T00:00:00Z" }',
      ),
    )
    .map(([paging, ...rest]) => {
      const all = [paging.slice(1, -1), ...rest].filter(Boolean);
      return all.length ? `(${all.join(', ')})` : '';
    });
  const batch = selection('Batch', [
    field('id'),
    field('name'),
    field('status'),
    field('createdAt'),
    field('scheduledAt'),
    field('totalProspects'),
    field('stats', 'pendingCount pausedCount totalCount'),
    fc.constant('stats { ...Counts }'),
    fc.constantFrom('workflowVersionNumber', 'callsPerSecond', 'updatedAt', 'updatedAt'),
    connectionField('runs', run, 'BatchRunsConnection', runArgs),
  ]);
  const version = selection('WorkflowVersion', [
    field('id'),
    field('version'),
    field('createdAt'),
    field('createdBy'),
    field('workflowId'),
    fc.constantFrom('__typename', '__typename', 'definition'),
  ]);
  const query = fc
    .tuple(
      selection('Workflow', [
        connectionField('batches', batch, 'WorkflowBatchesConnection', page),
        connectionField('runs', run, 'WorkflowRunsConnection', runArgs),
        connectionField('versions', version, 'WorkflowVersionsConnection', page),
      ]),
      fc.constantFrom(false, false, false, true),
    )
    .map(([members, named]) =>
      named
        ? `query($w: ID!) { workflow(id: $w) { id ...W } } fragment W on Workflow { ${members} }`
        : `query($w: ID!) { workflow(id: $w) { name ${members} } }`,
    );

  /** The document with the variables and fragments it uses declared. */
  function document(text: string) {
    const variables = [
      ['yes', 'Boolean = true'],
      ['no', 'Boolean = false'],
      ['n', 'Int = 2'],
    ].filter(([name]) => new RegExp(`\\$${name}\\b`).test(text));
    const declared = text.replace(
      'query($w: ID!)',
      `query($w: ID!${variables.map(([name, type]) => `, $${name}: ${type}`).join('')})`,
    );
    const fragments = [
      ['Person', 'fragment Person on Prospect { firstName phone }'],
      ['Counts', 'fragment Counts on BatchStats { finishedCount totalCount }'],
    ].filter(([name]) => text.includes(`...${name}`));
    return [declared, ...fragments.map(([, definition]) => definition)].join(' ');
  }

  it('answers every generated selection byte for byte as the resolvers do', async () => {
    let written = 0;
    let asked = 0;
    await fc.assert(
      fc.asyncProperty(query, fc.constantFrom(false, false, false, true), async (text, foreign) => {
        const parsed = parse(document(text));
        // Every generated query is one the server executes: a query it refuses would test nothing.
        expect(validate(schema, parsed)).toEqual([]);
        const variables = { w: foreign ? otherWorkflowId : workflowId };
        asked += 1;
        if (planQuery(schema, parsed, undefined, variables, 'any')) written += 1;
        const [answer, expected] = await Promise.all([
          ask(rendered, document(text), variables),
          ask(resolved, document(text), variables),
        ]);
        expect(answer).toEqual(expected);
      }),
      { numRuns: 150 },
    );
    // And many are ones PostgreSQL writes (about 40%; the others hold a field it leaves to the resolvers).
    expect(written / asked).toBeGreaterThan(0.2);
  });

  it("writes a workflow's runs and versions, and its runs' prospects' runs, as the resolvers answer them", async () => {
    const text = `query($w: ID!) { workflow(id: $w) {
      versions { totalCount nodes { id version createdAt createdBy } }
      runs(first: 5, orderBy: STARTED_ASC) { totalCount pageInfo { hasNextPage endCursor } nodes { id startedAt
        prospect { firstName runs(first: 3) { totalCount edges { cursor node { id startedAt nextAttemptAt } } } } } }
      paused: runs(filter: { status: "PAUSED" }) { totalCount nodes { id status } } } }`;
    const { result: written, statements } = await recordStatements(rendered.db, () =>
      ask(rendered, text, { w: workflowId }),
    );
    expect(written).toEqual(await ask(resolved, text, { w: workflowId }));
    expect(JSON.parse(written.text).data.workflow.versions.totalCount).toBe(2);
    // After the workflow: its versions, its runs with their prospects' runs, its paused runs, one statement each.
    expect(statements.filter((statement) => statement.includes('string_agg'))).toHaveLength(3);
  });

  const dashboard = (
    records: string,
  ) => `query($w: ID!) { workflow(id: $w) { id name batches(first: 20) { edges { node {
    id name status stats { pendingCount inProgressCount pausedCount finishedCount cancelledCount failedCount totalCount }
    runs(first: 50) { edges { node { id status startedAt prospect { firstName lastName email phone } ${records} } } } } } } } }`;

  /** The answer of the dashboard query (with `records` in each run) by each path, and the statements of the written one. */
  async function askDashboard(records: string) {
    const { result: written, statements } = await recordStatements(rendered.db, () =>
      ask(rendered, dashboard(records), { w: workflowId }),
    );
    return { written, expected: await ask(resolved, dashboard(records), { w: workflowId }), statements };
  }

  it('answers the dashboard query with one statement for its batches and their runs', async () => {
    const { written, expected, statements } = await askDashboard('');
    expect(written).toEqual(expected);
    // The API key's lookup may be cached; the workflow, then its batches with their runs, written in one.
    expect(statements.filter((statement) => !statement.includes('"ApiKey"'))).toHaveLength(2);
    expect(statements.filter((statement) => statement.includes('string_agg'))).toHaveLength(1);
  });

  it("answers the dashboard with each run's last record in as many statements as without", async () => {
    const { written, expected, statements } = await askDashboard(
      'lastRecord { summary sentiment disposition { label category } detection { result confidence } }',
    );
    expect(written).toEqual(expected);
    const runs = JSON.parse(written.text).data.workflow.batches.edges.flatMap(
      (batch: { node: { runs: { edges: { node: { lastRecord: unknown } }[] } } }) => batch.node.runs.edges,
    );
    // Some runs have a record and some none.
    const records = runs.map((run: { node: { lastRecord: { detection: unknown } | null } }) => run.node.lastRecord);
    expect(records).toContain(null);
    expect(records.some((record: { detection: unknown } | null) => record?.detection)).toBe(true);
    expect(statements.filter((statement) => !statement.includes('"ApiKey"'))).toHaveLength(2);
    expect(statements.filter((statement) => statement.includes('string_agg'))).toHaveLength(1);
  });

  it("leaves a last record's members it cannot write to the resolvers", async () => {
    const { written, expected, statements } = await askDashboard('lastRecord { summary transcript { text } }');
    expect(written).toEqual(expected);
    expect(statements.filter((statement) => statement.includes('string_agg'))).toHaveLength(0);
  });

  it('answers each organization its own connections when they ask the same query with the same variables', async () => {
    // The plan of a query is kept between requests: the same text and variables from another organization
    // must not be answered with the statements made for the first.
    const query = `{ workflows(first: 10) { nodes { name batches(first: 10) { totalCount nodes { name runs(first: 2) { totalCount } } } } } }`;
    const answered = async (key: string) => {
      const { result, statements } = await recordStatements(rendered.db, () => ask(rendered, query, {}, key));
      // Written by PostgreSQL (not left to the resolvers), and as they would have answered it.
      expect(statements.some((statement) => statement.includes('string_agg'))).toBe(true);
      expect(result).toEqual(await ask(resolved, query, {}, key));
      return JSON.parse(result.text).data.workflows.nodes as { batches: { totalCount: number } }[];
    };
    for (let round = 0; round < 2; round++) {
      expect((await answered(apiKey)).map((workflow) => workflow.batches.totalCount)).toEqual([4]);
      expect((await answered(otherApiKey)).map((workflow) => workflow.batches.totalCount)).toEqual([1]);
    }
  });
});
