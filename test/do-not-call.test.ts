// The do-not-call list (issue 12, item 6) through REST under both prefixes and
// GraphQL, and the prospects' `timezone` (item 4), through the real HTTP server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { doNotCallNumber } from '../src/records/do-not-call.ts';
import { prospect as prospectRecord } from '../src/records/prospects.ts';
import { graphqlCalls } from './support/graphql.ts';
import { acmeAndGlobex, expectErrorBody, type RestResponse, type restClient } from './support/rest.ts';
import { startTestServer, type TestServer } from './support/server.ts';

const doNotCallSchema = doNotCallNumber.schema;
const prospectSchema = prospectRecord.schema;

const PREFIXES = ['/org/{org}', '/api/org/{org}'];
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/** Envelope A of do-not-call entries, no member more or less. */
const listed = z.strictObject({
  data: z.array(doNotCallSchema),
  pagination: z.strictObject({
    page: z.number().int(),
    limit: z.number().int(),
    total: z.number().int(),
    total_pages: z.number().int(),
  }),
});

type Problem = { path: string; rule: string; message: string };
const problems = (response: RestResponse) => expectErrorBody(response, 400).error as Problem[];

let serial = 0;
/** A number no test has used yet; later calls give larger numbers. */
const freshNumber = () => `+1312555${String(1000 + ++serial).padStart(4, '0')}`;

