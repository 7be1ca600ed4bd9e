// Contract tests: E15-E17, E20 and the telephony list extensions
// (GET /sip-trunks, GET /phone-numbers), through the real HTTP server, on both
// prefixes, against SPEC.md's shapes and DECISIONS.md's error codes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { insight } from '../src/records/insights.ts';
import { phoneNumber, sipTrunk } from '../src/records/telephony.ts';
import { endedAttempt } from './support/ended-attempts.ts';
import { acmeAndGlobex, expectErrorBody, type RestResponse, restClient } from './support/rest.ts';
import { startTestServer, type TestServer } from './support/server.ts';

const insightSchema = insight.schema;
const phoneNumberSchema = phoneNumber.schema;
const trunkSchema = sipTrunk.schema;

const PREFIXES = ['/org/{org}', '/api/org/{org}'];
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const DATE = /^\d{4}-\d\d-\d\d$/;
const PROVIDERS = ['twilio', 'telnyx', 'custom', 'plivo', 'vonage', 'other'];

/** SPEC.md's E15 response, no member more or less. */
const sipTrunkCreated = z.strictObject({
  inbound_trunk: trunkSchema,
  outbound_trunk: trunkSchema,
  phone_numbers: z.array(phoneNumberSchema),
});
/** SPEC.md's E17 response. */
const numbersCreated = z.strictObject({ count: z.number().int(), created: z.array(phoneNumberSchema) });
/** DECISIONS.md's list extensions: `{ data: [...] }`. */
const trunkList = z.strictObject({ data: z.array(trunkSchema) });
const numberList = z.strictObject({ data: z.array(phoneNumberSchema) });
/** SPEC.md's envelope C. */
const envelopeC = z.strictObject({
  insights: z.array(insightSchema),
  limit: z.number().int(),
  offset: z.number().int(),
  total: z.number().int(),
});

type Problem = { path: string; rule: string; message: string };
/** A 400 in SPEC.md's error body; returns the field problems it names. */
const problems = (response: RestResponse) => expectErrorBody(response, 400).error as Problem[];
const pathsOf = (response: RestResponse) =>
  problems(response)
    .map((problem) => problem.path)
    .sort();

// Numbers unique to each prefix's run (each prefix gets its own server anyway).
let serial = 0;
const freshNumber = () => `+1415${String(5_550_000 + ++serial).padStart(7, '0')}`;

