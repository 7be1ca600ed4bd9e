// Contract tests: E4-E9, E21 and the workflow/prospect extensions, through the
// real HTTP server, on both prefixes, against SPEC.md's shapes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prospect } from '../src/records/prospects.ts';
import { batch, workflow, workflowRun, workflowVersion } from '../src/records/workflows.ts';
import { acmeAndGlobex, expectErrorBody, type restClient } from './support/rest.ts';
import { startTestServer, type TestServer } from './support/server.ts';
import { recordStatements } from './support/statements.ts';

const prospectSchema = prospect.schema;
const batchSchema = batch.schema;
const runSchema = workflowRun.schema;
const versionSchema = workflowVersion.schema;
const workflowSchema = workflow.schema;

const PREFIXES = ['/org/{org}', '/api/org/{org}'];
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describe.each(PREFIXES)('REST under %s: workflows, batches, runs, prospects', (prefix) => {
  let server: TestServer;
  let rest: ReturnType<typeof restClient>;
  let otherRest: ReturnType<typeof restClient>;
  let organizationId: string;
  let apiKey: string;
  const url = (path: string) => `${prefix}${path}`;

  beforeAll(async () => {
    server = await startTestServer();
    ({ organizationId, apiKey, rest, otherRest } = await acmeAndGlobex(server));
  });
  afterAll(() => server.close());

  async function workflow(body: Record<string, unknown> = { name: 'Outbound', definition: { steps: [] } }) {
    const response = await rest('POST', url('/workflows'), { body });
    expect(response.status).toBe(201);
    return response.body;
  }
  async function prospects(count: number) {
    const response = await rest('POST', url('/prospects'), {
      body: {
        prospects: Array.from({ length: count }, (_, index) => ({
          first_name: `F${index}`,
          last_name: 'L',
          email: `p${index}@x.io`,
          phone: '+14155550100',
        })),
      },
    });
    expect(response.status).toBe(201);
    return response.body.created.map((prospect: { id: string }) => prospect.id) as string[];
  }
  async function batch(workflowId: string, body: Record<string, unknown>) {
    const response = await rest('POST', url(`/workflows/${workflowId}/batches`), { body });
    expect(response.status).toBe(201);
    return response.body;
  }

  it('creates and reads workflows (extension), definition as JSON or UTF-8 JSON bytes', async () => {
    const created = await workflow({
      name: 'W',
      description: 'd',
      trigger_type: 'api',
      definition: { steps: [{ id: 'a', type: 'wait', seconds: 1 }] },
    });
    expect(workflowSchema.parse(created)).toEqual(created);
    expect(created).toMatchObject({
      name: 'W',
      description: 'd',
      trigger_type: 'api',
      is_active: true,
      version: 1,
      definition: { steps: [{ id: 'a', type: 'wait', seconds: 1 }] },
    });
    expect(created.created_at).toMatch(ISO);
    const bytes = [...Buffer.from(JSON.stringify({ steps: [] }))];
    const fromBytes = await workflow({ name: 'Bytes', definition: bytes });
    expect(fromBytes.definition).toEqual({ steps: [] });
    const badBytes = await rest('POST', url('/workflows'), { body: { name: 'B', definition: [255, 254] } });
    expect(expectErrorBody(badBytes, 400).error[0].path).toBe('definition');
    const got = await rest('GET', url(`/workflows/${created.id}`));
    expect(got).toMatchObject({ status: 200, body: created });
    expectErrorBody(await rest('GET', url('/workflows/wf_missing')), 404);
  });

  it('E5 updates a workflow without creating a version; E8 lists versions (envelope B)', async () => {
    const created = await workflow();
    const updated = await rest('PATCH', url(`/workflows/${created.id}`), {
      body: { name: 'New', is_active: false, trigger_type: 'cron', description: 'x' },
    });
    expect(updated.status).toBe(200);
    expect(workflowSchema.parse(updated.body)).toMatchObject({
      name: 'New',
      is_active: false,
      trigger_type: 'cron',
      description: 'x',
      version: 1,
    });
    await rest('POST', url(`/workflows/${created.id}/versions`), { body: { definition: { v: 2 } } });
    const versions = await rest('GET', url(`/workflows/${created.id}/versions?page=1&size=1`));
    expect(versions.status).toBe(200);
    expect(Object.keys(versions.body).sort()).toEqual(['data', 'meta']);
    expect(versions.body.meta).toEqual({ page: 1, size: 1, total: 2, total_pages: 2 });
    expect(versionSchema.parse(versions.body.data[0])).toMatchObject({ version: 2 });
    expect(
      expectErrorBody(await rest('PATCH', url(`/workflows/${created.id}`), { body: { is_active: 'yes' } }), 400).error,
    ).toEqual([expect.objectContaining({ path: 'is_active' })]);
    expectErrorBody(await rest('GET', url(`/workflows/${created.id}/versions?size=101`)), 400);
    expectErrorBody(await rest('PATCH', url('/workflows/wf_missing'), { body: { name: 'x' } }), 404);
  });

  it('E4 creates a batch; E7 lists batches (envelope A); E9 moves its status; the extension reads it', async () => {
    const { id } = await workflow();
    const ids = await prospects(3);
    const created = await batch(id, { name: 'First', prospect_ids: ids, scheduled_at: '2030-01-01T00:00:00Z' });
    expect(batchSchema.parse(created)).toEqual(created);
    expect(created).toMatchObject({
      name: 'First',
      organization_id: organizationId,
      workflow_id: id,
      workflow_version_number: 1,
      source_type: 'prospect_ids',
      status: 'PENDING',
      total_prospects: 3,
      scheduled_at: '2030-01-01T00:00:00.000Z',
      stats: {
        pending_count: 3,
        in_progress_count: 0,
        paused_count: 0,
        finished_count: 0,
        cancelled_count: 0,
        failed_count: 0,
        total_count: 3,
      },
    });
    const listed = await rest('GET', url(`/workflows/${id}/batches`));
    expect(listed.status).toBe(200);
    expect(listed.body.pagination).toEqual({ page: 1, limit: 20, total: 1, total_pages: 1 });
    expect(listed.body.data).toEqual([created].map((b) => ({ ...b, updated_at: expect.any(String) })));

    const paused = await rest('PATCH', url(`/batches/${created.id}`), { body: { status: 'PAUSED' } });
    expect(paused.status).toBe(200);
    expect(paused.body).toMatchObject({ status: 'PAUSED', stats: { pending_count: 0, paused_count: 3 } });
    expect((await rest('PATCH', url(`/batches/${created.id}`), { body: { status: 'PAUSED' } })).status).toBe(200);
    const cancelled = await rest('PATCH', url(`/batches/${created.id}`), { body: { status: 'CANCELLED' } });
    expect(cancelled.body.stats).toMatchObject({ cancelled_count: 3, paused_count: 0 });
    const refused = expectErrorBody(
      await rest('PATCH', url(`/batches/${created.id}`), { body: { status: 'PENDING' } }),
      409,
    );
    expect(refused.message).toContain('CANCELLED');
    expect(refused.error).toMatchObject({ current_status: 'CANCELLED' });
    expectErrorBody(await rest('PATCH', url(`/batches/${created.id}`), { body: { status: 'FINISHED' } }), 400);
    expectErrorBody(await rest('PATCH', url(`/batches/${created.id}`), { body: {} }), 400);
    expect((await rest('GET', url(`/batches/${created.id}`))).body.status).toBe('CANCELLED');
    expectErrorBody(await rest('GET', url('/batches/bat_missing')), 404);
  });

  it('E4 refuses unknown prospects, empty sets and inactive workflows, creating nothing', async () => {
    const { id } = await workflow();
    const [known] = await prospects(1);
    const unknown = expectErrorBody(
      await rest('POST', url(`/workflows/${id}/batches`), { body: { prospect_ids: [known, 'prs_nope'] } }),
      400,
    );
    expect(unknown.error).toEqual([expect.objectContaining({ path: 'prospect_ids', rule: 'exists' })]);
    expectErrorBody(await rest('POST', url(`/workflows/${id}/batches`), { body: {} }), 400);
    expectErrorBody(
      await rest('POST', url(`/workflows/${id}/batches`), { body: { prospect_ids: [known], scheduled_at: 'soon' } }),
      400,
    );
    await rest('PATCH', url(`/workflows/${id}`), { body: { is_active: false } });
    expectErrorBody(await rest('POST', url(`/workflows/${id}/batches`), { body: { prospect_ids: [known] } }), 409);
    expectErrorBody(await rest('POST', url('/workflows/wf_missing/batches'), { body: { prospect_ids: [known] } }), 404);
    expect((await rest('GET', url(`/workflows/${id}/batches`))).body.pagination.total).toBe(0);
  });

  it('E6 lists runs with every filter, sort and page parameter', async () => {
    const { id } = await workflow();
    const ids = await prospects(4);
    const first = await batch(id, { prospect_ids: ids.slice(0, 3) });
    const second = await batch(id, { prospect_ids: ids.slice(3) });
    await rest('PATCH', url(`/batches/${second.id}`), { body: { status: 'PAUSED' } });

    const all = await rest('GET', url(`/workflows/${id}/runs`));
    expect(all.status).toBe(200);
    expect(all.body.pagination).toEqual({ page: 1, limit: 20, total: 4, total_pages: 1 });
    for (const run of all.body.data) expect(runSchema.parse(run)).toEqual(run);
    expect(all.body.data[0].prospect).toEqual({
      first_name: expect.stringMatching(/^F/),
      last_name: 'L',
      email: expect.any(String),
      phone: '+14155550100',
    });

    const query = async (qs: string) => (await rest('GET', url(`/workflows/${id}/runs?${qs}`))).body;
    expect((await query('status=PAUSED')).data.map((run: { batch_id: string }) => run.batch_id)).toEqual([second.id]);
    expect((await query(`batch_id=${first.id}`)).pagination.total).toBe(3);
    expect((await query(`prospect_id=${ids[0]}`)).pagination.total).toBe(1);
    expect((await query(`workflow_version_id=${first.workflow_version_id}`)).pagination.total).toBe(4);
    expect((await query('started_after=2020-01-01T00:00:00Z')).pagination.total).toBe(0);
    expect((await query('started_before=2020-01-01T00:00:00%2B02:00')).pagination.total).toBe(0);
    expect((await query('sort=status_desc')).data[0].status).toBe('PAUSED');
    expect((await query('sort=status_asc')).data[0].status).toBe('PENDING');
    const page2 = await query('page=2&limit=3');
    expect(page2.pagination).toEqual({ page: 2, limit: 3, total: 4, total_pages: 2 });
    expect(page2.data).toHaveLength(1);
    expect((await query('page=9&limit=3')).data).toEqual([]);

    for (const bad of [
      'status=DONE',
      'sort=name',
      'limit=0',
      'limit=101',
      'page=0',
      'page=x',
      'started_after=yesterday',
    ]) {
      const response = await rest('GET', url(`/workflows/${id}/runs?${bad}`));
      expect(expectErrorBody(response, 400).error[0].path).toBe(bad.split('=')[0]);
    }
    expectErrorBody(await rest('GET', url('/workflows/wf_missing/runs')), 404);
  });

  it('E6 writes each run byte for byte as GET /runs/{id} shows it (its page is JSON text made by PostgreSQL)', async () => {
    const tricky = 'Out "bound" \\ é 😀\n\t\u0001\u001f';
    const { id } = await workflow({ name: tricky, definition: { steps: [] } });
    const created = await rest('POST', url('/prospects'), {
      body: {
        prospects: [0, 1, 2].map((n) => ({ first_name: `${tricky}${n}`, last_name: 'L', phone: '+14155550100' })),
      },
    });
    expect(created.status).toBe(201);
    const ids = created.body.created.map((prospect: { id: string }) => prospect.id);
    const { id: batchId } = await batch(id, { name: tricky, prospect_ids: ids });
    // Instants with whole and partial milliseconds; one run never started.
    await server.db.sql.query(
      `UPDATE "Run" SET "currentStepId" = 'dial', "startedAt" = $2::timestamptz + make_interval(secs => n * 1.02),
         "endedAt" = CASE WHEN n = 1 THEN $2::timestamptz + interval '1 minute' END
       FROM (SELECT id AS run, row_number() OVER (ORDER BY id) AS n FROM "Run" WHERE "batchId" = $1) AS numbered
       WHERE id = numbered.run AND n < 3`,
      [batchId, '2026-11-21T04:09:00.000Z'],
    );

    const path = url(`/workflows/${id}/runs?sort=started_asc`).replace('{org}', organizationId);
    const response = await fetch(`${server.url}${path}`, { headers: { 'x-api-key': apiKey } });
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const text = await response.text();
    const { data, pagination } = JSON.parse(text);
    expect(data.map((run: { started_at: string | null }) => run.started_at)).toEqual([
      '2026-11-21T04:09:01.020Z',
      '2026-11-21T04:09:02.040Z',
      null,
    ]);
    const shown = await Promise.all(
      data.map(async (run: { id: string }) => (await rest('GET', url(`/runs/${run.id}`))).body),
    );
    const members = Object.keys(runSchema.shape);
    const expected = shown.map((run) => Object.fromEntries(members.map((member) => [member, run[member]])));
    expect(text).toBe(JSON.stringify({ data: expected, pagination }));

    // Filtered by batch: the workflow, the batch and the page are read in one statement.
    const byBatch = await recordStatements(server.db, () =>
      rest('GET', url(`/workflows/${id}/runs?batch_id=${batchId}&status=PENDING`)),
    );
    expect(byBatch.result.body.pagination.total).toBe(3);
    expect(byBatch.statements.filter((statement) => !statement.includes('"ApiKey"'))).toHaveLength(1);
  });

  it('E6 reads the workflow, the batch and the page in one statement, and writes a page with a run whose prospect row is gone as before', async () => {
    const { id } = await workflow();
    const { id: other } = await workflow();
    const ids = await prospects(2);
    const { id: batchId } = await batch(id, { name: 'B', prospect_ids: ids });
    const { id: otherBatchId } = await batch(other, { name: 'O', prospect_ids: ids });
    const listed = (query: string) =>
      recordStatements(server.db, async () => {
        const path = url(`/workflows/${id}/runs?sort=started_asc${query}`).replace('{org}', organizationId);
        return (await fetch(`${server.url}${path}`, { headers: { 'x-api-key': apiKey } })).text();
      });
    const count = (statements: string[]) => statements.filter((statement) => !statement.includes('"ApiKey"')).length;
    const before = await listed(`&batch_id=${batchId}`);
    expect(count(before.statements)).toBe(1);
    expect(JSON.parse(before.result).data).toHaveLength(2);

    // A batch of another workflow lists nothing; a workflow or batch not found answers as before.
    expect(JSON.parse((await listed(`&batch_id=${otherBatchId}`)).result)).toMatchObject({
      data: [],
      pagination: { total: 0 },
    });
    expect(JSON.parse((await listed('&batch_id=bat_missing')).result)).toMatchObject({
      data: [],
      pagination: { total: 0 },
    });
    expectErrorBody(await rest('GET', url('/workflows/wf_missing/runs')), 404);
    expectErrorBody(await rest('GET', url(`/workflows/wf_missing/runs?batch_id=${batchId}`)), 404);

    // The foreign key keeps a run's prospect; a row gone all the same (triggers off) is written as null, as before.
    const gone = JSON.parse(before.result).data[0].prospect_id;
    await server.db.sql.transaction(async (tx) => {
      await tx.exec('SET LOCAL session_replication_role = replica');
      await tx.query('DELETE FROM "Prospect" WHERE id = $1', [gone]);
    });
    const expected = JSON.parse(before.result);
    expected.data[0].prospect = null;
    for (const query of [`&batch_id=${batchId}`, '']) {
      const after = await listed(query);
      const shown = JSON.parse(after.result);
      expect(shown.data.find((run: { prospect_id: string }) => run.prospect_id === gone).prospect).toBeNull();
      if (query) expect(after.result).toBe(JSON.stringify(expected));
    }
  });

  it('E21 adds tags idempotently with the generic body; the extensions create and read prospects, lists and tags', async () => {
    const [id] = await prospects(1);
    const vip = await rest('POST', url('/tags'), { body: { name: 'vip' } });
    expect(vip).toMatchObject({ status: 201, body: { id: expect.stringMatching(/^tag_/), name: 'vip' } });
    expectErrorBody(await rest('POST', url('/tags'), { body: { name: 'vip' } }), 409);
    const added = await rest('POST', url(`/prospects/${id}/tags`), { body: { tag_ids: [vip.body.id, vip.body.id] } });
    expect(added.status).toBe(200);
    expect(added.body).toEqual({
      status: true,
      message: 'tags added',
      error: null,
      data: { prospect_id: id, tags: [vip.body] },
    });
    expect(
      (await rest('POST', url(`/prospects/${id}/tags`), { body: { tag_ids: [vip.body.id] } })).body.data.tags,
    ).toEqual([vip.body]);
    expectErrorBody(await rest('POST', url(`/prospects/${id}/tags`), { body: { tag_ids: ['tag_nope'] } }), 400);
    expectErrorBody(await rest('POST', url('/prospects/prs_nope/tags'), { body: { tag_ids: [vip.body.id] } }), 404);

    const prospect = await rest('GET', url(`/prospects/${id}`));
    expect(prospectSchema.parse(prospect.body).tags).toEqual([vip.body]);
    const single = await rest('POST', url('/prospects'), { body: { first_name: 'Solo' } });
    expect(single.body).toMatchObject({ count: 1, created: [{ first_name: 'Solo', tags: [] }] });
    const list = await rest('POST', url('/prospect-lists'), { body: { name: 'L', prospect_ids: [id] } });
    expect(list).toMatchObject({
      status: 201,
      body: { id: expect.stringMatching(/^pl_/), name: 'L', prospect_count: 1 },
    });
    expect(
      expectErrorBody(await rest('POST', url('/prospects'), { body: { prospects: [{ first_name: 1 }] } }), 400).error[0]
        .path,
    ).toBe('prospects.0.first_name');
  });

  it("answers 404 for another organization's path and objects, and 401 without a key", async () => {
    const { id } = await workflow();
    const foreignPath = await rest('GET', `${prefix.replace('{org}', 'org_someone_else')}/workflows/${id}`);
    expectErrorBody(foreignPath, 404);
    expectErrorBody(await otherRest('GET', url(`/workflows/${id}`).replace(organizationId, '{org}')), 404);
    expectErrorBody(
      await otherRest('PATCH', url(`/workflows/${id}`).replace(organizationId, '{org}'), { body: { name: 'x' } }),
      404,
    );
    expectErrorBody(await rest('GET', url(`/workflows/${id}`), { apiKey: null }), 401);
    expectErrorBody(await rest('GET', url(`/workflows/${id}`), { apiKey: 'gwk_nope' }), 401);
    expect((await rest('GET', url(`/workflows/${id}`))).body.name).toBe('Outbound');
  });

  it('answers malformed JSON 400, other media types 415, oversize bodies 413 and unknown routes 404 in the error body', async () => {
    expectErrorBody(await rest('POST', url('/workflows'), { raw: '{"name":' }), 400);
    expectErrorBody(
      await rest('POST', url('/workflows'), { raw: 'name=x', headers: { 'content-type': 'text/plain' } }),
      415,
    );
    expectErrorBody(
      await rest('POST', url('/workflows'), {
        raw: 'name=x',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      }),
      415,
    );
    const big = { name: 'x', definition: { blob: 'a'.repeat(1024 * 1024) } };
    expectErrorBody(await rest('POST', url('/workflows'), { body: big }), 413);
    expectErrorBody(await rest('GET', url('/no-such-thing')), 404);
    expectErrorBody(await rest('DELETE', url('/workflows/wf_x')), 404);
  });
});
