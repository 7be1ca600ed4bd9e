// CSV import of prospects (issue 13) through the real server: REST (a
// streamed text/csv body), the GraphQL mutation, the CLI, and the imported
// attributes in the agent's pre-call webhook.
import { once } from 'node:events';
import { createReadStream, createWriteStream } from 'node:fs';
import { appendFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../src/db/database.ts';
import { MAX_ROW_BYTES, prospectImportOptions, readProspectCsv } from '../src/domain/prospect-import.ts';
import type { Dialer } from '../src/engine/dialer.ts';
import { batchIn } from './support/batch-checks.ts';
import { flows } from './support/flows.ts';
import { runCli } from './support/processes.ts';
import { expectErrorBody, restClient } from './support/rest.ts';
import { startTestServer, type TestServer } from './support/server.ts';
import { createTestStorage, type TestStorage } from './support/storage.ts';

const BIG = 100_000;
const bigHeader = 'First Name,Last Name,E-mail,Phone Number,Time Zone,Account Number,Plan\n';
const bigRow = (index: number) =>
  `P${index},"Doe, ${index}",p${index}@example.com,+1212${String(index).padStart(7, '0')},America/New_York,A-${index},${index % 2 ? 'Gold' : 'Silver'}\n`;

/** A CSV file of `rows` prospects, written in pieces (never held whole). */
async function writeBigFile(file: string, rows: number) {
  const out = createWriteStream(file);
  out.write(bigHeader);
  for (let start = 0; start < rows; start += 1000) {
    let piece = '';
    for (let index = start; index < Math.min(rows, start + 1000); index++) piece += bigRow(index);
    if (!out.write(piece)) await once(out, 'drain');
  }
  out.end();
  await finished(out);
}

describe('POST /org/{org_id}/prospects/import', () => {
  let server: TestServer;
  let dir: string;
  beforeAll(async () => {
    server = await startTestServer();
    dir = await mkdtemp(path.join(os.tmpdir(), 'prospect-import-'));
  });
  afterAll(async () => {
    await server?.close();
    await rm(dir, { recursive: true, force: true });
  });

  async function organization() {
    const { organizationId, apiKey } = await server.createOrganization();
    const rest = restClient(server, organizationId, apiKey);
    /** POSTs `body` (text, or a stream) as text/csv; `query` is the query string. */
    const upload = async (body: string | Buffer | ReadableStream, query = '', headers: Record<string, string> = {}) => {
      const response = await fetch(`${server.url}/org/${organizationId}/prospects/import${query}`, {
        method: 'POST',
        headers: { 'content-type': 'text/csv', 'x-api-key': apiKey, ...headers },
        body,
        duplex: 'half',
      } as RequestInit);
      const text = await response.text();
      return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
    };
    const prospects = () =>
      server.db.prisma.prospect.findMany({
        where: { organizationId },
        orderBy: { phone: 'asc' },
        include: { tags: true, lists: true },
      });
    const counts = async () => ({
      prospects: await server.db.prisma.prospect.count({ where: { organizationId } }),
      lists: await server.db.prisma.prospectList.count({ where: { organizationId } }),
    });
    return { organizationId, apiKey, rest, upload, prospects, counts };
  }

  it(`imports ${BIG} rows streamed in one request, with a list and tags; one more row is over the limit`, {
    timeout: 300_000,
  }, async () => {
    const org = await organization();
    const tag = (await org.rest('POST', '/org/{org}/tags', { body: { name: 'Imported' } })).body;
    const file = path.join(dir, 'big.csv');
    await writeBigFile(file, BIG);
    const started = performance.now();
    const response = await org.upload(
      Readable.toWeb(createReadStream(file)) as ReadableStream,
      `?list_name=Big&tag_ids=${tag.id}`,
    );
    const elapsed = performance.now() - started;
    console.log(`${BIG} rows imported in ${Math.round(elapsed)} ms (${server.db.storage.kind})`);
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    expect(response.body).toEqual({ count: BIG, list_id: expect.stringMatching(/^pl_/), duplicates_skipped: 0 });
    expect(await org.counts()).toEqual({ prospects: BIG, lists: 1 });
    expect(await server.db.prisma.prospectListMember.count({ where: { listId: response.body.list_id } })).toBe(BIG);
    expect(await server.db.prisma.prospectTag.count({ where: { tagId: tag.id } })).toBe(BIG);
    const sample = await server.db.prisma.prospect.findFirstOrThrow({
      where: { organizationId: org.organizationId, phone: '+12120012345' },
    });
    expect(sample).toMatchObject({
      firstName: 'P12345',
      lastName: 'Doe, 12345',
      email: 'p12345@example.com',
      timezone: 'America/New_York',
      attributes: { account_number: 'A-12345', plan: 'Gold' },
    });

    const over = await organization();
    await appendFile(file, bigRow(BIG));
    const refused = await over.upload(Readable.toWeb(createReadStream(file)) as ReadableStream);
    expectErrorBody(refused, 400);
    expect(refused.body.error).toEqual([
      { line: BIG + 2, column: null, rule: 'max rows', message: expect.stringContaining(`more than ${BIG} rows`) },
    ]);
    expect(await over.counts()).toEqual({ prospects: 0, lists: 0 });
  });

  it('writes nothing when one row in the middle is bad, and names its line and column', async () => {
    const org = await organization();
    const rows = Array.from(
      { length: 1000 },
      (_, index) =>
        `+1415555${String(index).padStart(4, '0')},${index === 499 ? 'not-an-address' : `p${index}@example.com`}`,
    );
    const response = await org.upload(`phone,email\n${rows.join('\n')}\n`, '?list_name=Never');
    expectErrorBody(response, 400);
    expect(response.body.error).toEqual([
      { line: 501, column: 'email', rule: 'email', message: '"not-an-address" is not an e-mail address' },
    ]);
    expect(response.body.message).toMatch(/^nothing was imported: the file has 1 error; line 501, email: /);
    expect(await org.counts()).toEqual({ prospects: 0, lists: 0 });
  });

  it('lists at most 100 errors and counts them all; each rule is named', async () => {
    const org = await organization();
    const bad = Array.from({ length: 150 }, (_, index) => `+1415555${String(index).padStart(4, '0')},Europe/Nowhere`);
    const response = await org.upload(`phone,timezone\n${bad.join('\n')}\n`);
    expectErrorBody(response, 400);
    expect(response.body.error).toHaveLength(100);
    expect(response.body.error[0]).toEqual({
      line: 2,
      column: 'timezone',
      rule: 'timezone',
      message: expect.stringContaining('IANA'),
    });
    expect(response.body.message).toMatch(/the file has 150 errors \(the first 100 are listed\)/);

    const mixed = await org.upload(
      [
        'Phone,Email,Time Zone,Notes',
        ',a@example.com,,', // line 2: no phone
        'call me,a@example.com,,', // 3: not a number
        '+14155550100,a@example.com,america/chicago,', // 4: time zone misspelled
        '+14155550101,a@example.com,', // 5: ragged
        `+14155550102,a@example.com,,${'x'.repeat(1001)}`, // 6: too long
        '+14155550103,a@example.com,,nul\u0000here', // 7: NUL
      ].join('\r\n'),
    );
    expectErrorBody(mixed, 400);
    expect(
      mixed.body.error.map((problem: { line: number; column: string | null; rule: string }) => [
        problem.line,
        problem.column,
        problem.rule,
      ]),
    ).toEqual([
      [2, 'Phone', 'required'],
      [3, 'Phone', 'phone'],
      [4, 'Time Zone', 'timezone'],
      [5, null, 'columns'],
      [6, 'Notes', 'max length'],
      [7, 'Notes', 'no NUL'],
    ]);
    expect(mixed.body.error[2].message).toContain('must be spelled America/Chicago');
    expect(await org.counts()).toEqual({ prospects: 0, lists: 0 });
  });

  it('reads a BOM, CRLF, quoted commas, quotes and newlines inside quotes, and counts lines across them', async () => {
    const org = await organization();
    const csv =
      '\uFEFFphone,first_name,notes\r\n+14155550101,"Smith, Jane","line one\r\nline two"\r\n\r\n+14155550102,Bob,"said ""hi"""\r\n';
    const response = await org.upload(csv);
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    expect(response.body).toEqual({ count: 2, duplicates_skipped: 0 });
    expect(
      (await org.prospects()).map(({ phone, firstName, attributes }) => ({ phone, firstName, attributes })),
    ).toEqual([
      { phone: '+14155550101', firstName: 'Smith, Jane', attributes: { notes: 'line one\r\nline two' } },
      { phone: '+14155550102', firstName: 'Bob', attributes: { notes: 'said "hi"' } },
    ]);
    // Quoted newlines: Jane spans lines 2-3, the empty line is 4, Bob 5, Eve 6-7; the bad row is line 8.
    const bad = await org.upload(`${csv}+14155550103,"Eve\r\nEve",x\r\nnope,Mallory,y\r\n`);
    expectErrorBody(bad, 400);
    expect(bad.body.error).toEqual([expect.objectContaining({ line: 8, column: 'phone', rule: 'phone' })]);
    const unclosed = await org.upload('phone,first_name\n+14155550104,ok\n+14155550105,"never closed\n');
    expectErrorBody(unclosed, 400);
    expect(unclosed.body.error).toEqual([
      { line: 3, column: null, rule: 'csv', message: expect.stringContaining('not closed') },
    ]);
    const latin1 = await org.upload(Buffer.from('phone,first_name\n+14155550106,Ren\xe9\n', 'latin1'));
    expectErrorBody(latin1, 400);
    expect(latin1.body.error).toEqual([
      { line: null, column: null, rule: 'utf-8', message: 'the file is not UTF-8 text' },
    ]);
    expect((await org.counts()).prospects).toBe(2);
  });

  it('maps header aliases in any case and spacing; other columns become snake_case attributes', async () => {
    const org = await organization();
    const first = await org.upload(
      'Mobile,Given Name,SURNAME,Email Address,TZ,Account Number,Plan\n+14155550111,Ada,Lovelace,ada@example.com,Europe/London,A-1,Gold\n',
    );
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    const second = await org.upload(
      'Phone Number,First Name,last_name,E-mail,Time Zone,Favourite Colour\n+14155550112,Alan,Turing,alan@example.com,,Blue\n',
    );
    expect(second.status, JSON.stringify(second.body)).toBe(201);
    expect(
      (await org.prospects()).map(({ phone, firstName, lastName, email, timezone, attributes }) => ({
        phone,
        firstName,
        lastName,
        email,
        timezone,
        attributes,
      })),
    ).toEqual([
      {
        phone: '+14155550111',
        firstName: 'Ada',
        lastName: 'Lovelace',
        email: 'ada@example.com',
        timezone: 'Europe/London',
        attributes: { account_number: 'A-1', plan: 'Gold' },
      },
      {
        phone: '+14155550112',
        firstName: 'Alan',
        lastName: 'Turing',
        email: 'alan@example.com',
        timezone: null,
        attributes: { favourite_colour: 'Blue' },
      },
    ]);
    // Attributes read through GraphQL too.
    const read = await server.graphql(org.apiKey, '{ prospects(first: 5) { nodes { phone attributes } } }');
    expect(read.body.data.prospects.nodes).toEqual([
      { phone: '+14155550111', attributes: { account_number: 'A-1', plan: 'Gold' } },
      { phone: '+14155550112', attributes: { favourite_colour: 'Blue' } },
    ]);

    for (const [header, rule] of [
      ['Phone,Mobile', 'duplicate column'],
      ['first_name,email', 'required column'],
      ['phone,Plan,plan', 'duplicate column'],
      ['phone,#', 'header'],
    ] as const) {
      const refused = await org.upload(`${header}\n+14155550113,x\n`);
      expectErrorBody(refused, 400);
      expect(refused.body.error, header).toEqual([expect.objectContaining({ line: 1, rule })]);
    }
    const empty = await org.upload('\n\n');
    expect(expectErrorBody(empty, 400).error).toEqual([expect.objectContaining({ rule: 'header' })]);
    const headerOnly = await org.upload('phone,first_name\n');
    expect(expectErrorBody(headerOnly, 400).error).toEqual([expect.objectContaining({ rule: 'rows' })]);
    expect((await org.counts()).prospects).toBe(2);
  });

  it('duplicates: skip (the default), update (attributes merged) or error, against stored prospects and earlier rows', async () => {
    const org = await organization();
    await org.rest('POST', '/org/{org}/prospects', {
      body: { phone: '+14155550100', first_name: 'Old', last_name: 'Kept' },
    });
    const stored = async () =>
      (await org.prospects()).map(({ phone, firstName, lastName, attributes }) => ({
        phone,
        firstName,
        lastName,
        attributes,
      }));

    const skipped = await org.upload('phone,first_name\n+14155550100,New\n+14155550101,Fresh\n+14155550101,Again\n');
    expect(skipped.body).toEqual({ count: 1, duplicates_skipped: 2 });
    expect(await stored()).toEqual([
      { phone: '+14155550100', firstName: 'Old', lastName: 'Kept', attributes: {} },
      { phone: '+14155550101', firstName: 'Fresh', lastName: '', attributes: {} },
    ]);

    const refused = await org.upload(
      'phone,first_name\n+14155550102,Other\n+14155550100,Clash\n+14155550102,Twice\n',
      '?on_duplicate=error',
    );
    expectErrorBody(refused, 400);
    // The repeat within the file is found as the file is read, before the stored prospects are looked at.
    expect(refused.body.error).toEqual([
      { line: 4, column: 'phone', rule: 'duplicate', message: '+14155550102 is also the phone of line 2' },
    ]);
    const clash = await org.upload('phone,first_name\n+14155550102,Other\n+14155550100,Clash\n', '?on_duplicate=error');
    expectErrorBody(clash, 400);
    expect(clash.body.error).toEqual([
      {
        line: 3,
        column: 'phone',
        rule: 'duplicate',
        message: expect.stringMatching(/^\+14155550100 is the phone of prospect prs_/),
      },
    ]);

    const updated = await org.upload(
      'phone,first_name,plan\n+14155550100,Updated,Gold\n+14155550103,A,x\n+14155550103,B,y\n',
      '?on_duplicate=update',
    );
    expect(updated.body).toEqual({ count: 2, duplicates_skipped: 0 });
    const again = await org.upload('phone,seats\n+14155550100,3\n', '?on_duplicate=update');
    expect(again.body).toEqual({ count: 1, duplicates_skipped: 0 });
    expect(await stored()).toEqual([
      // Only the columns the file has change; attributes merge.
      { phone: '+14155550100', firstName: 'Updated', lastName: 'Kept', attributes: { plan: 'Gold', seats: '3' } },
      { phone: '+14155550101', firstName: 'Fresh', lastName: '', attributes: {} },
      { phone: '+14155550103', firstName: 'B', lastName: '', attributes: { plan: 'y' } },
    ]);
    expectErrorBody(await org.upload('phone\n+14155550104\n', '?on_duplicate=merge'), 400);
  });

  it('list_name creates a list of the imported prospects; tag_ids (comma-separated) tags them; an unknown tag writes nothing', async () => {
    const org = await organization();
    const [gold, vip] = [
      (await org.rest('POST', '/org/{org}/tags', { body: { name: 'Gold' } })).body,
      (await org.rest('POST', '/org/{org}/tags', { body: { name: 'VIP' } })).body,
    ];
    await org.rest('POST', '/org/{org}/prospects', { body: { phone: '+14155550100' } });
    const response = await org.upload(
      'phone\n+14155550100\n+14155550121\n+14155550122\n',
      `?list_name=June%20leads&tag_ids=${gold.id},${vip.id}`,
    );
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    expect(response.body).toEqual({ count: 2, list_id: expect.stringMatching(/^pl_/), duplicates_skipped: 1 });
    const list = await server.graphql(
      org.apiKey,
      'query($id: ID!) { node(id: $id) { ... on ProspectList { name prospectCount } } }',
      { id: response.body.list_id },
    );
    expect(list.body.data.node).toEqual({ name: 'June leads', prospectCount: 2 });
    const shown = (await org.prospects()).map(({ phone, tags, lists }) => ({
      phone,
      tags: tags.map((tag) => tag.tagId).sort(),
      lists: lists.length,
    }));
    expect(shown).toEqual([
      { phone: '+14155550100', tags: [], lists: 0 }, // skipped: left as it was
      { phone: '+14155550121', tags: [gold.id, vip.id].sort(), lists: 1 },
      { phone: '+14155550122', tags: [gold.id, vip.id].sort(), lists: 1 },
    ]);
    const unknown = await org.upload(
      'phone\n+14155550123\n',
      `?list_name=Never&tag_ids=${gold.id},tag_${'0'.repeat(32)}`,
    );
    expectErrorBody(unknown, 400);
    expect(unknown.body.error).toEqual([
      { path: 'tag_ids', rule: 'exists', message: `tag tag_${'0'.repeat(32)} does not exist` },
    ]);
    expect(await org.counts()).toEqual({ prospects: 3, lists: 1 });
  });

  it('default_country reads national numbers; without it they are refused', async () => {
    const org = await organization();
    const national = 'phone\n(415) 555-0131\n+44 20 7946 0958\n';
    expectErrorBody(await org.upload(national), 400);
    const refused = await org.upload(national);
    expect(refused.body.error).toEqual([
      { line: 2, column: 'phone', rule: 'phone', message: expect.stringContaining('set default_country') },
    ]);
    const imported = await org.upload(national, '?default_country=us');
    expect(imported.body).toEqual({ count: 2, duplicates_skipped: 0 });
    expect((await org.prospects()).map((prospect) => prospect.phone)).toEqual(['+14155550131', '+442079460958']);
    const french = await org.upload('phone\n01 23 45 67 89\n', '?default_country=FR');
    expect(french.body).toEqual({ count: 1, duplicates_skipped: 0 });
    const wrong = await org.upload('phone\n01 23 45 67 89\n', '?default_country=XX');
    expect(expectErrorBody(wrong, 400).error).toEqual([expect.objectContaining({ path: 'default_country' })]);
  });

  it('answers 415 to another media type, 413 to a body over the size limit, 401 without a key, 404 for another organization', async () => {
    const org = await organization();
    const json = await org.rest('POST', '/org/{org}/prospects/import', { body: { phone: '+14155550100' } });
    expectErrorBody(json, 415);
    expectErrorBody(await org.upload('phone\n+14155550100\n', '', { 'content-type': 'text/csv; charset=latin1' }), 415);
    expectErrorBody(await org.upload('phone\n+14155550100\n', '', { 'x-api-key': 'gwk_nope' }), 401);
    const other = await organization();
    const foreign = await fetch(`${server.url}/org/${other.organizationId}/prospects/import`, {
      method: 'POST',
      headers: { 'content-type': 'text/csv', 'x-api-key': org.apiKey },
      body: 'phone\n+14155550100\n',
    });
    expect(foreign.status).toBe(404);

    // Declared too large: refused before reading; the connection closes instead of reading the rest.
    const declared = await new Promise<{ status: number; connection: string | undefined; body: string }>(
      (resolve, reject) => {
        const request = http.request(`${server.url}/org/${org.organizationId}/prospects/import`, {
          method: 'POST',
          headers: { 'content-type': 'text/csv', 'x-api-key': org.apiKey, 'content-length': String(40 * 1024 * 1024) },
        });
        request.on('response', (response) => {
          let body = '';
          response.on('data', (chunk) => (body += chunk));
          response.on('end', () =>
            resolve({ status: response.statusCode!, connection: response.headers.connection, body }),
          );
        });
        request.on('error', reject);
        request.write('phone\n+14155550100\n');
      },
    );
    expect(declared.status).toBe(413);
    expect(declared.connection).toBe('close');
    expect(JSON.parse(declared.body)).toMatchObject({ status: false, data: null });

    // Streamed (chunked) past the limit, in fewer rows than the row limit: refused once the limit is passed.
    async function* tooMuch() {
      yield Buffer.from('phone,note\n');
      const note = 'x'.repeat(400);
      for (let start = 0; start < 100_000; start += 1000) {
        yield Buffer.from(
          Array.from({ length: 1000 }, (_, index) => `+1415${String(start + index).padStart(7, '0')},${note}\n`).join(
            '',
          ),
        );
      }
    }
    const streamed = await org
      .upload(Readable.toWeb(Readable.from(tooMuch())) as ReadableStream)
      .catch((error: Error) => ({ status: 0, error }));
    expect(streamed.status).toBe(413);
    expect(await org.counts()).toEqual({ prospects: 0, lists: 0 });
  });

  it('counts blank lines toward the row limit, and bounds a row: 3 MiB of blank lines is refused at the limit', async () => {
    const org = await organization();
    const blank = await org.upload('\n'.repeat(3 * 1024 * 1024));
    expectErrorBody(blank, 400);
    const maxRows = {
      column: null,
      rule: 'max rows',
      message: `the file has more than ${BIG} rows, blank ones included (PROSPECT_IMPORT_MAX_ROWS)`,
    };
    // Refused at the limit's line, the rest of the body unread: the connection closes rather than read it.
    expect(blank.body.error).toEqual([{ line: BIG + 2, ...maxRows }]);
    expect(blank.headers.get('connection')).toBe('close');
    const belowHeader = await org.upload(`phone\n+14155550160\n${'\r\n'.repeat(BIG)}`);
    expect(belowHeader.body.error).toEqual([{ line: BIG + 2, ...maxRows }]);

    const long = await org.upload(`phone,notes\n+14155550161,${'x'.repeat(MAX_ROW_BYTES)}\n+14155550162,y\n`);
    expectErrorBody(long, 400);
    expect(long.body.error).toEqual([
      { line: 2, column: null, rule: 'csv', message: `the row is longer than ${MAX_ROW_BYTES} bytes` },
    ]);
    expect(await org.counts()).toEqual({ prospects: 0, lists: 0 });

    // Blank lines within the limit are read past, as before.
    const spaced = await org.upload('\nphone\n\n+14155550163\n\n\n+14155550164\n');
    expect(spaced.status, JSON.stringify(spaced.body)).toBe(201);
    expect(spaced.body).toEqual({ count: 2, duplicates_skipped: 0 });
  });

  it('an Idempotency-Key replays the first answer for the same file and options; another file with it is a 409', async () => {
    const org = await organization();
    const csv = 'phone\n+14155550141\n+14155550142\n';
    const first = await org.upload(csv, '?list_name=Once', { 'idempotency-key': 'import-1' });
    expect(first.status).toBe(201);
    const replay = await org.upload(csv, '?list_name=Once', { 'idempotency-key': 'import-1' });
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(first.body);
    expect(await org.counts()).toEqual({ prospects: 2, lists: 1 });
    expectErrorBody(
      await org.upload('phone\n+14155550143\n', '?list_name=Once', { 'idempotency-key': 'import-1' }),
      409,
    );
    expectErrorBody(await org.upload(csv, '?list_name=Twice', { 'idempotency-key': 'import-1' }), 409);
    // Under the other prefix it is the same request.
    const prefixed = await fetch(`${server.url}/api/org/${org.organizationId}/prospects/import?list_name=Once`, {
      method: 'POST',
      headers: { 'content-type': 'text/csv', 'x-api-key': org.apiKey, 'idempotency-key': 'import-1' },
      body: csv,
    });
    expect(prefixed.headers.get('idempotent-replayed')).toBe('true');
    expect(await org.counts()).toEqual({ prospects: 2, lists: 1 });
  });

  it('GraphQL importProspects: the same import for small files; a bad file is BAD_INPUT with the same detail', async () => {
    const org = await organization();
    const mutation = `mutation($csv: String!, $options: ProspectImportOptionsInput) {
      importProspects(csv: $csv, options: $options) { count listId duplicatesSkipped } }`;
    const imported = await server.graphql(org.apiKey, mutation, {
      csv: 'First Name,Mobile,Plan\nAda,(415) 555-0151,Gold\nAlan,(415) 555-0151,Silver\n',
      options: { listName: 'From GraphQL', defaultCountry: 'US', onDuplicate: 'skip' },
    });
    expect(imported.body.errors).toBeUndefined();
    expect(imported.body.data.importProspects).toEqual({
      count: 1,
      listId: expect.stringMatching(/^pl_/),
      duplicatesSkipped: 1,
    });
    expect(
      (await org.prospects()).map(({ phone, firstName, attributes }) => ({ phone, firstName, attributes })),
    ).toEqual([{ phone: '+14155550151', firstName: 'Ada', attributes: { plan: 'Gold' } }]);
    const refused = await server.graphql(org.apiKey, mutation, { csv: 'phone,email\n+14155550152,nope\n' });
    expect(refused.body.data?.importProspects ?? null).toBeNull();
    expect(refused.body.errors[0].extensions).toMatchObject({
      code: 'BAD_INPUT',
      detail: [{ line: 2, column: 'email', rule: 'email', message: '"nope" is not an e-mail address' }],
    });
    expect((await org.counts()).prospects).toBe(1);
  });
});

describe('reading a CSV file', () => {
  it("gives other work turns while it reads: a file handed over whole (GraphQL's text) is not read in one go", async () => {
    const rows = 20_000;
    const file = Buffer.from(bigHeader + Array.from({ length: rows }, (_, index) => bigRow(index)).join(''));
    let reading = true;
    let turns = 0;
    const turn = () => {
      if (!reading) return;
      turns++;
      setImmediate(turn);
    };
    setImmediate(turn);
    const parsed = await readProspectCsv([file], prospectImportOptions.parse({}));
    reading = false;
    expect(parsed.rows.lines).toHaveLength(rows);
    // Each turn is one the event loop gave other requests while the file was read.
    expect(turns).toBeGreaterThan(1);
  });
});

describe('gateway prospects import (CLI)', () => {
  let storage: TestStorage;
  let dir: string;
  beforeAll(async () => {
    storage = await createTestStorage();
    dir = await mkdtemp(path.join(os.tmpdir(), 'prospect-import-cli-'));
  });
  afterAll(async () => {
    await storage?.dispose();
    await rm(dir, { recursive: true, force: true });
  });
  const cli = (...args: string[]) => runCli(args, storage.env);

  it('streams a file into the organization, JSON on stdout; a bad file exits 1 listing its errors on stderr', {
    timeout: 180_000,
  }, async () => {
    expect((await cli('migrate')).code).toBe(0);
    const { organization_id: org } = JSON.parse((await cli('orgs', 'create', '--name', 'Importer')).stdout);
    const file = path.join(dir, 'people.csv');
    await writeFile(
      file,
      'First Name,Phone,Plan\nAda,(415) 555-0161,Gold\nAlan,+14155550162,Silver\nAda again,415-555-0161,Gold\n',
    );
    const imported = await cli(
      'prospects',
      'import',
      '--org',
      org,
      file,
      '--list-name',
      'CLI',
      '--default-country',
      'US',
    );
    expect(imported.code, imported.stderr).toBe(0);
    expect(JSON.parse(imported.stdout)).toEqual({
      count: 2,
      list_id: expect.stringMatching(/^pl_/),
      duplicates_skipped: 1,
    });

    await writeFile(file, 'phone,email\n+14155550163,ok@example.com\n+14155550164,broken\n');
    const refused = await cli('prospects', 'import', '--org', org, file, '--on-duplicate', 'error');
    expect(refused).toMatchObject({ code: 1, stdout: '' });
    expect(refused.stderr).toContain('gateway: nothing was imported');
    expect(refused.stderr).toContain(
      JSON.stringify({ line: 3, column: 'email', rule: 'email', message: '"broken" is not an e-mail address' }),
    );
    expect((await cli('prospects', 'import', '--org', org)).code).toBe(2); // no file
    expect((await cli('prospects', 'import', '--org', 'org_nope', file)).code).toBe(1);

    const db = await openDatabase(storage.storage);
    try {
      const stored = await db.prisma.prospect.findMany({
        where: { organizationId: org },
        orderBy: { phone: 'asc' },
        include: { lists: true },
      });
      expect(
        stored.map(({ phone, firstName, attributes, lists }) => ({
          phone,
          firstName,
          attributes,
          lists: lists.length,
        })),
      ).toEqual([
        { phone: '+14155550161', firstName: 'Ada', attributes: { plan: 'Gold' }, lists: 1 },
        { phone: '+14155550162', firstName: 'Alan', attributes: { plan: 'Silver' }, lists: 1 },
      ]);
    } finally {
      await db.close();
    }
  });
});

describe("imported attributes in the agent's pre-call webhook", () => {
  it('renders {{prospect.attributes.<name>}} in the body template', async () => {
    const received: unknown[] = [];
    const receiver = http.createServer((request, response) => {
      let body = '';
      request.on('data', (chunk) => (body += chunk));
      request.on('end', () => {
        received.push(JSON.parse(body));
        response.setHeader('content-type', 'application/json');
        response.end('{}');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const dialer: Dialer = { dial: async () => ({ outcome: 'answered', durationSeconds: 1, reason: null }) };
    const server = await startTestServer({ engine: { dialer } });
    try {
      const { organizationId, apiKey } = await server.createOrganization();
      const api = flows(server, apiKey);
      const response = await fetch(`${server.url}/org/${organizationId}/prospects/import?list_name=Call`, {
        method: 'POST',
        headers: { 'content-type': 'text/csv', 'x-api-key': apiKey },
        body: 'First Name,Phone,Account Number,Plan\nAda,+14155550171,A-42,Gold\n',
      });
      const { list_id: listId } = await response.json();
      const agentId = await api.agent({
        precallWebhook: {
          method: 'POST',
          url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/precall`,
          bodyTemplate: {
            greeting: 'Hi {{prospect.first_name}} ({{prospect.attributes.plan}})',
            account: '{{prospect.attributes.account_number}}',
            unknown: '{{prospect.attributes.nope}}',
          },
        },
      });
      const workflowId = await api.workflow([{ id: 'dial', type: 'call', agent_id: agentId }]);
      const { createBatch } = await api.ok(
        `mutation($w: ID!, $input: BatchCreateInput!) { createBatch(workflowId: $w, input: $input) { id } }`,
        {
          w: workflowId,
          input: { prospectListId: listId },
        },
      );
      expect(await batchIn(server.db, createBatch.id, ['FINISHED', 'FAILED'])).toMatchObject({ status: 'FINISHED' });
      expect(received).toEqual([
        { greeting: 'Hi Ada (Gold)', account: 'A-42', unknown: '{{prospect.attributes.nope}}' },
      ]);
    } finally {
      await server.close();
      await new Promise<void>((resolve) => receiver.close(() => resolve()));
    }
  });
});
