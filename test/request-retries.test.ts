// Requests ride out transient database errors: their transactions are run
// again whole, and a request that still cannot commit is a 503 with
// Retry-After (REST) or SERVICE_UNAVAILABLE (GraphQL), never a 500. The
// errors are real: raised by the database (a trigger), or, on PostgreSQL, an
// administrator terminating the gateway's connections while requests run.
import pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { retryingDatabase } from '../src/db/retrying.ts';
import { tenantClient } from '../src/db/tenant.ts';
import { expectErrorBody, restClient } from './support/rest.ts';
import { startTestServer, type TestServer } from './support/server.ts';
import { onPostgres } from './support/storage.ts';

let server: TestServer;
let org: { organizationId: string; apiKey: string };
let rest: ReturnType<typeof restClient>;

const CREATE_WORKFLOW = `mutation($input: WorkflowCreateInput!) { createWorkflow(input: $input) { id name } }`;

beforeAll(async () => {
  server = await startTestServer();
  org = await server.createOrganization();
  rest = restClient(server, org.organizationId, org.apiKey);
  // Creating a workflow version fails with blip_plan's SQLSTATE its next `failures` times. The
  // sequence counts the attempts: it is not transactional, so a rolled-back attempt counts too.
  await server.db.sql.exec(`
    CREATE SEQUENCE blip_attempts;
    CREATE TABLE blip_plan (failures bigint NOT NULL, code text NOT NULL);
    INSERT INTO blip_plan VALUES (0, '40001');
    CREATE FUNCTION blip() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE plan blip_plan;
    BEGIN
      SELECT * INTO plan FROM blip_plan;
      IF nextval('blip_attempts') <= plan.failures THEN
        RAISE EXCEPTION 'raised by a test' USING ERRCODE = plan.code;
      END IF;
      RETURN NEW;
    END $$;
    CREATE TRIGGER blip BEFORE INSERT ON "WorkflowVersion" FOR EACH ROW EXECUTE FUNCTION blip();`);
});
afterAll(() => server.close());

async function plan(failures: number, code = '40001') {
  await server.db.sql.query('UPDATE blip_plan SET failures = $1, code = $2', [failures, code]);
  await server.db.sql.exec('ALTER SEQUENCE blip_attempts RESTART');
}

async function attempts(): Promise<number> {
  const { rows } = await server.db.sql.query<{ last_value: string; is_called: boolean }>(
    'SELECT last_value, is_called FROM blip_attempts',
  );
  return rows[0]!.is_called ? Number(rows[0]!.last_value) : 0;
}

async function workflowsNamed(name: string): Promise<number> {
  const { rows } = await server.db.sql.query<{ count: number }>(
    'SELECT count(*)::int AS count FROM "Workflow" WHERE name = $1',
    [name],
  );
  return rows[0]!.count;
}

describe('a transient database error under a request', () => {
  beforeEach(() => plan(0));

  it('has the whole transaction run again, which commits once (REST)', async () => {
    await plan(2, '40P01');
    const response = await rest('POST', '/org/{org}/workflows', { body: { name: 'Blip REST' } });
    expect(response.status).toBe(201);
    expect(await attempts()).toBe(3);
    expect(await workflowsNamed('Blip REST')).toBe(1);
  });

  it('has the whole transaction run again, which commits once (GraphQL)', async () => {
    await plan(2, '57P01');
    const { status, body } = await server.graphql(org.apiKey, CREATE_WORKFLOW, { input: { name: 'Blip GraphQL' } });
    expect(body.errors).toBeUndefined();
    expect(status).toBe(200);
    expect(await attempts()).toBe(3);
    expect(await workflowsNamed('Blip GraphQL')).toBe(1);
  });

  it('answers 503 with Retry-After and the error body when it persists (REST), and the request succeeds later', async () => {
    await plan(Number.MAX_SAFE_INTEGER, '40001');
    const headers = { 'idempotency-key': 'persisting-503' };
    const failed = await rest('POST', '/org/{org}/workflows', { body: { name: 'Unavailable REST' }, headers });
    expect(expectErrorBody(failed, 503).message).toContain('retry');
    expect(failed.headers.get('retry-after')).toBe('1');
    expect(await attempts()).toBe(5);
    expect(await workflowsNamed('Unavailable REST')).toBe(0);

    await plan(0);
    // The key was not spent by the failure: the same request now creates the workflow.
    const retried = await rest('POST', '/org/{org}/workflows', { body: { name: 'Unavailable REST' }, headers });
    expect(retried.status).toBe(201);
    expect(await workflowsNamed('Unavailable REST')).toBe(1);
  });

  it('answers SERVICE_UNAVAILABLE (503, Retry-After) when it persists (GraphQL)', async () => {
    await plan(Number.MAX_SAFE_INTEGER, '08006');
    const response = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/graphql-response+json',
        'x-api-key': org.apiKey,
      },
      body: JSON.stringify({ query: CREATE_WORKFLOW, variables: { input: { name: 'Unavailable GraphQL' } } }),
    });
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('1');
    const body = await response.json();
    expect(body.errors).toHaveLength(1);
    expect(body.errors[0].extensions).toEqual({ code: 'SERVICE_UNAVAILABLE', status: 503, detail: null });
    expect(await attempts()).toBe(5);
    expect(await workflowsNamed('Unavailable GraphQL')).toBe(0);
  });

  it('is the only kind of error tried again', async () => {
    await plan(Number.MAX_SAFE_INTEGER, '23514');
    const response = await rest('POST', '/org/{org}/workflows', { body: { name: 'Not transient' } });
    expect(response.status).not.toBe(503);
    expect(await attempts()).toBe(1);
  });

  it('keeps a retried transaction confined to its organization', async () => {
    const other = await server.createOrganization('Other');
    await restClient(server, other.organizationId, other.apiKey)('POST', '/org/{org}/workflows', {
      body: { name: 'Theirs' },
    });
    const ours = await server.db.prisma.workflow.count({ where: { organizationId: org.organizationId } });
    const scoped = tenantClient(retryingDatabase(server.db).prisma, org.organizationId);
    await plan(1, '40001');
    const seen = await scoped.$transaction(async (tx) => {
      const count = await tx.workflow.count();
      // Fails once: the transaction is run again, with the organization's filter still on every statement.
      await tx.workflowVersion.create({
        data: {
          organizationId: org.organizationId,
          workflowId: (await tx.workflow.findFirstOrThrow()).id,
          version: 999,
          definition: {},
          createdBy: 'test',
        },
      });
      return count;
    });
    expect(seen).toBe(ours);
    expect(await attempts()).toBe(2);
  });
});

