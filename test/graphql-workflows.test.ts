import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { graphqlCalls } from './support/graphql.ts';
import { startTestServer, type TestServer } from './support/server.ts';
import { recordStatements } from './support/statements.ts';

describe('GraphQL: workflows, versions, prospects, batches and runs', () => {
  let server: TestServer;
  let apiKey: string;
  let other: { apiKey: string };
  const { gql, ok } = graphqlCalls(
    () => server,
    () => apiKey,
  );

  beforeAll(async () => {
    server = await startTestServer();
    ({ apiKey } = await server.createOrganization('Acme'));
    other = await server.createOrganization('Globex');
  });
  afterAll(() => server.close());

  async function newWorkflow(name = 'Outbound') {
    const data = await ok(
      `mutation($input: WorkflowCreateInput!) { createWorkflow(input: $input) { id name version isActive triggerType definition } }`,
      { input: { name, definition: { steps: [{ id: 'pause', type: 'wait', seconds: 1 }] } } },
    );
    return data.createWorkflow;
  }

  async function newProspects(count: number) {
    const prospects = Array.from({ length: count }, (_, index) => ({
      firstName: `P${index}`,
      phone: `+1415555${String(index).padStart(4, '0')}`,
    }));
    const data = await ok(
      `mutation($input: ProspectsCreateInput!) { createProspects(input: $input) { id firstName } }`,
      {
        input: { prospects },
      },
    );
    return data.createProspects.map((prospect: { id: string }) => prospect.id) as string[];
  }

  async function newBatch(workflowId: string, input: Record<string, unknown>) {
    const data = await ok(
      `mutation($w: ID!, $input: BatchCreateInput!) { createBatch(workflowId: $w, input: $input) {
        id status sourceType totalProspects workflowVersionNumber workflowVersionId
        stats { pendingCount inProgressCount pausedCount finishedCount cancelledCount failedCount totalCount } } }`,
      { w: workflowId, input },
    );
    return data.createBatch;
  }

  it('creates a workflow at version 1, updates it without a new version, publishes version 2', async () => {
    const workflow = await newWorkflow();
    expect(workflow).toMatchObject({ name: 'Outbound', version: 1, isActive: true, triggerType: 'manual' });
    expect(workflow.id).toMatch(/^wf_/);

    const updated = await ok(
      `mutation($id: ID!) { updateWorkflow(id: $id, input: { name: "Renamed", isActive: false, triggerType: "api", description: "d" }) { name version isActive triggerType description } }`,
      { id: workflow.id },
    );
    expect(updated.updateWorkflow).toEqual({
      name: 'Renamed',
      version: 1,
      isActive: false,
      triggerType: 'api',
      description: 'd',
    });

    const published = await ok(
      `mutation($id: ID!) { publishWorkflowVersion(workflowId: $id, input: { definition: { steps: [] } }) { version definition } }`,
      { id: workflow.id },
    );
    expect(published.publishWorkflowVersion).toEqual({ version: 2, definition: { steps: [] } });

    const versions = await ok(
      `query($id: ID!) { workflow(id: $id) { versions(first: 10) { totalCount nodes { version definition createdBy workflow { id } } } } }`,
      { id: workflow.id },
    );
    expect(versions.workflow.versions.totalCount).toBe(2);
    expect(versions.workflow.versions.nodes.map((v: { version: number }) => v.version)).toEqual([2, 1]);
    expect(versions.workflow.versions.nodes[0].createdBy).toMatch(/^key_/);
  });

  it('creates a batch with one run per prospect from ids and a list, without duplicates, pinned to the latest version', async () => {
    const workflow = await newWorkflow();
    await ok(
      `mutation($id: ID!) { publishWorkflowVersion(workflowId: $id, input: { definition: { v: 2 } }) { version } }`,
      {
        id: workflow.id,
      },
    );
    const [a, b, c] = await newProspects(3);
    const list = await ok(
      `mutation($input: ProspectListCreateInput!) { createProspectList(input: $input) { id name prospectCount } }`,
      { input: { name: 'Leads', prospectIds: [b, c] } },
    );
    expect(list.createProspectList.prospectCount).toBe(2);

    const batch = await newBatch(workflow.id, {
      name: 'Mixed',
      prospectIds: [a, b, a],
      prospectListId: list.createProspectList.id,
    });
    expect(batch).toMatchObject({
      status: 'PENDING',
      sourceType: 'mixed',
      totalProspects: 3,
      workflowVersionNumber: 2,
      stats: {
        pendingCount: 3,
        inProgressCount: 0,
        pausedCount: 0,
        finishedCount: 0,
        cancelledCount: 0,
        failedCount: 0,
        totalCount: 3,
      },
    });
    const runs = await ok(
      `query($id: ID!) { batch(id: $id) { runs(first: 10) { totalCount nodes { status prospectId workflowVersionId batchName workflowName } } } }`,
      { id: batch.id },
    );
    expect(runs.batch.runs.totalCount).toBe(3);
    expect(new Set(runs.batch.runs.nodes.map((run: { prospectId: string }) => run.prospectId))).toEqual(
      new Set([a, b, c]),
    );
    for (const run of runs.batch.runs.nodes) {
      expect(run).toMatchObject({
        status: 'PENDING',
        workflowVersionId: batch.workflowVersionId,
        batchName: 'Mixed',
        workflowName: 'Outbound',
      });
    }
  });

  it('creates nothing when a prospect is unknown, the set is empty or the workflow inactive', async () => {
    const workflow = await newWorkflow();
    const [a] = await newProspects(1);
    const foreign = await server.graphql(
      other.apiKey,
      `mutation { createProspects(input: { prospects: [{ firstName: "X" }] }) { id } }`,
    );
    const foreignId = foreign.body.data.createProspects[0].id;

    const unknown = await gql(
      `mutation($w: ID!, $ids: [String!]) { createBatch(workflowId: $w, input: { prospectIds: $ids }) { id } }`,
      {
        w: workflow.id,
        ids: [a, 'prs_missing', foreignId],
      },
    );
    expect(unknown.errors[0].extensions.code).toBe('BAD_INPUT');
    expect(unknown.errors[0].extensions.detail.map((p: { message: string }) => p.message).sort()).toEqual(
      [`prospect ${foreignId} does not exist`, 'prospect prs_missing does not exist'].sort(),
    );

    const empty = await gql(`mutation($w: ID!) { createBatch(workflowId: $w, input: { prospectIds: [] }) { id } }`, {
      w: workflow.id,
    });
    expect(empty.errors[0].extensions.code).toBe('BAD_INPUT');

    await ok(`mutation($id: ID!) { updateWorkflow(id: $id, input: { isActive: false }) { isActive } }`, {
      id: workflow.id,
    });
    const inactive = await gql(
      `mutation($w: ID!, $ids: [String!]) { createBatch(workflowId: $w, input: { prospectIds: $ids }) { id } }`,
      {
        w: workflow.id,
        ids: [a],
      },
    );
    expect(inactive.errors[0].extensions.code).toBe('CONFLICT');

    const batches = await ok(`query($id: ID!) { workflow(id: $id) { batches { totalCount } runs { totalCount } } }`, {
      id: workflow.id,
    });
    expect(batches.workflow).toEqual({ batches: { totalCount: 0 }, runs: { totalCount: 0 } });
  });

  it('pauses, resumes and cancels a batch, moving its runs and counters together; refuses other moves', async () => {
    const workflow = await newWorkflow();
    const batch = await newBatch(workflow.id, { prospectIds: await newProspects(4) });
    const move = (status: string) =>
      gql(
        `mutation($id: ID!, $s: BatchStatus!) { updateBatchStatus(id: $id, status: $s) { status stats { pendingCount pausedCount cancelledCount totalCount } } }`,
        {
          id: batch.id,
          s: status,
        },
      );

    expect((await move('PAUSED')).data.updateBatchStatus).toEqual({
      status: 'PAUSED',
      stats: { pendingCount: 0, pausedCount: 4, cancelledCount: 0, totalCount: 4 },
    });
    expect((await move('PAUSED')).data.updateBatchStatus.status).toBe('PAUSED');
    expect((await move('PENDING')).data.updateBatchStatus.stats).toEqual({
      pendingCount: 4,
      pausedCount: 0,
      cancelledCount: 0,
      totalCount: 4,
    });
    expect((await move('CANCELLED')).data.updateBatchStatus).toEqual({
      status: 'CANCELLED',
      stats: { pendingCount: 0, pausedCount: 0, cancelledCount: 4, totalCount: 4 },
    });
    const refused = await move('PENDING');
    expect(refused.errors[0].extensions).toMatchObject({ code: 'CONFLICT', detail: { current_status: 'CANCELLED' } });
    expect(refused.errors[0].message).toContain('CANCELLED');
    expect((await move('FINISHED')).errors[0].extensions.code).toBe('BAD_INPUT');

    const runs = await ok(`query($id: ID!) { batch(id: $id) { runs { nodes { status endedAt } } } }`, { id: batch.id });
    for (const run of runs.batch.runs.nodes) {
      expect(run.status).toBe('CANCELLED');
      expect(run.endedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    }
  });

  it('filters, sorts and pages runs, and counts them', async () => {
    const workflow = await newWorkflow();
    const prospects = await newProspects(5);
    const first = await newBatch(workflow.id, { prospectIds: prospects.slice(0, 3) });
    const second = await newBatch(workflow.id, { prospectIds: prospects.slice(3) });
    await ok(`mutation($id: ID!) { updateBatchStatus(id: $id, status: PAUSED) { status } }`, { id: second.id });

    const query = `query($w: ID!, $f: RunFilterInput, $o: RunOrder, $first: Int, $after: String) {
      runs(workflowId: $w, filter: $f, orderBy: $o, first: $first, after: $after) {
        totalCount pageInfo { hasNextPage endCursor } nodes { id status batchId prospectId } } }`;
    const paused = await ok(query, { w: workflow.id, f: { status: 'PAUSED' } });
    expect(paused.runs.totalCount).toBe(2);
    expect(paused.runs.nodes.every((run: { batchId: string }) => run.batchId === second.id)).toBe(true);

    const ofBatch = await ok(query, { w: workflow.id, f: { batchId: first.id } });
    expect(ofBatch.runs.totalCount).toBe(3);
    const ofProspect = await ok(query, { w: workflow.id, f: { prospectId: prospects[4] } });
    expect(ofProspect.runs.nodes).toHaveLength(1);
    expect((await ok(query, { w: workflow.id, f: { startedAfter: '2020-01-01T00:00:00Z' } })).runs.totalCount).toBe(0);

    const byStatus = await ok(query, { w: workflow.id, o: 'STATUS_ASC' });
    expect(byStatus.runs.nodes.map((run: { status: string }) => run.status)).toEqual([
      'PENDING',
      'PENDING',
      'PENDING',
      'PAUSED',
      'PAUSED',
    ]);

    const pageOne = await ok(query, { w: workflow.id, first: 2 });
    const pageTwo = await ok(query, { w: workflow.id, first: 2, after: pageOne.runs.pageInfo.endCursor });
    const pageThree = await ok(query, { w: workflow.id, first: 2, after: pageTwo.runs.pageInfo.endCursor });
    const seen = [...pageOne.runs.nodes, ...pageTwo.runs.nodes, ...pageThree.runs.nodes].map(
      (run: { id: string }) => run.id,
    );
    expect(new Set(seen).size).toBe(5);
    expect(pageThree.runs.pageInfo.hasNextPage).toBe(false);

    const badDate = await gql(query, { w: workflow.id, f: { startedAfter: 'yesterday' } });
    expect(badDate.errors[0].extensions).toMatchObject({
      code: 'BAD_INPUT',
      detail: [{ path: 'filter.started_after' }],
    });
    const tooMany = await gql(query, { w: workflow.id, first: 101 });
    expect(tooMany.errors[0].extensions.code).toBe('BAD_INPUT');
  });

  it('reads only what a runs page selects, totals from the batch counters, and pages deep from the index', async () => {
    const workflow = await newWorkflow();
    const elsewhere = await newWorkflow('Elsewhere');
    const prospects = await newProspects(5);
    const first = await newBatch(workflow.id, { prospectIds: prospects.slice(0, 3) });
    const second = await newBatch(workflow.id, { prospectIds: prospects.slice(3) });
    const foreignBatch = await newBatch(elsewhere.id, { prospectIds: prospects.slice(0, 1) });
    await ok(`mutation($id: ID!) { updateBatchStatus(id: $id, status: PAUSED) { status } }`, { id: second.id });

    // Totals read from counters agree with the rows listed, for every filter they serve.
    const listed = `query($w: ID!, $f: RunFilterInput) { runs(workflowId: $w, filter: $f, first: 100) { totalCount nodes { id status batchId } } }`;
    for (const filter of [
      {},
      { status: 'PENDING' },
      { status: 'PAUSED' },
      { batchId: first.id },
      { batchId: first.id, status: 'PENDING' },
      { batchId: second.id, status: 'PENDING' },
    ]) {
      const { runs } = await ok(listed, { w: workflow.id, f: filter });
      expect(runs.totalCount, JSON.stringify(filter)).toBe(runs.nodes.length);
    }
    const ofBatch = await ok(
      `query($b: ID!) { batch(id: $b) { runs(filter: { status: "PAUSED" }) { totalCount nodes { id } } all: runs { totalCount } } }`,
      {
        b: second.id,
      },
    );
    expect(ofBatch.batch.runs.totalCount).toBe(2);
    expect(ofBatch.batch.runs.nodes).toHaveLength(2);
    expect(ofBatch.batch.all.totalCount).toBe(2);
    // A batch of another workflow, or another batch than the one listed, names no run of this list.
    expect((await ok(listed, { w: workflow.id, f: { batchId: foreignBatch.id } })).runs).toEqual({
      totalCount: 0,
      nodes: [],
    });
    const crossed = await ok(
      `query($b: ID!, $f: RunFilterInput) { batch(id: $b) { runs(filter: $f) { totalCount nodes { id } } } }`,
      {
        b: first.id,
        f: { batchId: second.id },
      },
    );
    expect(crossed.batch.runs).toEqual({ totalCount: 0, nodes: [] });

    // A page that read a few columns does not stand in for the whole row later in the same request.
    const [run] = (await ok(listed, { w: workflow.id, f: { batchId: first.id } })).runs.nodes;
    const whole = `... on Run { id status workflowId batchId prospectId createdAt batchName prospect { id firstName } }`;
    const alone = await ok(`query($id: ID!) { node(id: $id) { ${whole} } }`, { id: run.id });
    const together = await ok(
      `query($w: ID!, $id: ID!) { runs(workflowId: $w, first: 10) { nodes { id } } node(id: $id) { ${whole} } }`,
      {
        w: workflow.id,
        id: run.id,
      },
    );
    expect(together.node).toEqual(alone.node);
    expect(alone.node).toMatchObject({
      batchId: first.id,
      batchName: expect.any(String),
      prospect: { firstName: expect.stringMatching(/^P/) },
    });

    // Pages past the first (read by a walk of the index) hold the same runs, with their prospects.
    const paged = `query($w: ID!, $after: String) { runs(workflowId: $w, first: 2, after: $after) {
      pageInfo { endCursor } nodes { id prospectId startedAt prospect { id firstName } } } }`;
    const everything = (await ok(listed, { w: workflow.id })).runs.nodes.map((node: { id: string }) => node.id);
    const seen: string[] = [];
    let after: string | null = null;
    for (let page = 0; page < 3; page++) {
      const { runs } = await ok(paged, { w: workflow.id, after });
      for (const node of runs.nodes) expect(node.prospect.id).toBe(node.prospectId);
      seen.push(...runs.nodes.map((node: { id: string }) => node.id));
      after = runs.pageInfo.endCursor;
    }
    expect(seen).toEqual(everything);

    // E6 filtered by batch, a page past the first: the workflow, the batch, the page (with prospects); no count, and
    // no key (remembered from the requests before).
    const e6 = `query($w: ID!, $f: RunFilterInput, $after: String) { runs(workflowId: $w, filter: $f, first: 1, after: $after) {
      totalCount pageInfo { endCursor } nodes { id status workflowName batchName prospect { firstName } } } }`;
    const f = { batchId: first.id, status: 'PENDING' };
    const { endCursor } = (await ok(e6, { w: workflow.id, f })).runs.pageInfo;
    const { result: next, statements } = await recordStatements(server.db, () =>
      ok(e6, { w: workflow.id, f, after: endCursor }),
    );
    expect(next.runs.totalCount).toBe(3);
    expect(next.runs.nodes).toHaveLength(1);
    expect(statements.length).toBeLessThanOrEqual(4);
    expect(statements).toMatchInlineSnapshot(`
      [
        "SELECT parent.id AS parent, page.rows FROM unnest($n::text[]) AS parent(id) CROSS JOIN LATERAL ( SELECT json_agg(to_json(c) ORDER BY c."startedAt" DESC, c.id DESC) AS rows FROM ( SELECT c.* , (SELECT to_json(e) FROM ( SELECT e."id", e."firstName" FROM "Prospect" AS e WHERE e.id = c."prospectId" AND e."organizationId" = $n ) AS e) AS "prospect" FROM ( SELECT c."id", c."status", c."workflowId", c."batchId", c."prospectId", c."startedAt" FROM ( SELECT c.id FROM "Run" AS c WHERE c."batchId" = parent.id AND c.status = $n::"RunStatus" AND c."batchId" = $n ORDER BY c."startedAt" DESC, c.id DESC LIMIT $n OFFSET $n ) AS shown JOIN "Run" AS c ON c.id = shown.id WHERE c."organizationId" = $n ) AS c ) AS c ) AS page",
        "SELECT t.* FROM unnest($n::text[]) AS given(id) JOIN "Batch" AS t ON t.id = given.id WHERE t."organizationId" = $n",
        "SELECT t.* FROM unnest($n::text[]) AS given(id) JOIN "Workflow" AS t ON t.id = given.id WHERE t."organizationId" = $n",
      ]
    `);
  });

  it('tags prospects idempotently and refuses unknown tags', async () => {
    const [prospect] = await newProspects(1);
    const vip = (await ok(`mutation { createTag(input: { name: "vip" }) { id name } }`)).createTag;
    const hot = (await ok(`mutation { createTag(input: { name: "hot" }) { id } }`)).createTag;
    expect((await gql(`mutation { createTag(input: { name: "vip" }) { id } }`)).errors[0].extensions.code).toBe(
      'CONFLICT',
    );

    const add = (tagIds: string[]) =>
      gql(
        `mutation($p: ID!, $t: [String!]!) { addTagsToProspect(prospectId: $p, input: { tagIds: $t }) { id tags { id name } } }`,
        {
          p: prospect,
          t: tagIds,
        },
      );
    expect((await add([vip.id])).data.addTagsToProspect.tags).toEqual([vip]);
    const twice = await add([vip.id, hot.id, vip.id]);
    expect(twice.data.addTagsToProspect.tags.map((tag: { id: string }) => tag.id).sort()).toEqual(
      [vip.id, hot.id].sort(),
    );
    expect((await add(['tag_missing'])).errors[0].extensions.code).toBe('BAD_INPUT');
    const missingProspect = await gql(
      `mutation($t: [String!]!) { addTagsToProspect(prospectId: "prs_missing", input: { tagIds: $t }) { id } }`,
      {
        t: [vip.id],
      },
    );
    expect(missingProspect.errors[0].extensions.code).toBe('NOT_FOUND');
  });

  it("reads another organization's objects as null and cannot change them", async () => {
    const workflow = await newWorkflow();
    const batch = await newBatch(workflow.id, { prospectIds: await newProspects(1) });
    const foreign = (query: string, variables: Record<string, unknown> = { w: workflow.id, b: batch.id }) =>
      server.graphql(other.apiKey, query, variables);
    const read = await foreign(
      `query($w: ID!, $b: ID!) { workflow(id: $w) { id } batch(id: $b) { id } runs(workflowId: $w) { totalCount } node(id: $w) { id } nodes(ids: [$b]) { id } }`,
    );
    expect(read.body.errors).toBeUndefined();
    expect(read.body.data).toEqual({ workflow: null, batch: null, runs: null, node: null, nodes: [null] });
    const pause = await foreign(`mutation($b: ID!) { updateBatchStatus(id: $b, status: PAUSED) { id } }`, {
      b: batch.id,
    });
    expect(pause.body.errors[0].extensions.code).toBe('NOT_FOUND');
    const rename = await foreign(`mutation($w: ID!) { updateWorkflow(id: $w, input: { name: "stolen" }) { id } }`, {
      w: workflow.id,
    });
    expect(rename.body.errors[0].extensions.code).toBe('NOT_FOUND');
    const still = await ok(`query($b: ID!) { batch(id: $b) { status workflow { name } } }`, { b: batch.id });
    expect(still.batch).toEqual({ status: 'PENDING', workflow: { name: 'Outbound' } });
  });

  it('answers the dashboard query (a workflow, 20 batches with stats, 50 runs each with prospect) in at most 6 statements', async () => {
    const workflow = await newWorkflow('Dashboard');
    const prospects = await newProspects(60);
    for (let index = 0; index < 21; index++) await newBatch(workflow.id, { prospectIds: prospects });
    const dashboard = `query($w: ID!) { workflow(id: $w) { id name batches(first: 20) { edges { node {
      id name status stats { pendingCount inProgressCount pausedCount finishedCount cancelledCount failedCount totalCount }
      runs(first: 50) { edges { node { id status startedAt prospect { firstName lastName email phone } } } } } } } } }`;
    const { result: data, statements } = await recordStatements(server.db, () => ok(dashboard, { w: workflow.id }));
    expect(data.workflow.batches.edges).toHaveLength(20);
    for (const edge of data.workflow.batches.edges) {
      expect(edge.node.stats.totalCount).toBe(60);
      expect(edge.node.runs.edges).toHaveLength(50);
      expect(edge.node.runs.edges[0].node.prospect.firstName).toMatch(/^P\d+$/);
    }
    expect(statements.length).toBeLessThanOrEqual(6);
    expect(statements).toMatchInlineSnapshot(`
      [
        "SELECT parent.id AS parent, page.rows FROM unnest($n::text[]) AS parent(id) CROSS JOIN LATERAL ( SELECT json_agg(to_json(c) ORDER BY c."createdAt" DESC, c.id DESC) AS rows FROM ( SELECT c.* FROM ( SELECT c.* FROM "Batch" AS c WHERE c."workflowId" = parent.id AND c."organizationId" = $n ORDER BY c."createdAt" DESC, c.id DESC LIMIT $n ) AS c ) AS c ) AS page",
        "SELECT parent.id AS parent, page.rows FROM unnest($n::text[]) AS parent(id) CROSS JOIN LATERAL ( SELECT json_agg(to_json(c) ORDER BY c."startedAt" DESC, c.id DESC) AS rows FROM ( SELECT c.* , (SELECT to_json(e) FROM ( SELECT e."id", e."firstName", e."lastName", e."email", e."phone" FROM "Prospect" AS e WHERE e.id = c."prospectId" AND e."organizationId" = $n ) AS e) AS "prospect" FROM ( SELECT c."id", c."status", c."startedAt", c."prospectId" FROM "Run" AS c WHERE c."batchId" = parent.id AND c."organizationId" = $n ORDER BY c."startedAt" DESC, c.id DESC LIMIT $n ) AS c ) AS c ) AS page",
        "SELECT t.* FROM unnest($n::text[]) AS given(id) JOIN "Workflow" AS t ON t.id = given.id WHERE t."organizationId" = $n",
      ]
    `);
  });
});
