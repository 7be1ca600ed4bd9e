// Bad input of every kind is a 4xx in SPEC.md's error body, never a 500,
// and writes nothing. (Generated hostile input comes with the trust work.)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RestResponse, restClient } from './support/rest.ts';
import { startTestServer, type TestServer } from './support/server.ts';

describe('hostile input', () => {
  let server: TestServer;
  let rest: ReturnType<typeof restClient>;
  let apiKey: string;
  beforeAll(async () => {
    server = await startTestServer();
    const org = await server.createOrganization();
    apiKey = org.apiKey;
    rest = restClient(server, org.organizationId, org.apiKey);
  });
  afterAll(() => server.close());

  const refused = (response: RestResponse, status = 400) => {
    expect(response.status).toBe(status);
    expect(response.body).toMatchObject({ status: false, data: null, message: expect.any(String) });
    return response.body;
  };

  it('refuses NUL characters anywhere in paths, queries and bodies, naming where', async () => {
    expect(refused(await rest('GET', '/org/{org}/workflows/%00')).error[0]).toMatchObject({
      path: 'workflow_id',
      rule: 'no NUL',
    });
    expect(refused(await rest('GET', '/org/{org}/workflows/wf_x/runs?prospect_id=a%00')).error[0].path).toBe(
      'prospect_id',
    );
    expect(refused(await rest('GET', '/org/{org}/integrations/slug/%00')).error[0].path).toBe('slug');
    expect(refused(await rest('POST', '/org/{org}/tags', { body: { name: 'v\u0000ip' } })).error[0].path).toBe('name');
    expect(
      refused(await rest('POST', '/org/{org}/prospects', { body: { prospects: [{ first_name: 'x\u0000' }] } })).error[0]
        .path,
    ).toBe('prospects.0.first_name');
    expect(
      refused(await rest('POST', '/org/{org}/agents', { body: { name: 'x', plugins: [{ a: '\u0000' }] } })).error[0]
        .path,
    ).toBe('plugins.0.a');
    const tags = await server.graphql(apiKey, '{ tags { totalCount } }');
    expect(tags.body.data.tags.totalCount).toBe(0);
  });

  it('refuses NUL characters in GraphQL variables and literals with BAD_INPUT', async () => {
    const inVariables = await server.graphql(
      apiKey,
      'mutation($n: String!) { createTag(input: { name: $n }) { id } }',
      { n: 'a\u0000' },
    );
    expect(inVariables.status).toBe(400);
    expect(inVariables.body.errors[0].extensions).toMatchObject({
      code: 'BAD_INPUT',
      detail: [{ path: 'variables.n' }],
    });
    const inLiteral = await server.graphql(apiKey, 'mutation { createTag(input: { name: "a\\u0000" }) { id } }');
    expect(inLiteral.status).toBe(400);
    expect(inLiteral.body.errors[0].extensions.code).toBe('BAD_INPUT');
  });

  it("refuses a call record's part holding a NUL or a non-finite number, naming the member", async () => {
    const record = '/org/{org}/runs/run_x/attempts/1/record';
    const turn = (text: string, started_ms: number) => ({ role: 'callee', text, started_ms, ended_ms: started_ms + 1 });
    const withNul = { transcript: [turn('hello', 0), turn('my number is \u0000', 10)] };
    expect(refused(await rest('POST', record, { body: withNul })).error).toEqual([
      { path: 'transcript.1.text', rule: 'no NUL', message: expect.any(String) },
    ]);
    expect(refused(await rest('POST', record, { raw: '{"summary": "s", "sentiment": 1e999}' })).error).toEqual([
      { path: 'sentiment', rule: 'finite', message: expect.any(String) },
    ]);
    expect(
      refused(await rest('POST', record, { raw: '{"data": {"slot": [1, {"at": -1e999}]}}' })).error[0],
    ).toMatchObject({ path: 'data.slot.1.at', rule: 'finite' });
    const graphql = await server.graphql(
      apiKey,
      'mutation($input: CallRecordReportInput!) { reportCallRecord(runId: "run_x", attempt: 1, input: $input) { id } }',
      { input: withNul },
    );
    expect(graphql.status).toBe(400);
    expect(graphql.body.errors[0].extensions).toMatchObject({
      code: 'BAD_INPUT',
      detail: [{ path: 'variables.input.transcript.1.text', rule: 'no NUL' }],
    });
  });

  it('refuses bodies and variables nested deeper than 64 levels, however deep', async () => {
    for (const depth of [65, 100_000]) {
      const nested = '['.repeat(depth) + ']'.repeat(depth);
      const body = refused(
        await rest('POST', '/org/{org}/workflows', { raw: `{"name": "x", "definition": {"a": ${nested}}}` }),
      );
      expect(body.message).toContain('64');
      const graphql = await fetch(`${server.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
        body: `{"query": "mutation($d: JSON) { createWorkflow(input: { name: \\"x\\", definition: $d }) { id } }", "variables": {"d": {"a": ${nested}}}}`,
      });
      expect(graphql.status).toBe(400);
      expect((await graphql.json()).errors[0].extensions.code).toBe('BAD_INPUT');
    }
    // 64 levels are fine.
    const deepest = '['.repeat(62) + ']'.repeat(62);
    const fine = await rest('POST', '/org/{org}/workflows', { raw: `{"name": "x", "definition": {"a": ${deepest}}}` });
    expect(fine.body).toMatchObject({ name: 'x' });
    expect(fine.status).toBe(201);
  });

  it('answers non-object bodies, absurd numbers and over-long ids with 4xx', async () => {
    for (const body of [[], null, 'text', 42, true]) refused(await rest('POST', '/org/{org}/workflows', { body }));
    refused(await rest('POST', '/org/{org}/workflows', { raw: '{"name": "x", "definition": {"a": 1e999}}' }));
    refused(
      await rest('PATCH', '/org/{org}/agents/agt_x', {
        body: { llm_config: { provider: 'openai', model: 'm', max_tokens: 2 ** 53 } },
      }),
    );
    refused(await rest('GET', `/org/{org}/workflows/${'x'.repeat(300)}`), 414);
    refused(await rest('GET', '/org/{org}/workflows/wf_x/runs?page=99999999999'));
    refused(await rest('GET', '/org/{org}/workflows/wf_x/runs?limit=1e3'));
  });
});