describe.runIf(onPostgres)('PostgreSQL terminating the gateway’s connections while requests run', () => {
  let admin: pg.Client;
  beforeAll(async () => {
    await plan(0);
    admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
    await admin.connect();
  });
  afterAll(() => admin.end());

  it('answers no 5xx but 503, commits each created workflow once, and serves again afterwards', async () => {
    const database = new URL((server.storage!.storage as { url: string }).url).pathname.slice(1);
    const outcomes: { kind: string; status: number; retryAfter: string | null; name?: string }[] = [];
    let stop = false;
    let sequence = 0;
    const listed = (await rest('POST', '/org/{org}/workflows', { body: { name: 'Listed' } })).body.id as string;

    async function oneRequest(kind: string) {
      const name = `Chaos ${++sequence}`;
      if (kind === 'rest-create') {
        const response = await rest('POST', '/org/{org}/workflows', { body: { name } });
        return { kind, status: response.status, retryAfter: response.headers.get('retry-after'), name };
      }
      if (kind === 'rest-list') {
        const response = await rest('GET', `/org/{org}/workflows/${listed}/versions`);
        return { kind, status: response.status, retryAfter: response.headers.get('retry-after') };
      }
      const query =
        kind === 'graphql-create'
          ? CREATE_WORKFLOW
          : `{ workflows(first: 5) { totalCount nodes { id name versions { totalCount } } } }`;
      const response = await fetch(`${server.url}/graphql`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/graphql-response+json',
          'x-api-key': org.apiKey,
        },
        body: JSON.stringify({ query, variables: { input: { name } } }),
      });
      const body = await response.json();
      // A GraphQL error is a failed request whatever the HTTP status: only SERVICE_UNAVAILABLE may be one.
      for (const error of body.errors ?? []) expect(error.extensions?.code).toBe('SERVICE_UNAVAILABLE');
      return {
        kind,
        status: response.status,
        retryAfter: response.headers.get('retry-after'),
        ...(kind === 'graphql-create' ? { name } : {}),
      };
    }

    const kinds = ['rest-create', 'rest-list', 'graphql-create', 'graphql-list'];
    const worker = async (offset: number) => {
      for (let index = offset; !stop; index++) outcomes.push(await oneRequest(kinds[index % kinds.length]!));
    };
    let terminated = 0;
    const terminator = async () => {
      for (let round = 0; round < 25; round++) {
        const { rows } = await admin.query(
          'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
          [database],
        );
        terminated += rows.length;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      stop = true;
    };
    await Promise.all([terminator(), ...[0, 1, 2, 3, 4, 5].map(worker)]);

    const unavailable = outcomes.filter((outcome) => outcome.status === 503);
    console.info(
      `terminated ${terminated} connections; ${outcomes.length} requests: ${outcomes.length - unavailable.length} served, ${unavailable.length} answered 503`,
    );
    expect(terminated).toBeGreaterThan(25);
    expect(outcomes.filter((outcome) => ![200, 201, 503].includes(outcome.status))).toEqual([]);
    expect(unavailable.every((outcome) => outcome.retryAfter === '1')).toBe(true);
    // A connection is terminated every 100 ms: a request that loses all five tries is a 503. That
    // retries turn blips into successes is shown exactly above; here most requests are served.
    expect(unavailable.length).toBeLessThan(outcomes.length / 2);

    // Each workflow a request reported created exists once; one whose request failed at most once.
    const verifier = new pg.Client({ connectionString: (server.storage!.storage as { url: string }).url });
    await verifier.connect();
    try {
      const { rows } = await verifier.query<{ name: string; count: number }>(
        `SELECT name, count(*)::int AS count FROM "Workflow" WHERE name LIKE 'Chaos %' GROUP BY name`,
      );
      const counts = new Map(rows.map((row) => [row.name, row.count]));
      for (const outcome of outcomes.filter((outcome) => outcome.name)) {
        expect(counts.get(outcome.name!) ?? 0).toBe(outcome.status === 503 ? (counts.get(outcome.name!) ? 1 : 0) : 1);
      }
    } finally {
      await verifier.end();
    }

    // Afterwards every kind of request is served.
    stop = false;
    for (const kind of kinds) expect((await oneRequest(kind)).status).toBeLessThan(300);
  }, 60_000);
});
