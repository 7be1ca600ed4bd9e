import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { graphqlCalls } from './support/graphql.ts';
import { startTestServer, type TestServer } from './support/server.ts';

const TRUNK_FIELDS = 'id name provider type isActive maxConcurrency phoneCount address authUsername createdAt';
const NUMBER_FIELDS = 'id number label provider sipTrunkId trunkName isVerified createdAt';

describe('GraphQL: SIP trunks and phone numbers', () => {
  let server: TestServer;
  let apiKey: string;
  let organizationId: string;
  let other: { apiKey: string; organizationId: string };
  let serial = 0;
  /** A fresh E.164 number, never used before in this file. */
  const newNumber = () => `+1415${String(++serial).padStart(7, '0')}`;

  const { gql, ok } = graphqlCalls(
    () => server,
    () => apiKey,
  );
  const createTrunk = `mutation($input: SipTrunkCreateInput!) { createSipTrunk(input: $input) {
    inboundTrunk { ${TRUNK_FIELDS} } outboundTrunk { ${TRUNK_FIELDS} } phoneNumbers { ${NUMBER_FIELDS} } } }`;
  const createNumber = `mutation($input: PhoneNumberCreateInput!) { createPhoneNumber(input: $input) { ${NUMBER_FIELDS} } }`;
  const createNumbers = `mutation($input: PhoneNumbersCreateInput!) { createPhoneNumbers(input: $input) { count created { ${NUMBER_FIELDS} } } }`;

  async function newTrunk(input: Record<string, unknown> = {}, key = apiKey) {
    const data = await ok(
      createTrunk,
      {
        input: { name: 'Main', address: 'sip.example.com', provider: 'twilio', phoneNumbers: [newNumber()], ...input },
      },
      key,
    );
    return data.createSipTrunk;
  }
  const counts = async (orgId = organizationId) => ({
    trunks: await server.db.prisma.sipTrunk.count({ where: { organizationId: orgId } }),
    numbers: await server.db.prisma.phoneNumber.count({ where: { organizationId: orgId } }),
  });
  const problemPaths = (body: { errors?: any }) =>
    (body.errors[0].extensions.detail as { path: string }[]).map((problem) => problem.path).sort();

  beforeAll(async () => {
    server = await startTestServer();
    ({ apiKey, organizationId } = await server.createOrganization('Acme'));
    other = await server.createOrganization('Globex');
  });
  afterAll(() => server.close());

  it('creates an inbound and an outbound trunk with the numbers on the outbound one; both count the pair', async () => {
    const numbers = [newNumber(), newNumber()];
    const created = await newTrunk({
      name: 'Sales',
      provider: 'telnyx',
      phoneNumbers: numbers,
      authUsername: 'acme',
      maxConcurrency: 4,
    });
    const { inboundTrunk, outboundTrunk, phoneNumbers } = created;
    const summary = {
      name: 'Sales',
      provider: 'telnyx',
      isActive: true,
      maxConcurrency: 4,
      phoneCount: 2,
      address: 'sip.example.com',
      authUsername: 'acme',
    };
    expect(inboundTrunk).toMatchObject({ ...summary, type: 'inbound' });
    expect(outboundTrunk).toMatchObject({ ...summary, type: 'outbound' });
    expect(inboundTrunk.id).toMatch(/^trk_/);
    expect(outboundTrunk.id).toMatch(/^trk_/);
    expect(inboundTrunk.id).not.toBe(outboundTrunk.id);
    expect(inboundTrunk.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(phoneNumbers.map((n: { number: string }) => n.number)).toEqual(numbers);
    for (const number of phoneNumbers) {
      expect(number).toMatchObject({
        label: '',
        provider: 'telnyx',
        sipTrunkId: outboundTrunk.id,
        trunkName: 'Sales',
        isVerified: false,
      });
      expect(number.id).toMatch(/^num_/);
    }

    // Read back: either trunk of the pair lists the pair's numbers; a number knows its trunk.
    const read = await ok(
      `query($in: ID!, $num: ID!) {
        sipTrunk(id: $in) { type phoneCount phoneNumbers { number sipTrunk { id type } } }
        phoneNumber(id: $num) { number sipTrunk { id phoneCount } }
        node(id: $in) { ... on SipTrunk { name } } }`,
      { in: inboundTrunk.id, num: phoneNumbers[0].id },
    );
    expect(read.sipTrunk).toEqual({
      type: 'inbound',
      phoneCount: 2,
      phoneNumbers: numbers.map((number) => ({ number, sipTrunk: { id: outboundTrunk.id, type: 'outbound' } })),
    });
    expect(read.phoneNumber).toEqual({ number: numbers[0], sipTrunk: { id: outboundTrunk.id, phoneCount: 2 } });
    expect(read.node).toEqual({ name: 'Sales' });

    // Defaults: no credentials, max concurrency 10.
    const plain = await newTrunk({ name: 'Plain', provider: 'other' });
    expect(plain.outboundTrunk).toMatchObject({ authUsername: null, maxConcurrency: 10, phoneCount: 1 });
  });

  it('lists trunks (newest first, inbound before outbound) and numbers as connections', async () => {
    const fresh = await server.createOrganization('Lists');
    const first = await newTrunk({ name: 'First' }, fresh.apiKey);
    const second = await newTrunk({ name: 'Second', phoneNumbers: [newNumber(), newNumber()] }, fresh.apiKey);
    const data = await ok(
      `{ sipTrunks(first: 10) { totalCount nodes { id type phoneCount phoneNumbers { number } } }
         phoneNumbers(first: 2) { totalCount pageInfo { hasNextPage } nodes { number trunkName } } }`,
      {},
      fresh.apiKey,
    );
    expect(data.sipTrunks.totalCount).toBe(4);
    expect(data.sipTrunks.nodes.map((trunk: { id: string }) => trunk.id)).toEqual([
      second.inboundTrunk.id,
      second.outboundTrunk.id,
      first.inboundTrunk.id,
      first.outboundTrunk.id,
    ]);
    expect(data.sipTrunks.nodes.map((trunk: { phoneCount: number }) => trunk.phoneCount)).toEqual([2, 2, 1, 1]);
    expect(data.phoneNumbers.totalCount).toBe(3);
    expect(data.phoneNumbers.pageInfo.hasNextPage).toBe(true);
    expect(data.phoneNumbers.nodes.map((n: { trunkName: string }) => n.trunkName)).toEqual(['Second', 'Second']);
  });

  it('seals the auth password in the row and exposes it through no field', async () => {
    const password = 'correct horse battery staple';
    const { inboundTrunk, outboundTrunk } = await newTrunk({ authUsername: 'u', authPassword: password });
    for (const id of [inboundTrunk.id, outboundTrunk.id]) {
      const row = await server.db.prisma.sipTrunk.findFirstOrThrow({ where: { id } });
      expect(row.authPasswordEncrypted).toBeTruthy();
      expect(row.authPasswordEncrypted).not.toContain(password);
      expect(server.secrets.open(row.authPasswordEncrypted!)).toBe(password);
    }
    const types = await ok(`{ __schema { types { name fields { name } inputFields { name } } } }`);
    for (const type of types.__schema.types) {
      if (type.name === 'SipTrunkCreateInput') continue;
      const names = [...(type.fields ?? []), ...(type.inputFields ?? [])].map((field: { name: string }) => field.name);
      expect(
        names.filter((name: string) => /password/i.test(name)),
        type.name,
      ).toEqual([]);
    }
    const read = await gql(`query($id: ID!) { sipTrunk(id: $id) { authPassword } }`, { id: inboundTrunk.id });
    expect(read.errors[0].message).toMatch(/Cannot query field "authPassword"/);
  });

  it('refuses numbers that are not E.164, naming each path, and writes nothing', async () => {
    const before = await counts();
    const trunk = await gql(createTrunk, {
      input: {
        name: 'Bad',
        address: 'a',
        provider: 'twilio',
        phoneNumbers: [newNumber(), '4155550100', '+1234567', '+1234567890123456'],
      },
    });
    expect(trunk.errors[0].extensions.code).toBe('BAD_INPUT');
    expect(trunk.errors[0].extensions.status).toBe(400);
    expect(problemPaths(trunk)).toEqual(['phone_numbers.1', 'phone_numbers.2', 'phone_numbers.3']);

    const fields = await gql(createTrunk, {
      input: { name: '', address: 'a', provider: 'skype', phoneNumbers: [], maxConcurrency: 0 },
    });
    expect(problemPaths(fields)).toEqual(['max_concurrency', 'name', 'phone_numbers', 'provider']);

    const { outboundTrunk } = await newTrunk();
    const bulk = await gql(createNumbers, {
      input: {
        sipTrunkId: outboundTrunk.id,
        numbers: [{ number: '+44 20 7946 0000' }, { number: newNumber() }, { number: 'x', label: 'y' }],
      },
    });
    expect(problemPaths(bulk)).toEqual(['numbers.0.number', 'numbers.2.number']);
    const one = await gql(createNumber, { input: { sipTrunkId: outboundTrunk.id, number: '+0' } });
    expect(problemPaths(one)).toEqual(['number']);
    const after = await counts();
    expect(after).toEqual({ trunks: before.trunks + 2, numbers: before.numbers + 1 });
  });

  it('refuses a number the organization has, or one given twice, as a conflict naming it, writing nothing', async () => {
    const taken = newNumber();
    const { outboundTrunk } = await newTrunk({ phoneNumbers: [taken] });
    const before = await counts();
    const fresh = newNumber();

    const existing = await gql(createTrunk, {
      input: { name: 'Dup', address: 'a', provider: 'plivo', phoneNumbers: [fresh, taken] },
    });
    expect(existing.errors[0].extensions).toMatchObject({
      code: 'CONFLICT',
      status: 409,
      detail: { numbers: [taken] },
    });
    expect(existing.errors[0].message).toContain(taken);

    const repeated = await gql(createTrunk, {
      input: { name: 'Dup', address: 'a', provider: 'plivo', phoneNumbers: [fresh, fresh] },
    });
    expect(repeated.errors[0].extensions).toMatchObject({ code: 'CONFLICT', detail: { numbers: [fresh] } });

    const single = await gql(createNumber, { input: { sipTrunkId: outboundTrunk.id, number: taken, label: 'again' } });
    expect(single.errors[0].extensions).toMatchObject({ code: 'CONFLICT', detail: { numbers: [taken] } });

    const bulk = await gql(createNumbers, {
      input: { sipTrunkId: outboundTrunk.id, numbers: [{ number: fresh }, { number: taken }] },
    });
    expect(bulk.errors[0].extensions).toMatchObject({ code: 'CONFLICT', detail: { numbers: [taken] } });
    const bulkRepeated = await gql(createNumbers, {
      input: { sipTrunkId: outboundTrunk.id, numbers: [{ number: fresh }, { number: fresh }] },
    });
    expect(bulkRepeated.errors[0].extensions).toMatchObject({ code: 'CONFLICT', detail: { numbers: [fresh] } });

    expect(await counts()).toEqual(before);
    // Uniqueness is per organization: another one may have the same number.
    await newTrunk({ phoneNumbers: [taken] }, other.apiKey);
  });

  it('creates numbers in bulk on a trunk, all or nothing', async () => {
    const { inboundTrunk, outboundTrunk } = await newTrunk({ name: 'Bulk', provider: 'vonage' });
    const numbers = [newNumber(), newNumber(), newNumber()];
    const data = await ok(createNumbers, {
      input: {
        sipTrunkId: inboundTrunk.id,
        numbers: numbers.map((number, index) => ({ number, label: `line ${index}` })),
      },
    });
    expect(data.createPhoneNumbers.count).toBe(3);
    expect(data.createPhoneNumbers.created).toEqual(
      numbers.map((number, index) =>
        expect.objectContaining({
          number,
          label: `line ${index}`,
          provider: 'vonage',
          sipTrunkId: inboundTrunk.id,
          trunkName: 'Bulk',
        }),
      ),
    );
    const single = await ok(createNumber, {
      input: { sipTrunkId: outboundTrunk.id, number: newNumber(), label: 'support' },
    });
    expect(single.createPhoneNumber).toMatchObject({ label: 'support', sipTrunkId: outboundTrunk.id });
    // The pair counts its numbers whichever trunk holds them: 1 from E15, 3 bulk, 1 single.
    const pair = await ok(
      `query($a: ID!, $b: ID!) { a: sipTrunk(id: $a) { phoneCount } b: sipTrunk(id: $b) { phoneCount } }`,
      {
        a: inboundTrunk.id,
        b: outboundTrunk.id,
      },
    );
    expect(pair).toEqual({ a: { phoneCount: 5 }, b: { phoneCount: 5 } });

    const before = await counts();
    const failed = await gql(createNumbers, {
      input: { sipTrunkId: outboundTrunk.id, numbers: [{ number: newNumber() }, { number: numbers[1] }] },
    });
    expect(failed.errors[0].extensions.code).toBe('CONFLICT');
    expect(await counts()).toEqual(before);
  });

  it('takes up to the bulk limit of numbers in one request, in order, and refuses more', async () => {
    const { outboundTrunk } = await newTrunk();
    const numbers = Array.from({ length: 10_000 }, (_, index) => `+4930${String(index).padStart(8, '0')}`);
    const data = await ok(
      `mutation($input: PhoneNumbersCreateInput!) { createPhoneNumbers(input: $input) { count created { number } } }`,
      {
        input: { sipTrunkId: outboundTrunk.id, numbers: numbers.map((number) => ({ number })) },
      },
    );
    expect(data.createPhoneNumbers.count).toBe(10_000);
    expect(data.createPhoneNumbers.created.map((n: { number: string }) => n.number)).toEqual(numbers);
    const tooMany = await gql(createNumbers, {
      input: { sipTrunkId: outboundTrunk.id, numbers: Array.from({ length: 10_001 }, () => ({ number: newNumber() })) },
    });
    expect(tooMany.errors[0].extensions).toMatchObject({
      code: 'BAD_INPUT',
      detail: [{ path: 'numbers', rule: 'maximum 10000' }],
    });
  });

  it("answers NOT_FOUND for another organization's trunk and reads the other organization's objects as null", async () => {
    const foreign = await newTrunk({ name: 'Foreign' }, other.apiKey);
    const mine = await newTrunk();
    const before = await counts();
    const one = await gql(createNumber, { input: { sipTrunkId: foreign.outboundTrunk.id, number: newNumber() } });
    expect(one.errors[0].extensions).toMatchObject({ code: 'NOT_FOUND', status: 404 });
    const bulk = await gql(createNumbers, {
      input: { sipTrunkId: foreign.inboundTrunk.id, numbers: [{ number: newNumber() }] },
    });
    expect(bulk.errors[0].extensions.code).toBe('NOT_FOUND');
    // Not found comes first, even for a number this organization already has.
    const taken = await gql(createNumber, {
      input: { sipTrunkId: foreign.outboundTrunk.id, number: mine.phoneNumbers[0].number },
    });
    expect(taken.errors[0].extensions.code).toBe('NOT_FOUND');
    const missing = await gql(createNumber, { input: { sipTrunkId: 'trk_missing', number: newNumber() } });
    expect(missing.errors[0].extensions.code).toBe('NOT_FOUND');
    expect(await counts()).toEqual(before);

    const reads = await ok(
      `query($t: ID!, $n: ID!) { sipTrunk(id: $t) { id } phoneNumber(id: $n) { id } node(id: $n) { id } nodes(ids: [$t, $n]) { id } }`,
      { t: foreign.inboundTrunk.id, n: foreign.phoneNumbers[0].id },
    );
    expect(reads).toEqual({ sipTrunk: null, phoneNumber: null, node: null, nodes: [null, null] });
    const lists = await ok(`{ sipTrunks { nodes { name } } phoneNumbers { nodes { trunkName } } }`);
    expect(lists.sipTrunks.nodes.map((trunk: { name: string }) => trunk.name)).not.toContain('Foreign');
    expect(lists.phoneNumbers.nodes.map((n: { trunkName: string }) => n.trunkName)).not.toContain('Foreign');
  });

  it('lets only one of two concurrent requests for the same number succeed', async () => {
    const { outboundTrunk } = await newTrunk();
    for (let round = 0; round < 3; round++) {
      const number = newNumber();
      const results = await Promise.all([
        gql(createNumber, { input: { sipTrunkId: outboundTrunk.id, number } }),
        gql(createNumbers, { input: { sipTrunkId: outboundTrunk.id, numbers: [{ number: newNumber() }, { number }] } }),
        gql(createTrunk, { input: { name: 'Race', address: 'a', provider: 'custom', phoneNumbers: [number] } }),
      ]);
      expect(results.filter((body) => !body.errors)).toHaveLength(1);
      for (const body of results.filter((result) => result.errors)) {
        expect(body.errors[0].extensions).toMatchObject({ code: 'CONFLICT', detail: { numbers: [number] } });
      }
      expect(await server.db.prisma.phoneNumber.count({ where: { organizationId, number } })).toBe(1);
    }
  });
});