describe('do-not-call list and prospect time zones', () => {
  let server: TestServer;
  let organizationId: string;
  let apiKey: string;
  let otherKey: string;
  let rest: ReturnType<typeof restClient>;
  let otherRest: ReturnType<typeof restClient>;

  beforeAll(async () => {
    server = await startTestServer();
    ({ organizationId, apiKey, rest, otherKey, otherRest } = await acmeAndGlobex(server));
  });
  afterAll(() => server.close());

  const rows = (orgId = organizationId) =>
    server.db.prisma.doNotCallNumber.findMany({ where: { organizationId: orgId }, orderBy: { number: 'asc' } });

  describe.each(PREFIXES)('REST under %s', (prefix) => {
    const url = (path: string) => `${prefix}${path}`;

    beforeAll(async () => {
      await server.db.prisma.doNotCallNumber.deleteMany({});
    });

    const list = async (query = '', client = rest) => {
      const response = await client('GET', url(`/do-not-call${query}`));
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      return listed.parse(response.body);
    };
    const add = async (body: unknown, headers: Record<string, string> = {}, client = rest) => {
      const response = await client('POST', url('/do-not-call'), { body, headers });
      expect(response.status, JSON.stringify(response.body)).toBe(201);
      return response;
    };

    it('adds numbers once each (201 with the distinct count) and lists them newest first in envelope A', async () => {
      const [a, b, c] = [freshNumber(), freshNumber(), freshNumber()];
      // One request: the same instant for all, so the number orders them.
      expect((await add({ numbers: [b, a, b], reason: 'asked us to stop' })).body).toEqual({ count: 2 });
      expect((await add({ numbers: [c] })).body).toEqual({ count: 1 });
      const page = await list();
      expect(page.data.map((entry) => entry.number)).toEqual([c, a, b]);
      expect(page.data[0]).toEqual({ number: c, reason: null, created_at: expect.stringMatching(ISO) });
      expect(page.data[1]).toMatchObject({ number: a, reason: 'asked us to stop' });
      expect(page.pagination).toEqual({ page: 1, limit: 20, total: 3, total_pages: 1 });
      expect((await rows()).map((row) => row.number)).toEqual([a, b, c].sort());
    });

    it('adding listed numbers again keeps one row each: a reason given replaces theirs, none given keeps it', async () => {
      const [first, second] = (await list()).data.slice(1).map((entry) => entry.number);
      const before = await rows();
      expect((await add({ numbers: [first!, second!, first!], reason: 'legal hold' })).body).toEqual({ count: 2 });
      expect((await add({ numbers: [first!] })).body).toEqual({ count: 1 });
      const after = await rows();
      expect(after).toHaveLength(before.length);
      expect(after.find((row) => row.number === first)).toMatchObject({ reason: 'legal hold' });
      expect(after.find((row) => row.number === second)).toMatchObject({ reason: 'legal hold' });
      // Re-adding does not make a number newer.
      expect(after.map((row) => row.createdAt.getTime())).toEqual(before.map((row) => row.createdAt.getTime()));
    });

    it('pages with page and limit', async () => {
      const all = (await list()).data.map((entry) => entry.number);
      expect(all).toHaveLength(3);
      const first = await list('?page=1&limit=2');
      expect(first.data.map((entry) => entry.number)).toEqual(all.slice(0, 2));
      expect(first.pagination).toEqual({ page: 1, limit: 2, total: 3, total_pages: 2 });
      const second = await list('?page=2&limit=2');
      expect(second.data.map((entry) => entry.number)).toEqual(all.slice(2));
      expect((await list('?page=3&limit=2')).data).toEqual([]);
      expect(problems(await rest('GET', url('/do-not-call?limit=101'))).map((p) => p.path)).toEqual(['limit']);
      expect(problems(await rest('GET', url('/do-not-call?page=0'))).map((p) => p.path)).toEqual(['page']);
    });

    it('refuses invalid numbers and members with a 400 naming each and its rule, and writes nothing', async () => {
      const before = await rows();
      const invalid = problems(
        await rest('POST', url('/do-not-call'), { body: { numbers: [freshNumber(), '4155550100', '+1234567', 7] } }),
      );
      expect(invalid.map((problem) => problem.path)).toEqual(['numbers.1', 'numbers.2', 'numbers.3']);
      expect(invalid[0]).toMatchObject({ rule: 'format regex', message: 'must be E.164: + and 8 to 15 digits' });
      expect(invalid[2]).toMatchObject({ rule: 'type string' });
      expect(problems(await rest('POST', url('/do-not-call'), { body: { numbers: [] } }))).toEqual([
        { path: 'numbers', rule: 'minimum 1', message: expect.any(String) },
      ]);
      expect(problems(await rest('POST', url('/do-not-call'), { body: {} }))).toEqual([
        { path: 'numbers', rule: 'required', message: 'is required' },
      ]);
      expect(
        problems(
          await rest('POST', url('/do-not-call'), { body: { numbers: [freshNumber()], reason: 'x'.repeat(501) } }),
        ),
      ).toEqual([{ path: 'reason', rule: 'maximum 500', message: expect.any(String) }]);
      expect(
        problems(await rest('POST', url('/do-not-call'), { body: { numbers: [freshNumber()], label: 'x' } })),
      ).toEqual([{ path: 'label', rule: 'unknown member', message: 'is not a known member' }]);
      expect(await rows()).toEqual(before);
    });

    it('deletes a listed number (200, an empty object, as E3); an unlisted one is a 404', async () => {
      const number = freshNumber();
      await add({ numbers: [number] });
      const deleted = await rest('DELETE', url(`/do-not-call/${number}`));
      expect(deleted.status).toBe(200);
      expect(deleted.body).toEqual({});
      expect((await list()).data.map((entry) => entry.number)).not.toContain(number);
      expect(await server.db.prisma.doNotCallNumber.count({ where: { number } })).toBe(0);
      expect(expectErrorBody(await rest('DELETE', url(`/do-not-call/${number}`)), 404).message).toBe(
        'do-not-call number not found',
      );
      expectErrorBody(await rest('DELETE', url(`/do-not-call/${freshNumber()}`)), 404);
      // Not a number at all: it cannot be listed.
      expectErrorBody(await rest('DELETE', url('/do-not-call/not-a-number')), 404);
      // The + percent-encoded is the same number.
      const encoded = freshNumber();
      await add({ numbers: [encoded] });
      expect((await rest('DELETE', url(`/do-not-call/${encodeURIComponent(encoded)}`))).status).toBe(200);
      expect(await server.db.prisma.doNotCallNumber.count({ where: { number: encoded } })).toBe(0);
    });

    it('replays a create retried with its Idempotency-Key instead of running it again', async () => {
      const number = freshNumber();
      const key = `dnc-${prefix}-${number}`;
      const first = await add({ numbers: [number] }, { 'idempotency-key': key });
      expect(first.headers.get('idempotent-replayed')).toBeNull();
      await rest('DELETE', url(`/do-not-call/${number}`));
      const again = await add({ numbers: [number] }, { 'idempotency-key': key });
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.body).toEqual(first.body);
      // Replayed, not re-run: the number deleted in between stays off the list.
      expect(await server.db.prisma.doNotCallNumber.count({ where: { number } })).toBe(0);
      // The same key with another body is a conflict.
      expectErrorBody(
        await rest('POST', url('/do-not-call'), {
          body: { numbers: [freshNumber()] },
          headers: { 'idempotency-key': key },
        }),
        409,
      );
    });

    it('another organization sees none of the list and cannot delete from it; its own list is its own', async () => {
      const number = freshNumber();
      await add({ numbers: [number], reason: 'mine' });
      expect((await list('', otherRest)).data).toEqual([]);
      expectErrorBody(await otherRest('DELETE', url(`/do-not-call/${number}`)), 404);
      // Its key on this organization's path reads as missing.
      expectErrorBody(await otherRest('GET', url('/do-not-call').replace('{org}', organizationId)), 404);
      expectErrorBody(await otherRest('DELETE', url(`/do-not-call/${number}`).replace('{org}', organizationId)), 404);
      expect(await server.db.prisma.doNotCallNumber.findFirst({ where: { organizationId, number } })).toMatchObject({
        reason: 'mine',
      });
      // The same number on its own list is another entry.
      expect((await add({ numbers: [number], reason: 'theirs' }, {}, otherRest)).body).toEqual({ count: 1 });
      expect((await list('', otherRest)).data).toEqual([
        { number, reason: 'theirs', created_at: expect.stringMatching(ISO) },
      ]);
      expect(await server.db.prisma.doNotCallNumber.findFirst({ where: { organizationId, number } })).toMatchObject({
        reason: 'mine',
      });
      expect((await otherRest('DELETE', url(`/do-not-call/${number}`))).status).toBe(200);
      expect(await server.db.prisma.doNotCallNumber.findFirst({ where: { organizationId, number } })).toMatchObject({
        reason: 'mine',
      });
    });
  });

  describe('GraphQL', () => {
    const FIELDS = 'number reason createdAt';
    const { gql } = graphqlCalls(
      () => server,
      () => apiKey,
    );
    const addNumbers = `mutation($input: DoNotCallAddInput!) { addDoNotCallNumbers(input: $input) { count } }`;
    const removeNumber = `mutation($number: String!) { removeDoNotCallNumber(number: $number) { ${FIELDS} } }`;
    const listNumbers = `query($first: Int, $after: String) {
      doNotCallNumbers(first: $first, after: $after) { totalCount pageInfo { hasNextPage endCursor } nodes { ${FIELDS} } } }`;

    beforeAll(async () => {
      await server.db.prisma.doNotCallNumber.deleteMany({});
    });

    it('adds, lists newest first with totalCount and paging, and removes', async () => {
      const [a, b, c] = [freshNumber(), freshNumber(), freshNumber()];
      expect(await gql(addNumbers, { input: { numbers: [a, a], reason: 'complaint' } })).toEqual({
        data: { addDoNotCallNumbers: { count: 1 } },
      });
      expect((await gql(addNumbers, { input: { numbers: [c, b] } })).data.addDoNotCallNumbers.count).toBe(2);
      const first = (await gql(listNumbers, { first: 2 })).data.doNotCallNumbers;
      expect(first.totalCount).toBe(3);
      expect(first.nodes.map((node: { number: string }) => node.number)).toEqual([b, c]);
      expect(first.pageInfo.hasNextPage).toBe(true);
      const rest = (await gql(listNumbers, { first: 2, after: first.pageInfo.endCursor })).data.doNotCallNumbers;
      expect(rest.nodes).toEqual([{ number: a, reason: 'complaint', createdAt: expect.stringMatching(ISO) }]);
      expect(rest.pageInfo.hasNextPage).toBe(false);

      const removed = await gql(removeNumber, { number: a });
      expect(removed).toEqual({
        data: { removeDoNotCallNumber: { number: a, reason: 'complaint', createdAt: rest.nodes[0].createdAt } },
      });
      const again = await gql(removeNumber, { number: a });
      expect(again.data).toEqual({ removeDoNotCallNumber: null });
      expect(again.errors[0].extensions.code).toBe('NOT_FOUND');
      expect((await gql(listNumbers, {})).data.doNotCallNumbers.totalCount).toBe(2);
    });

    it('refuses invalid input with BAD_INPUT naming the member and rule, writing nothing', async () => {
      const before = await rows();
      const body = await gql(addNumbers, {
        input: { numbers: [freshNumber(), '+1 415 555 0100'], reason: 'x'.repeat(501) },
      });
      expect(body.errors[0].extensions.code).toBe('BAD_INPUT');
      expect(body.errors[0].extensions.detail).toEqual([
        { path: 'numbers.1', rule: 'format regex', message: 'must be E.164: + and 8 to 15 digits' },
        { path: 'reason', rule: 'maximum 500', message: expect.any(String) },
      ]);
      expect(await rows()).toEqual(before);
    });

    it('another organization sees nothing and removes nothing', async () => {
      const number = freshNumber();
      await gql(addNumbers, { input: { numbers: [number] } });
      expect((await gql(listNumbers, {}, otherKey)).data.doNotCallNumbers).toMatchObject({ totalCount: 0, nodes: [] });
      const refused = await gql(removeNumber, { number }, otherKey);
      expect(refused.errors[0].extensions.code).toBe('NOT_FOUND');
      expect(await server.db.prisma.doNotCallNumber.count({ where: { organizationId, number } })).toBe(1);
    });
  });

  describe('prospect timezone', () => {
    it('REST, both prefixes: a valid IANA zone is stored and returned; a prospect without one reads null', async () => {
      for (const prefix of PREFIXES) {
        const created = await rest('POST', `${prefix}/prospects`, {
          body: {
            prospects: [
              { first_name: 'Ana', phone: '+13125550100', timezone: 'America/Chicago' },
              { first_name: 'Bo' },
            ],
          },
        });
        expect(created.status, JSON.stringify(created.body)).toBe(201);
        const [ana, bo] = z.array(prospectSchema).parse(created.body.created);
        expect(ana!.timezone).toBe('America/Chicago');
        expect(bo!.timezone).toBeNull();
        expect(await server.db.prisma.prospect.findFirst({ where: { id: ana!.id } })).toMatchObject({
          timezone: 'America/Chicago',
        });
        const read = await rest('GET', `${prefix}/prospects/${ana!.id}`);
        expect(prospectSchema.parse(read.body).timezone).toBe('America/Chicago');
        // One prospect's members alone.
        const single = await rest('POST', `${prefix}/prospects`, {
          body: { first_name: 'Cy', timezone: 'Europe/Paris' },
        });
        expect(single.body.created[0].timezone).toBe('Europe/Paris');
      }
    });

    it('REST: an unknown zone is a 400 naming prospects.N.timezone, and nothing is created', async () => {
      const before = await server.db.prisma.prospect.count({ where: { organizationId } });
      for (const prefix of PREFIXES) {
        const refused = problems(
          await rest('POST', `${prefix}/prospects`, {
            body: { prospects: [{ first_name: 'Ok', timezone: 'Asia/Tokyo' }, { timezone: 'Mars/Olympus' }] },
          }),
        );
        expect(refused).toEqual([
          { path: 'prospects.1.timezone', rule: 'format iana_timezone', message: expect.stringContaining('IANA') },
        ]);
        const single = problems(
          await rest('POST', `${prefix}/prospects`, { body: { first_name: 'Zed', timezone: 'Mars/Olympus' } }),
        );
        expect(single.map((problem) => problem.path)).toEqual(['prospects.0.timezone']);
      }
      expect(await server.db.prisma.prospect.count({ where: { organizationId } })).toBe(before);
    });

    it('GraphQL: createProspects takes a timezone and Prospect.timezone returns it; an unknown zone is BAD_INPUT', async () => {
      const create = `mutation($input: ProspectsCreateInput!) { createProspects(input: $input) { id timezone } }`;
      const { data } = (
        await server.graphql(apiKey, create, {
          input: { prospects: [{ firstName: 'Di', timezone: 'Australia/Sydney' }, { firstName: 'Ed' }] },
        })
      ).body;
      expect(data.createProspects.map((prospect: { timezone: string | null }) => prospect.timezone)).toEqual([
        'Australia/Sydney',
        null,
      ]);
      const read = await server.graphql(apiKey, `query($id: ID!) { prospect(id: $id) { timezone } }`, {
        id: data.createProspects[0].id,
      });
      expect(read.body.data.prospect.timezone).toBe('Australia/Sydney');
      const refused = (await server.graphql(apiKey, create, { input: { prospects: [{ timezone: 'Mars/Olympus' }] } }))
        .body;
      expect(refused.errors[0].extensions).toMatchObject({
        code: 'BAD_INPUT',
        detail: [{ path: 'prospects.0.timezone', rule: 'format iana_timezone' }],
      });
    });
  });
});
