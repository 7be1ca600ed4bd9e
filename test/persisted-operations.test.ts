// Trusted documents: `gateway persisted-operations import` turns a client's
// persisted-queries manifest into the allow-list the server reads, and a
// server in allow-list mode then runs those operations by hash.
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultGraphQLLimits } from '../src/config/request-limits.ts';
import { runCli } from './support/processes.ts';
import { startTestServer } from './support/server.ts';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const md5 = (text: string) => createHash('md5').update(text).digest('hex');

const organizationName = 'query OrganizationName { organization { name } }';
const workflowNames = 'query WorkflowNames($last: Int) { workflows(last: $last) { nodes { name } } }';
const createWorkflow = 'mutation CreateWorkflow($name: String!) { createWorkflow(input: { name: $name }) { id name } }';

/** What @apollo/generate-persisted-query-manifest writes. */
const apolloManifest = (operations: { name: string; body: string; type: string }[]) => ({
  format: 'apollo-persisted-query-manifest',
  version: 1,
  operations: operations.map((operation) => ({ id: sha256(operation.body), ...operation })),
});

describe('gateway persisted-operations import', () => {
  let dir: string;
  let allowList: string;
  const cli = (...args: string[]) =>
    runCli(['persisted-operations', 'import', ...args], { PERSISTED_OPERATIONS_FILE: '' });
  const manifestFile = async (name: string, content: unknown) => {
    const file = path.join(dir, name);
    await writeFile(file, typeof content === 'string' ? content : JSON.stringify(content));
    return file;
  };

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'persisted-operations-'));
    allowList = path.join(dir, 'allow-list.json');
  });

  it('writes an Apollo manifest as the allow-list, then adds a Relay one to it', { timeout: 60_000 }, async () => {
    const apollo = await manifestFile(
      'persisted-query-manifest.json',
      apolloManifest([
        { name: 'OrganizationName', body: organizationName, type: 'query' },
        { name: 'CreateWorkflow', body: createWorkflow, type: 'mutation' },
      ]),
    );
    const first = await cli('--manifest', apollo, '--out', allowList);
    expect(first).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(first.stdout)).toEqual({ file: allowList, operations: 2, added: 2, total: 2 });
    expect(JSON.parse(await readFile(allowList, 'utf8'))).toEqual({
      [sha256(organizationName)]: organizationName,
      [sha256(createWorkflow)]: createWorkflow,
    });

    // relay-compiler's persisted_queries.json (persistConfig.algorithm SHA256); the operation registered twice stays once.
    const relay = await manifestFile('persisted_queries.json', {
      [sha256(workflowNames)]: workflowNames,
      [sha256(organizationName)]: organizationName,
    });
    const second = await cli('--manifest', relay, '--out', allowList);
    expect(JSON.parse(second.stdout)).toEqual({ file: allowList, operations: 2, added: 1, total: 3 });
    expect(Object.keys(JSON.parse(await readFile(allowList, 'utf8'))).sort()).toEqual(
      [organizationName, createWorkflow, workflowNames].map(sha256).sort(),
    );
  });

  it('refuses a whole manifest with an operation the server could not run, naming it', {
    timeout: 60_000,
  }, async () => {
    const before = await readFile(allowList, 'utf8');
    // Relay's default ids are MD5: a client would send a key the allow-list does not have.
    const md5Ids = await manifestFile('md5.json', { [md5(organizationName)]: organizationName });
    const refusedId = await cli('--manifest', md5Ids, '--out', allowList);
    expect(refusedId).toMatchObject({ code: 1, stdout: '' });
    expect(refusedId.stderr).toContain('OrganizationName: its id is not the SHA-256 of its text');

    const unknownField = 'query Unknown { organization { colour } }';
    const invalid = await manifestFile(
      'invalid.json',
      apolloManifest([
        { name: 'WorkflowNames', body: workflowNames, type: 'query' },
        { name: 'Unknown', body: unknownField, type: 'query' },
      ]),
    );
    const refusedDocument = await cli('--manifest', invalid, '--out', allowList);
    expect(refusedDocument).toMatchObject({ code: 1, stdout: '' });
    expect(refusedDocument.stderr).toContain('Unknown: Cannot query field "colour" on type "Organization"');

    const notManifest = await cli(
      '--manifest',
      await manifestFile('list.json', [organizationName]),
      '--out',
      allowList,
    );
    expect(notManifest).toMatchObject({ code: 1, stdout: '' });
    expect(notManifest.stderr).toContain('not a persisted-queries manifest');
    expect(await readFile(allowList, 'utf8')).toBe(before);

    const noOut = await cli('--manifest', md5Ids);
    expect(noOut).toMatchObject({ code: 2, stdout: '' });
    expect(noOut.stderr).toContain('--out is required when PERSISTED_OPERATIONS_FILE is unset');
    expect((await cli('--help')).stdout).toMatch(/^usage: gateway persisted-operations import --manifest FILE/);
  });

  describe('a server reading the allow-list, in allow-list mode', () => {
    let server: Awaited<ReturnType<typeof startTestServer>>;
    let apiKey: string;
    beforeAll(async () => {
      server = await startTestServer({
        graphqlLimits: { ...defaultGraphQLLimits, persistedOnly: true, persistedOperationsFile: allowList },
      });
      ({ apiKey } = await server.createOrganization('Trusted'));
    });
    afterAll(() => server?.close());
    const byHash = async (text: string, variables?: Record<string, unknown>) => {
      const response = await fetch(`${server.url}/graphql`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/graphql-response+json',
          'x-api-key': apiKey,
        },
        body: JSON.stringify({ extensions: { persistedQuery: { version: 1, sha256Hash: sha256(text) } }, variables }),
      });
      return { status: response.status, body: await response.json() };
    };

    it('runs the imported operations by hash and nothing else', async () => {
      expect((await byHash(organizationName)).body).toEqual({
        data: { organization: { name: 'Trusted' } },
      });
      for (const name of ['First', 'Second', 'Third']) {
        expect((await byHash(createWorkflow, { name })).body.errors).toBeUndefined();
      }
      // Newest first: the last two are the two created first.
      expect((await byHash(workflowNames, { last: 2 })).body).toEqual({
        data: { workflows: { nodes: [{ name: 'Second' }, { name: 'First' }] } },
      });
      const refused = await byHash('query NotImported { organization { id } }');
      expect(refused.status).toBe(400);
      expect(refused.body.errors[0].message).toMatch(/no persisted operation has this hash/);
    });
  });
});
