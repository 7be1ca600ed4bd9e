// A record declared once (src/records/record.ts) gives its zod schema, the
// GraphQL selection and presenter the REST routes use, and the SQL PostgreSQL
// makes its JSON with: declared here as a call record would be (a nested
// object, a list from another table, a typed JSON object, instants), the
// presenter's JSON and PostgreSQL's are the same text, on the embedded database.
import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { jsonObject, list, nested, record, timestamp, value } from '../src/records/record.ts';

const line = record({}, { position: z.number().int(), speaker: z.enum(['agent', 'caller']), text: z.string() });
const summary = z.strictObject({ sentiment: z.string(), topics: z.array(z.string()) }).meta({ id: 'CallSummary' });

const callRecord = record(
  { id: 'CallRecord', description: 'A call, as its transcript and summary tell it.' },
  {
    id: z.string(),
    duration_seconds: z.number().nullable(),
    caller: nested(record({}, { phone: z.string(), country: z.string().nullable() })),
    summary: jsonObject(summary.nullable()),
    started_at: timestamp(),
    ended_at: timestamp().nullable(),
    agent_name: value(z.string(), {
      field: 'agentLabel',
      sql: (row) => `(SELECT a.name FROM agents AS a WHERE a.id = ${row}."agentId")`,
    }),
    transcript: list(line, {
      table: 'lines',
      alias: 'l',
      where: (row) => `l."callId" = ${row}."id"`,
      orderBy: 'l.position',
    }),
  },
);

/** The call as GraphQL would answer `callRecord.selection`. */
const graphqlResult = {
  id: 'call_1',
  durationSeconds: 12.5,
  caller: { phone: '+14155550100', country: null },
  summary: { json: { sentiment: 'calm "mostly"\n', topics: ['renewal'] } },
  startedAt: '2026-11-21T04:09:00.120Z',
  endedAt: null,
  agentLabel: 'Ava',
  transcript: [
    { position: 1, speaker: 'agent', text: 'Hi \u0001' },
    { position: 2, speaker: 'caller', text: 'Hello' },
  ],
};

describe('a record declared once', () => {
  let db: PGlite;
  beforeAll(async () => {
    db = new PGlite();
    await db.exec(`
      CREATE TABLE agents (id text PRIMARY KEY, name text NOT NULL);
      CREATE TABLE calls (id text PRIMARY KEY, "durationSeconds" float8, phone text, country text, summary jsonb,
        "startedAt" timestamptz(3) NOT NULL, "endedAt" timestamptz(3), "agentId" text, unread text);
      CREATE TABLE lines ("callId" text, position int, speaker text, text text);
      INSERT INTO agents VALUES ('agt_1', 'Ava');
      INSERT INTO calls VALUES ('call_1', 12.5, '+14155550100', NULL, '{"sentiment": "calm \\"mostly\\"\\n", "topics": ["renewal"]}',
        '2026-11-21T04:09:00.12Z', NULL, 'agt_1', 'x');
      INSERT INTO lines VALUES ('call_1', 2, 'caller', 'Hello'), ('call_1', 1, 'agent', 'Hi ' || chr(1));`);
  });
  afterAll(() => db.close());

  it('is its zod schema: the members in their order, strict, named for the OpenAPI document', () => {
    const shown = callRecord.present(graphqlResult);
    expect(Object.keys(callRecord.schema.shape)).toEqual(Object.keys(shown));
    expect(callRecord.schema.parse(shown)).toEqual(shown);
    expect(callRecord.schema.safeParse({ ...shown, extra: 1 }).success).toBe(false);
    const document = z.toJSONSchema(callRecord.schema, { io: 'output' }) as {
      $defs: Record<string, { description?: string }>;
    };
    expect(document.$defs.CallRecord?.description).toBe('A call, as its transcript and summary tell it.');
    expect(document.$defs.CallSummary).toBeDefined();
  });

  it('is read with one GraphQL selection and shown with the wire names', () => {
    expect(callRecord.selection).toBe(
      'id durationSeconds caller { phone country } summary { json } startedAt endedAt agentLabel transcript { position speaker text }',
    );
    expect(callRecord.present(graphqlResult)).toEqual({
      id: 'call_1',
      duration_seconds: 12.5,
      caller: { phone: '+14155550100', country: null },
      summary: { sentiment: 'calm "mostly"\n', topics: ['renewal'] },
      started_at: '2026-11-21T04:09:00.120Z',
      ended_at: null,
      agent_name: 'Ava',
      transcript: [
        { position: 1, speaker: 'agent', text: 'Hi \u0001' },
        { position: 2, speaker: 'caller', text: 'Hello' },
      ],
    });
  });

  it('is written by PostgreSQL as the same JSON: the text of row_to_json, the value of to_jsonb', async () => {
    const shown = callRecord.present(graphqlResult);
    const { rows } = await db.query<{ text: string; value: unknown }>(
      `SELECT row_to_json(${callRecord.sqlRow('c')})::text AS text, to_jsonb(${callRecord.sqlRow('c')}) AS value FROM calls AS c`,
    );
    expect(rows[0]!.value).toEqual(shown);
    // Byte for byte, but for the JSON value stored as jsonb, whose text PostgreSQL writes with spaces.
    expect(JSON.parse(rows[0]!.text)).toEqual(shown);
    expect(rows[0]!.text.replace(/"summary":\{[^}]*\}/, '"summary":{}')).toBe(
      JSON.stringify({ ...shown, summary: {} }),
    );
  });

  it('names the columns of its row it reads, and no other', () => {
    expect(callRecord.columns.sort()).toEqual(
      ['agentId', 'country', 'durationSeconds', 'endedAt', 'id', 'phone', 'startedAt', 'summary'].sort(),
    );
  });
});