describe.each(PREFIXES)('REST under %s: SIP trunks, phone numbers, insights', (prefix) => {
  let server: TestServer;
  let rest: ReturnType<typeof restClient>;
  let otherRest: ReturnType<typeof restClient>;
  let organizationId: string;
  let otherOrganizationId: string;
  const url = (path: string) => `${prefix}${path}`;
  /** The same path in another organization's own address space. */
  const foreignUrl = (path: string) => `${prefix.replace('{org}', 'org_someone_else')}${path}`;

  beforeAll(async () => {
    server = await startTestServer();
    ({ organizationId, rest, otherOrganizationId, otherRest } = await acmeAndGlobex(server));
  });
  afterAll(() => server.close());

  async function trunk(body: Record<string, unknown> = {}, client = rest) {
    const response = await client('POST', url('/sip-trunks'), {
      body: { name: 'Main', address: 'sip.example.com', provider: 'twilio', phone_numbers: [freshNumber()], ...body },
    });
    expect(response.status).toBe(201);
    return sipTrunkCreated.parse(response.body);
  }
  async function listedNumbers(client = rest) {
    const response = await client('GET', url('/phone-numbers'));
    expect(response.status).toBe(200);
    return numberList.parse(response.body).data;
  }
  async function listedTrunks(client = rest) {
    const response = await client('GET', url('/sip-trunks'));
    expect(response.status).toBe(200);
    return trunkList.parse(response.body).data;
  }

  /** The failures every route shares: 401, a foreign organization's path, and (with a body) 415, 413, malformed JSON. */
  async function expectCommonFailures(method: 'GET' | 'POST', path: string, body?: Record<string, unknown>) {
    expectErrorBody(await rest(method, url(path), { body, apiKey: null }), 401);
    expectErrorBody(await rest(method, url(path), { body, apiKey: 'gwk_not_a_key' }), 401);
    expectErrorBody(await rest(method, foreignUrl(path), { body }), 404);
    // Another organization's key on this organization's path reads as missing too.
    expectErrorBody(await otherRest(method, url(path).replace('{org}', organizationId), { body }), 404);
    if (method === 'POST') {
      expectErrorBody(await rest(method, url(path), { raw: '{"name":' }), 400);
      expectErrorBody(await rest(method, url(path), { raw: 'name=x', headers: { 'content-type': 'text/plain' } }), 415);
      expectErrorBody(
        await rest(method, url(path), {
          raw: 'name=x',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
        }),
        415,
      );
      expectErrorBody(await rest(method, url(path), { body: { ...body, padding: 'a'.repeat(1024 * 1024) } }), 413);
    }
  }

  describe('E15 POST /sip-trunks', () => {
    it('answers 201 with the inbound and outbound trunk and the numbers, field for field, never the password', async () => {
      const numbers = [freshNumber(), freshNumber()];
      const response = await rest('POST', url('/sip-trunks'), {
        body: {
          name: 'Main trunk',
          address: 'sip.example.com:5060',
          provider: 'telnyx',
          phone_numbers: numbers,
          auth_username: 'acme-user',
          auth_password: 'correct horse battery staple',
          max_concurrency: 25,
        },
      });
      expect(response.status).toBe(201);
      const created = sipTrunkCreated.parse(response.body);
      expect(created).toEqual(response.body);
      expect(Object.keys(response.body).sort()).toEqual(['inbound_trunk', 'outbound_trunk', 'phone_numbers']);
      const summary = { name: 'Main trunk', provider: 'telnyx', is_active: true, max_concurrency: 25, phone_count: 2 };
      expect(created.inbound_trunk).toEqual({ id: expect.stringMatching(/^trk_/), type: 'inbound', ...summary });
      expect(created.outbound_trunk).toEqual({ id: expect.stringMatching(/^trk_/), type: 'outbound', ...summary });
      expect(created.inbound_trunk.id).not.toBe(created.outbound_trunk.id);
      // DECISIONS.md: the numbers are created on the outbound trunk of the pair.
      expect([...created.phone_numbers].sort((a, b) => a.number.localeCompare(b.number))).toEqual(
        [...numbers].sort().map((number) => ({
          id: expect.stringMatching(/^num_/),
          number,
          label: '',
          provider: 'telnyx',
          sip_trunk_id: created.outbound_trunk.id,
          trunk_name: 'Main trunk',
          is_verified: false,
        })),
      );
      expect(new Set(created.phone_numbers.map((number) => number.id)).size).toBe(2);

      // The password never appears in any response, and is not stored in the clear.
      const secret = 'correct horse battery staple';
      expect(JSON.stringify(response.body)).not.toContain(secret);
      expect(JSON.stringify(response.body)).not.toContain('password');
      const trunks = await rest('GET', url('/sip-trunks'));
      const listed = await rest('GET', url('/phone-numbers'));
      for (const read of [trunks, listed]) {
        expect(read.status).toBe(200);
        expect(JSON.stringify(read.body)).not.toContain(secret);
        expect(JSON.stringify(read.body)).not.toContain('password');
      }
      const stored = await server.db.prisma.sipTrunk.findMany({
        where: { id: { in: [created.inbound_trunk.id, created.outbound_trunk.id] } },
      });
      expect(stored).toHaveLength(2);
      for (const row of stored) {
        expect(row.authPasswordEncrypted).toBeTruthy();
        expect(row.authPasswordEncrypted).not.toContain(secret);
      }
    });

    it('accepts each of the six providers, with the defaults for the optional members', async () => {
      for (const provider of PROVIDERS) {
        const number = freshNumber();
        const created = await trunk({ name: `T ${provider}`, provider, phone_numbers: [number] });
        expect(created.inbound_trunk).toMatchObject({
          provider,
          type: 'inbound',
          max_concurrency: 10,
          phone_count: 1,
          is_active: true,
        });
        expect(created.outbound_trunk).toMatchObject({
          provider,
          type: 'outbound',
          max_concurrency: 10,
          phone_count: 1,
        });
        expect(created.phone_numbers).toEqual([
          expect.objectContaining({ number, provider, label: '', trunk_name: `T ${provider}` }),
        ]);
      }
    });

    it('answers 400 naming each offending member, and writes nothing', async () => {
      const before = { trunks: (await listedTrunks()).length, numbers: (await listedNumbers()).length };
      const valid = { name: 'Bad', address: 'sip.example.com', provider: 'twilio', phone_numbers: [freshNumber()] };

      const empty = problems(await rest('POST', url('/sip-trunks'), { body: { ...valid, phone_numbers: [] } }));
      expect(empty).toEqual([expect.objectContaining({ path: 'phone_numbers', rule: 'minimum 1' })]);
      const notE164 = problems(
        await rest('POST', url('/sip-trunks'), { body: { ...valid, phone_numbers: [freshNumber(), '4155550123'] } }),
      );
      expect(notE164).toEqual([expect.objectContaining({ path: 'phone_numbers.1' })]);
      for (const bad of ['+1234567', '+1234567890123456', '+1415555abcd', '0014155550123']) {
        expect(pathsOf(await rest('POST', url('/sip-trunks'), { body: { ...valid, phone_numbers: [bad] } }))).toEqual([
          'phone_numbers.0',
        ]);
      }
      const provider = problems(await rest('POST', url('/sip-trunks'), { body: { ...valid, provider: 'acme-voip' } }));
      expect(provider).toEqual([expect.objectContaining({ path: 'provider', rule: 'enum' })]);
      expect(pathsOf(await rest('POST', url('/sip-trunks'), { body: { ...valid, provider: 'Twilio' } }))).toEqual([
        'provider',
      ]);

      const { name: _name, address: _address, ...withoutNameAndAddress } = valid;
      const missing = problems(await rest('POST', url('/sip-trunks'), { body: withoutNameAndAddress }));
      expect(missing.map(({ path, rule }) => ({ path, rule })).sort((a, b) => a.path.localeCompare(b.path))).toEqual([
        { path: 'address', rule: 'required' },
        { path: 'name', rule: 'required' },
      ]);
      const { phone_numbers: _numbers, provider: _provider, ...withoutNumbersAndProvider } = valid;
      expect(problems(await rest('POST', url('/sip-trunks'), { body: withoutNumbersAndProvider }))).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ path: 'phone_numbers', rule: 'required' }),
          expect.objectContaining({ path: 'provider', rule: 'required' }),
        ]),
      );
      expect(pathsOf(await rest('POST', url('/sip-trunks'), { body: {} }))).toEqual([
        'address',
        'name',
        'phone_numbers',
        'provider',
      ]);
      expect(pathsOf(await rest('POST', url('/sip-trunks'), { body: { ...valid, name: 7 } }))).toEqual(['name']);
      expect(pathsOf(await rest('POST', url('/sip-trunks'), { body: { ...valid, name: '', address: '' } }))).toEqual([
        'address',
        'name',
      ]);
      // DECISIONS.md: bulk arrays hold at most 10,000 items.
      const tooMany = Array.from({ length: 10_001 }, (_, index) => `+1650${String(index).padStart(7, '0')}`);
      expect(problems(await rest('POST', url('/sip-trunks'), { body: { ...valid, phone_numbers: tooMany } }))).toEqual([
        expect.objectContaining({ path: 'phone_numbers', rule: 'maximum 10000' }),
      ]);
      expect(
        pathsOf(await rest('POST', url('/sip-trunks'), { body: { ...valid, phone_numbers: '+14155550100' } })),
      ).toEqual(['phone_numbers']);
      expect(pathsOf(await rest('POST', url('/sip-trunks'), { body: { ...valid, max_concurrency: 1.5 } }))).toEqual([
        'max_concurrency',
      ]);
      expect(pathsOf(await rest('POST', url('/sip-trunks'), { body: { ...valid, max_concurrency: 0 } }))).toEqual([
        'max_concurrency',
      ]);
      expect(pathsOf(await rest('POST', url('/sip-trunks'), { body: { ...valid, auth_password: 42 } }))).toEqual([
        'auth_password',
      ]);
      expect(problems(await rest('POST', url('/sip-trunks'), { body: { ...valid, direction: 'inbound' } }))).toEqual([
        expect.objectContaining({ path: 'direction', rule: 'unknown member' }),
      ]);
      // The 400's message names the member too, and the error body never echoes the password.
      const message = expectErrorBody(
        await rest('POST', url('/sip-trunks'), { body: { ...valid, provider: 'x', auth_password: 'hunter2-secret' } }),
        400,
      );
      expect(message.message).toContain('provider');
      expect(JSON.stringify(message)).not.toContain('hunter2-secret');

      expect((await listedTrunks()).length).toBe(before.trunks);
      expect((await listedNumbers()).length).toBe(before.numbers);
    });

    it('answers 409 for a number the organization already has, or one repeated in the request, and writes nothing', async () => {
      const existing = freshNumber();
      await trunk({ phone_numbers: [existing] });
      const before = { trunks: (await listedTrunks()).length, numbers: await listedNumbers() };

      const fresh = freshNumber();
      const duplicate = expectErrorBody(
        await rest('POST', url('/sip-trunks'), {
          body: { name: 'Dup', address: 'sip.example.com', provider: 'twilio', phone_numbers: [fresh, existing] },
        }),
        409,
      );
      expect(duplicate.message).toContain(existing);
      expect(duplicate.error).toEqual({ numbers: [existing] });

      const repeatedNumber = freshNumber();
      const repeated = expectErrorBody(
        await rest('POST', url('/sip-trunks'), {
          body: {
            name: 'Twice',
            address: 'sip.example.com',
            provider: 'twilio',
            phone_numbers: [repeatedNumber, fresh, repeatedNumber],
          },
        }),
        409,
      );
      expect(repeated.message).toContain(repeatedNumber);
      expect(repeated.error).toEqual({ numbers: [repeatedNumber] });

      // All or nothing: neither trunk of either pair, nor any of their numbers, was written.
      expect((await listedTrunks()).length).toBe(before.trunks);
      const after = await listedNumbers();
      expect(after).toEqual(before.numbers);
      expect(after.map((number) => number.number)).not.toContain(fresh);
      expect(after.map((number) => number.number)).not.toContain(repeatedNumber);

      // Numbers are unique within an organization only: another organization may hold the same one.
      const elsewhere = await otherRest('POST', url('/sip-trunks'), {
        body: { name: 'Other', address: 'sip.example.net', provider: 'other', phone_numbers: [existing] },
      });
      expect(elsewhere.status).toBe(201);
      expect(sipTrunkCreated.parse(elsewhere.body).phone_numbers[0]!.number).toBe(existing);
    });

    it('answers 401, 404 (foreign path), 400 (malformed JSON), 415 and 413 in the error body', async () => {
      const before = (await listedTrunks()).length;
      await expectCommonFailures('POST', '/sip-trunks', {
        name: 'Never',
        address: 'sip.example.com',
        provider: 'twilio',
        phone_numbers: [freshNumber()],
      });
      expect((await listedTrunks()).length).toBe(before);
    });
  });

  describe('E16 POST /phone-numbers', () => {
    it('answers 201 with the phone number on the trunk named, field for field', async () => {
      const pair = await trunk({ name: 'Sixteen', provider: 'plivo' });
      const number = freshNumber();
      const response = await rest('POST', url('/phone-numbers'), {
        body: { number, sip_trunk_id: pair.inbound_trunk.id, label: 'Support line' },
      });
      expect(response.status).toBe(201);
      expect(phoneNumberSchema.parse(response.body)).toEqual(response.body);
      expect(response.body).toEqual({
        id: expect.stringMatching(/^num_/),
        number,
        label: 'Support line',
        provider: 'plivo',
        sip_trunk_id: pair.inbound_trunk.id,
        trunk_name: 'Sixteen',
        is_verified: false,
      });
      const unlabelled = await rest('POST', url('/phone-numbers'), {
        body: { number: freshNumber(), sip_trunk_id: pair.outbound_trunk.id },
      });
      expect(unlabelled.status).toBe(201);
      expect(phoneNumberSchema.parse(unlabelled.body)).toMatchObject({
        label: '',
        sip_trunk_id: pair.outbound_trunk.id,
      });

      // Both halves of the pair count the pair's numbers (DECISIONS.md: numbers attach to the trunk pair).
      const listed = (await listedTrunks()).filter(
        (t) => t.id === pair.inbound_trunk.id || t.id === pair.outbound_trunk.id,
      );
      expect(listed.map((t) => t.phone_count)).toEqual([3, 3]);
      expect((await listedNumbers()).map((n) => n.id)).toEqual(
        expect.arrayContaining([response.body.id, unlabelled.body.id]),
      );
    });

    it('answers 400 naming the member, 404 for an unknown or foreign trunk, 409 for a duplicate', async () => {
      const pair = await trunk();
      const before = await listedNumbers();
      const bad = problems(
        await rest('POST', url('/phone-numbers'), {
          body: { number: '415-555-0123', sip_trunk_id: pair.outbound_trunk.id },
        }),
      );
      expect(bad).toEqual([expect.objectContaining({ path: 'number', rule: 'format regex' })]);
      expect(pathsOf(await rest('POST', url('/phone-numbers'), { body: { number: freshNumber() } }))).toEqual([
        'sip_trunk_id',
      ]);
      expect(
        problems(await rest('POST', url('/phone-numbers'), { body: { sip_trunk_id: pair.outbound_trunk.id } })),
      ).toEqual([expect.objectContaining({ path: 'number', rule: 'required' })]);
      expect(
        pathsOf(
          await rest('POST', url('/phone-numbers'), {
            body: { number: freshNumber(), sip_trunk_id: pair.outbound_trunk.id, label: 5 },
          }),
        ),
      ).toEqual(['label']);
      expect(
        pathsOf(await rest('POST', url('/phone-numbers'), { body: { number: freshNumber(), sip_trunk_id: '' } })),
      ).toEqual(['sip_trunk_id']);
      expect(
        problems(
          await rest('POST', url('/phone-numbers'), {
            body: { number: freshNumber(), sip_trunk_id: pair.outbound_trunk.id, label: 'x'.repeat(201) },
          }),
        ),
      ).toEqual([expect.objectContaining({ path: 'label', rule: 'maximum 200' })]);

      expectErrorBody(
        await rest('POST', url('/phone-numbers'), { body: { number: freshNumber(), sip_trunk_id: 'trk_missing' } }),
        404,
      );
      const foreign = await trunk({}, otherRest);
      const foreignTrunk = expectErrorBody(
        await rest('POST', url('/phone-numbers'), {
          body: { number: freshNumber(), sip_trunk_id: foreign.outbound_trunk.id },
        }),
        404,
      );
      expect(foreignTrunk.message).not.toContain(otherOrganizationId);
      // Not found comes before the number's conflict: an existing number on an unknown trunk is still a 404.
      expectErrorBody(
        await rest('POST', url('/phone-numbers'), { body: { number: before[0]!.number, sip_trunk_id: 'trk_missing' } }),
        404,
      );

      const taken = pair.phone_numbers[0]!.number;
      const duplicate = expectErrorBody(
        await rest('POST', url('/phone-numbers'), { body: { number: taken, sip_trunk_id: pair.inbound_trunk.id } }),
        409,
      );
      expect(duplicate.message).toContain(taken);
      expect(duplicate.error).toEqual({ numbers: [taken] });
      expect(await listedNumbers()).toEqual(before);
    });

    it('answers 401, 404 (foreign path), 400 (malformed JSON), 415 and 413 in the error body', async () => {
      const pair = await trunk();
      const before = await listedNumbers();
      await expectCommonFailures('POST', '/phone-numbers', {
        number: freshNumber(),
        sip_trunk_id: pair.outbound_trunk.id,
      });
      expect(await listedNumbers()).toEqual(before);
    });
  });

  describe('E17 POST /phone-numbers/bulk', () => {
    it('answers 201 with count and every number created, field for field', async () => {
      const pair = await trunk({ name: 'Bulk', provider: 'vonage' });
      const entries = [
        { number: freshNumber(), label: 'Sales' },
        { number: freshNumber() },
        { number: freshNumber(), label: 'Support' },
      ];
      const response = await rest('POST', url('/phone-numbers/bulk'), {
        body: { sip_trunk_id: pair.outbound_trunk.id, numbers: entries },
      });
      expect(response.status).toBe(201);
      const created = numbersCreated.parse(response.body);
      expect(created).toEqual(response.body);
      expect(created.count).toBe(3);
      expect([...created.created].sort((a, b) => a.number.localeCompare(b.number))).toEqual(
        [...entries]
          .sort((a, b) => a.number.localeCompare(b.number))
          .map((entry) => ({
            id: expect.stringMatching(/^num_/),
            number: entry.number,
            label: entry.label ?? '',
            provider: 'vonage',
            sip_trunk_id: pair.outbound_trunk.id,
            trunk_name: 'Bulk',
            is_verified: false,
          })),
      );
      const listed = (await listedNumbers()).filter((n) => n.sip_trunk_id === pair.outbound_trunk.id);
      expect(listed).toHaveLength(4);
      expect(listed).toEqual(expect.arrayContaining(created.created));
    });

    it('answers 400 naming each entry, 404 for an unknown or foreign trunk, 409 all or nothing', async () => {
      const pair = await trunk();
      const before = await listedNumbers();
      const body = (numbers: unknown, sip_trunk_id: unknown = pair.outbound_trunk.id) => ({
        body: { numbers, sip_trunk_id },
      });

      expect(problems(await rest('POST', url('/phone-numbers/bulk'), body([{ number: 'nope' }])))).toEqual([
        expect.objectContaining({ path: 'numbers.0.number', rule: 'format regex' }),
      ]);
      expect(
        pathsOf(
          await rest(
            'POST',
            url('/phone-numbers/bulk'),
            body([{ number: freshNumber() }, { number: '+1' }, { label: 'x' }]),
          ),
        ),
      ).toEqual(['numbers.1.number', 'numbers.2.number']);
      expect(problems(await rest('POST', url('/phone-numbers/bulk'), body([])))).toEqual([
        expect.objectContaining({ path: 'numbers', rule: 'minimum 1' }),
      ]);
      expect(pathsOf(await rest('POST', url('/phone-numbers/bulk'), body([freshNumber()])))).toEqual(['numbers.0']);
      expect(
        pathsOf(await rest('POST', url('/phone-numbers/bulk'), body([{ number: freshNumber(), label: 1 }]))),
      ).toEqual(['numbers.0.label']);
      expect(
        pathsOf(await rest('POST', url('/phone-numbers/bulk'), { body: { numbers: [{ number: freshNumber() }] } })),
      ).toEqual(['sip_trunk_id']);
      expect(
        pathsOf(await rest('POST', url('/phone-numbers/bulk'), { body: { sip_trunk_id: pair.outbound_trunk.id } })),
      ).toEqual(['numbers']);
      const tooMany = Array.from({ length: 10_001 }, (_, index) => ({
        number: `+1650${String(index).padStart(7, '0')}`,
      }));
      expect(problems(await rest('POST', url('/phone-numbers/bulk'), body(tooMany)))).toEqual([
        expect.objectContaining({ path: 'numbers', rule: 'maximum 10000' }),
      ]);

      expectErrorBody(
        await rest('POST', url('/phone-numbers/bulk'), body([{ number: freshNumber() }], 'trk_missing')),
        404,
      );
      const foreign = await trunk({}, otherRest);
      expectErrorBody(
        await rest('POST', url('/phone-numbers/bulk'), body([{ number: freshNumber() }], foreign.inbound_trunk.id)),
        404,
      );

      // One existing number among new ones: nothing of the request is written.
      const taken = pair.phone_numbers[0]!.number;
      const freshOnes = [freshNumber(), freshNumber()];
      const existing = expectErrorBody(
        await rest(
          'POST',
          url('/phone-numbers/bulk'),
          body([{ number: freshOnes[0] }, { number: taken }, { number: freshOnes[1] }]),
        ),
        409,
      );
      expect(existing.message).toContain(taken);
      expect(existing.error).toEqual({ numbers: [taken] });
      // The same number twice in one request.
      const twice = freshNumber();
      const repeated = expectErrorBody(
        await rest(
          'POST',
          url('/phone-numbers/bulk'),
          body([{ number: twice, label: 'a' }, { number: freshOnes[0] }, { number: twice, label: 'b' }]),
        ),
        409,
      );
      expect(repeated.error).toEqual({ numbers: [twice] });

      const after = await listedNumbers();
      expect(after).toEqual(before);
      for (const number of [...freshOnes, twice]) expect(after.map((n) => n.number)).not.toContain(number);
      // The other organization's trunk got nothing either.
      expect((await listedNumbers(otherRest)).filter((n) => n.sip_trunk_id === foreign.inbound_trunk.id)).toEqual([]);
      expect((await listedNumbers(otherRest)).map((n) => n.number)).toEqual(
        expect.arrayContaining([foreign.phone_numbers[0]!.number]),
      );
    });

    it('refuses concurrent requests for the same numbers with 409, all or nothing (the unique index decides)', async () => {
      const pair = await trunk();
      const single = freshNumber();
      const singles = await Promise.all(
        Array.from({ length: 5 }, () =>
          rest('POST', url('/phone-numbers'), { body: { number: single, sip_trunk_id: pair.outbound_trunk.id } }),
        ),
      );
      expect(singles.map((response) => response.status).sort()).toEqual([201, 409, 409, 409, 409]);
      for (const refused of singles.filter((response) => response.status === 409)) {
        expect(expectErrorBody(refused, 409).error).toEqual({ numbers: [single] });
      }

      // Overlapping bulk requests: each is written whole or not at all.
      const shared = freshNumber();
      const sets = Array.from({ length: 4 }, () => [freshNumber(), shared, freshNumber()]);
      const bulks = await Promise.all(
        sets.map((numbers) =>
          rest('POST', url('/phone-numbers/bulk'), {
            body: { sip_trunk_id: pair.inbound_trunk.id, numbers: numbers.map((number) => ({ number })) },
          }),
        ),
      );
      expect(bulks.map((response) => response.status).sort()).toEqual([201, 409, 409, 409]);
      const winner = sets[bulks.findIndex((response) => response.status === 201)]!;
      const listed = (await listedNumbers()).map((n) => n.number);
      for (const numbers of sets) {
        for (const number of numbers) expect(listed.includes(number), number).toBe(winner.includes(number));
      }
      expect(listed.filter((number) => number === single || number === shared)).toHaveLength(2);
    });

    it('answers 401, 404 (foreign path), 400 (malformed JSON), 415 and 413 in the error body', async () => {
      const pair = await trunk();
      const before = await listedNumbers();
      await expectCommonFailures('POST', '/phone-numbers/bulk', {
        sip_trunk_id: pair.outbound_trunk.id,
        numbers: [{ number: freshNumber() }],
      });
      expect(await listedNumbers()).toEqual(before);
    });
  });

  describe('GET /sip-trunks and GET /phone-numbers (extensions)', () => {
    let ownTrunks: z.infer<typeof trunkList>['data'];
    let ownNumbers: z.infer<typeof numberList>['data'];

    beforeAll(async () => {
      // A fresh organization, so its lists hold exactly what is made here.
      const org = await server.createOrganization('Initech');
      const client = restClient(server, org.organizationId, org.apiKey);
      const first = await trunk(
        { name: 'First', provider: 'custom', phone_numbers: [freshNumber(), freshNumber()] },
        client,
      );
      const second = await trunk(
        { name: 'Second', provider: 'other', phone_numbers: [freshNumber()], max_concurrency: 3 },
        client,
      );
      const response = await client('GET', url('/sip-trunks'));
      expect(response.status).toBe(200);
      ownTrunks = trunkList.parse(response.body).data;
      // Newest first; a pair's inbound trunk before its outbound one.
      expect(ownTrunks).toEqual([
        second.inbound_trunk,
        second.outbound_trunk,
        first.inbound_trunk,
        first.outbound_trunk,
      ]);
      const numbers = await client('GET', url('/phone-numbers'));
      expect(numbers.status).toBe(200);
      ownNumbers = numberList.parse(numbers.body).data;
      expect(ownNumbers).toEqual([
        ...second.phone_numbers,
        ...[...first.phone_numbers].sort((a, b) => a.number.localeCompare(b.number)),
      ]);

      // Paging: page and limit select which part.
      const page = async (path: string, qs: string) => (await client('GET', `${url(path)}?${qs}`)).body;
      expect(trunkList.parse(await page('/sip-trunks', 'limit=1')).data).toEqual([second.inbound_trunk]);
      expect(trunkList.parse(await page('/sip-trunks', 'page=2&limit=3')).data).toEqual([first.outbound_trunk]);
      expect(trunkList.parse(await page('/sip-trunks', 'page=3&limit=3')).data).toEqual([]);
      expect(numberList.parse(await page('/phone-numbers', 'page=2&limit=2')).data).toEqual([ownNumbers[2]]);
      expect(numberList.parse(await page('/phone-numbers', 'limit=100')).data).toEqual(ownNumbers);
    });

    it("GET /sip-trunks lists the trunk summaries field for field, only the caller organization's", async () => {
      expect(ownTrunks).toHaveLength(4);
      expect(ownTrunks[0]).toEqual({
        id: expect.stringMatching(/^trk_/),
        name: 'Second',
        provider: 'other',
        type: 'inbound',
        is_active: true,
        max_concurrency: 3,
        phone_count: 1,
      });
      expect(ownTrunks.map((t) => [t.name, t.type, t.phone_count])).toEqual([
        ['Second', 'inbound', 1],
        ['Second', 'outbound', 1],
        ['First', 'inbound', 2],
        ['First', 'outbound', 2],
      ]);
      const mine = (await listedTrunks()).map((t) => t.id);
      for (const t of ownTrunks) expect(mine).not.toContain(t.id);
    });

    it("GET /phone-numbers lists the numbers field for field, only the caller organization's", async () => {
      expect(ownNumbers).toHaveLength(3);
      for (const number of ownNumbers) {
        expect(number).toEqual({
          id: expect.stringMatching(/^num_/),
          number: expect.stringMatching(/^\+\d{8,15}$/),
          label: '',
          provider: expect.stringMatching(/^(custom|other)$/),
          sip_trunk_id: expect.stringMatching(/^trk_/),
          trunk_name: expect.stringMatching(/^(First|Second)$/),
          is_verified: false,
        });
        expect(ownTrunks.find((t) => t.id === number.sip_trunk_id)).toMatchObject({
          type: 'outbound',
          name: number.trunk_name,
          provider: number.provider,
        });
      }
      const mine = (await listedNumbers()).map((n) => n.id);
      for (const number of ownNumbers) expect(mine).not.toContain(number.id);
    });

    it.each(['/sip-trunks', '/phone-numbers'])(
      'GET %s answers 400 for bad paging, 401 and 404 (foreign path)',
      async (path) => {
        for (const bad of ['limit=0', 'limit=101', 'page=0', 'page=x', 'limit=1.5']) {
          expect(pathsOf(await rest('GET', url(`${path}?${bad}`)))).toEqual([bad.split('=')[0]]);
        }
        await expectCommonFailures('GET', path);
      },
    );
  });

  describe('E20 GET /analytics/insights', () => {
    const generate = async (periodStart: string, periodEnd: string, apiKey: string) => {
      const result = await server.graphql(
        apiKey,
        `mutation($s: Date!, $e: Date!) { generateInsight(periodStart: $s, periodEnd: $e) { id } }`,
        { s: periodStart, e: periodEnd },
      );
      expect(result.body.errors).toBeUndefined();
      // Distinct creation instants keep "newest first" unambiguous.
      await new Promise((resolve) => setTimeout(resolve, 5));
      return result.body.data.generateInsight.id as string;
    };
    let client: ReturnType<typeof restClient>;
    let apiKey: string;
    let clientOrg: string;
    const insightsUrl = (qs = '') => `${url('/analytics/insights').replace('{org}', clientOrg)}${qs ? `?${qs}` : ''}`;
    const ids: Record<string, string> = {};

    beforeAll(async () => {
      // A fresh organization: its insights are exactly those generated here.
      const org = await server.createOrganization('Umbrella');
      ({ apiKey } = org);
      clientOrg = org.organizationId;
      client = restClient(server, org.organizationId, org.apiKey);
      const workflow = await client('POST', url('/workflows').replace('{org}', clientOrg), {
        body: { name: 'Calls', definition: { steps: [] } },
      });
      expect(workflow.status).toBe(201);
      const prospects = await client('POST', url('/prospects').replace('{org}', clientOrg), {
        body: {
          prospects: Array.from({ length: 6 }, (_, index) => ({ first_name: `P${index}`, phone: '+14155550100' })),
        },
      });
      expect(prospects.status).toBe(201);
      const batch = await client('POST', url(`/workflows/${workflow.body.id}/batches`).replace('{org}', clientOrg), {
        body: { prospect_ids: prospects.body.created.map((prospect: { id: string }) => prospect.id) },
      });
      expect(batch.status).toBe(201);
      const runs = await server.db.prisma.run.findMany({ where: { batchId: batch.body.id }, orderBy: { id: 'asc' } });
      expect(runs).toHaveLength(6);
      // Calls that ended (insights count call attempts): a failed one is an issue, one not answered is not.
      const end = (index: number, outcome: 'answered' | 'failed' | 'no_answer', endedAt: string) =>
        endedAttempt(server.db, runs[index]!.id, outcome, endedAt);
      await end(0, 'answered', '2026-03-01T09:00:00.000Z');
      await end(1, 'failed', '2026-03-01T23:59:59.999Z');
      await end(2, 'no_answer', '2026-03-01T12:00:00.000Z');
      await end(3, 'answered', '2026-03-02T00:00:00.000Z');
      await end(4, 'failed', '2026-03-10T08:00:00.000Z');
      // runs[5] has no call that ended: it never counts.

      ids.march1 = await generate('2026-03-01', '2026-03-01', apiKey);
      ids.march2 = await generate('2026-03-02', '2026-03-02', apiKey);
      ids.week = await generate('2026-03-01', '2026-03-07', apiKey);
      ids.march = await generate('2026-03-01', '2026-03-31', apiKey);
      ids.april = await generate('2026-04-01', '2026-04-30', apiKey);
      // Another organization's insight never shows here.
      const other = await server.createOrganization('Hooli');
      await generate('2026-03-01', '2026-03-01', other.apiKey);
    });

    it('answers 200 with envelope C, each insight field for field, newest first', async () => {
      const response = await client('GET', insightsUrl());
      expect(response.status).toBe(200);
      const body = envelopeC.parse(response.body);
      expect(body).toEqual(response.body);
      expect(Object.keys(response.body).sort()).toEqual(['insights', 'limit', 'offset', 'total']);
      expect(body).toMatchObject({ limit: 20, offset: 0, total: 5 });
      expect(body.insights.map((insight) => insight.id)).toEqual([
        ids.april,
        ids.march,
        ids.week,
        ids.march2,
        ids.march1,
      ]);
      for (const insight of body.insights) {
        expect(insight.id).toMatch(/^ins_/);
        expect(insight.created_at).toMatch(ISO);
        expect(insight.period_start).toMatch(DATE);
        expect(insight.period_end).toMatch(DATE);
      }
      const byId = Object.fromEntries(body.insights.map((insight) => [insight.id, insight]));
      expect(byId[ids.march1!]).toEqual({
        id: ids.march1,
        created_at: expect.stringMatching(ISO),
        period_start: '2026-03-01',
        period_end: '2026-03-01',
        executive_summary: 'On 2026-03-01, 3 calls ended: 1 with an issue (33.3% issue rate). Issues: 1 ended failed.',
        total_calls: 3,
        issues_identified: 1,
        issue_rate: 1 / 3,
      });
      expect(byId[ids.march2!]).toMatchObject({
        period_start: '2026-03-02',
        period_end: '2026-03-02',
        total_calls: 1,
        issues_identified: 0,
        issue_rate: 0,
      });
      expect(byId[ids.week!]).toMatchObject({
        period_start: '2026-03-01',
        period_end: '2026-03-07',
        total_calls: 4,
        issues_identified: 1,
        issue_rate: 0.25,
      });
      expect(byId[ids.march!]).toMatchObject({
        period_start: '2026-03-01',
        period_end: '2026-03-31',
        total_calls: 5,
        issues_identified: 2,
        issue_rate: 0.4,
      });
      expect(byId[ids.april!]).toMatchObject({
        period_start: '2026-04-01',
        period_end: '2026-04-30',
        total_calls: 0,
        issues_identified: 0,
        issue_rate: 0,
        executive_summary: 'From 2026-04-01 to 2026-04-30, no calls ended.',
      });
    });

    it('filters by period: insights whose whole period lies within period_start and period_end', async () => {
      const listed = async (qs: string) => {
        const response = await client('GET', insightsUrl(qs));
        expect(response.status).toBe(200);
        const body = envelopeC.parse(response.body);
        return { ids: body.insights.map((insight) => insight.id), total: body.total };
      };
      expect(await listed('period_start=2026-03-02')).toEqual({ ids: [ids.april, ids.march2], total: 2 });
      expect(await listed('period_end=2026-03-07')).toEqual({ ids: [ids.week, ids.march2, ids.march1], total: 3 });
      expect(await listed('period_start=2026-03-01&period_end=2026-03-01')).toEqual({ ids: [ids.march1], total: 1 });
      expect(await listed('period_start=2026-03-01&period_end=2026-03-31')).toEqual({
        ids: [ids.march, ids.week, ids.march2, ids.march1],
        total: 4,
      });
      expect(await listed('period_start=2026-04-01&period_end=2026-04-29')).toEqual({ ids: [], total: 0 });
      expect(await listed('period_start=2026-05-01')).toEqual({ ids: [], total: 0 });
    });

    it('pages with limit and offset; total counts every match', async () => {
      const page = async (qs: string) => {
        const response = await client('GET', insightsUrl(qs));
        expect(response.status).toBe(200);
        return envelopeC.parse(response.body);
      };
      const first = await page('limit=2');
      expect(first).toMatchObject({ limit: 2, offset: 0, total: 5 });
      expect(first.insights.map((insight) => insight.id)).toEqual([ids.april, ids.march]);
      const second = await page('limit=2&offset=2');
      expect(second).toMatchObject({ limit: 2, offset: 2, total: 5 });
      expect(second.insights.map((insight) => insight.id)).toEqual([ids.week, ids.march2]);
      expect((await page('limit=2&offset=4')).insights.map((insight) => insight.id)).toEqual([ids.march1]);
      expect(await page('limit=2&offset=5')).toEqual({ insights: [], limit: 2, offset: 5, total: 5 });
      expect(await page('offset=50')).toEqual({ insights: [], limit: 20, offset: 50, total: 5 });
      expect((await page('limit=1')).insights).toHaveLength(1);
      expect((await page('limit=100')).insights).toHaveLength(5);
      expect(await page('limit=1&offset=1&period_start=2026-03-01&period_end=2026-03-31')).toMatchObject({
        insights: [expect.objectContaining({ id: ids.week })],
        limit: 1,
        offset: 1,
        total: 4,
      });
    });

    it('answers 400 naming each bad query parameter', async () => {
      const cases: [string, string][] = [
        ['limit=0', 'limit'],
        ['limit=101', 'limit'],
        ['limit=x', 'limit'],
        ['limit=2.5', 'limit'],
        ['offset=-1', 'offset'],
        ['offset=x', 'offset'],
        ['period_start=2026/03/01', 'period_start'],
        ['period_start=03-01-2026', 'period_start'],
        ['period_start=2026-02-30', 'period_start'],
        ['period_end=2026-3-1', 'period_end'],
        ['period_start=2026-03-01T00:00:00Z', 'period_start'],
        ['period_start=2026-03-07&period_end=2026-03-01', 'period_end'],
      ];
      for (const [qs, path] of cases) {
        const found = problems(await client('GET', insightsUrl(qs)));
        expect(
          found.map((problem) => problem.path),
          qs,
        ).toEqual([path]);
      }
      const order = problems(await client('GET', insightsUrl('period_start=2026-03-07&period_end=2026-03-01')));
      expect(order[0]!.message).toContain('period_start');
      expect(pathsOf(await client('GET', insightsUrl('limit=0&offset=-1')))).toEqual(['limit', 'offset']);
    });

    it('answers 401 and 404 (foreign path) in the error body', async () => {
      expectErrorBody(await client('GET', insightsUrl(), { apiKey: null }), 401);
      expectErrorBody(await client('GET', insightsUrl(), { apiKey: 'gwk_not_a_key' }), 401);
      expectErrorBody(await client('GET', foreignUrl('/analytics/insights')), 404);
      // The first organization's key on this organization's path.
      expectErrorBody(await rest('GET', insightsUrl()), 404);
      // The first organization has no insights of its own.
      const own = await rest('GET', url('/analytics/insights'));
      expect(envelopeC.parse(own.body)).toEqual({ insights: [], limit: 20, offset: 0, total: 0 });
    });
  });
});
