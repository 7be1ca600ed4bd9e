// A record the API answers with, declared once: its members in the order the
// wire shows them, each with its wire name (the key), its zod type (with its
// description), the GraphQL field it is read from and the SQL that reads it
// from its row. Everything else is derived from that declaration:
// - `schema`: the zod schema of the wire shape (the OpenAPI document's, and
//   the tests'), named by the record's `id`;
// - `selection` and `present`: the GraphQL selection a REST route reads it
//   with, and the result made into the wire's JSON (src/rest/routes/);
// - `sqlRow`: the record as a row value PostgreSQL makes JSON of, with
//   to_jsonb (webhook events, written in the change's statement:
//   src/db/parts/event-payloads.ts) or as text with row_to_json (the runs listing's pages:
//   src/db/sql/wire-runs-page.ts, src/db/sql/runs-listing-page.ts, which
//   gives some members' SQL itself: values read from rows it joined).
// A member is a zod type: a value GraphQL and the row hold as the wire shows
// it (strings, numbers, booleans, lists of them, free JSON), read from the
// field and column its wire name names (camelCase); or a `value` read from
// elsewhere, a `timestamp`, a `jsonObject` or `jsonList` (typed objects
// stored as their JSON value, read in GraphQL as their `json` field), or another record: `nested`
// (one object) or `list`.
import { z } from 'zod';
import { camelCase } from './names.ts';
import { instant } from './values.ts';

/** SQL given the alias of the row a record is read from. */
type RowSql = (row: string) => string;

export interface Member<T extends z.ZodType = z.ZodType> {
  type: T;
  /** The GraphQL field it is read from, when not its wire name in camelCase. */
  field?: string;
  /** The selection of the field named `field`: the name, and the fields of an object. */
  select(field: string): string;
  /** The wire's value of the field's value in a GraphQL result. */
  present(value: unknown): unknown;
  /** Its SQL expression, given the alias of its record's row and the column its name names (camelCase). */
  sql(row: string, column: string): string;
  /** The same member, null allowed. */
  nullable(): Member<z.ZodNullable<T>>;
}

interface Reading {
  /** The GraphQL field it is read from; its wire name in camelCase unless given. */
  field?: string;
  /**
   * Its SQL expression; the column its wire name names (camelCase) unless
   * given. It names the row's columns quoted, `${row}."column"`: so are the
   * columns a record reads found (`columns`).
   */
  sql?: RowSql;
}

function member<T extends z.ZodType>(spec: Omit<Member<T>, 'nullable'>): Member<T> {
  return { ...spec, nullable: () => member({ ...spec, type: spec.type.nullable() }) };
}

const asIs = (value: unknown) => value;
const columnOf = (reading: Reading, row: string, column: string) => reading.sql?.(row) ?? `${row}."${column}"`;

/** A value GraphQL and the row hold as the wire shows it. */
export const value = <T extends z.ZodType>(type: T, reading: Reading = {}) =>
  member({
    type,
    field: reading.field,
    select: (field) => field,
    present: asIs,
    sql: (row, column) => columnOf(reading, row, column),
  });

/**
 * An instant: RFC 3339 UTC with milliseconds, as JSON.stringify writes a
 * Date and GraphQL's DateTime serializes it. The one SQL format of every
 * instant written as JSON (null stays null); `sql`, when given, is the
 * instant to format.
 */
export const timestamp = (reading: Reading = {}) =>
  member({
    type: instant(),
    field: reading.field,
    select: (field) => field,
    present: asIs,
    sql: (row, column) => utcInstantText(columnOf(reading, row, column)),
  });

/** A timestamptz's text as JSON.stringify writes a Date and GraphQL's DateTime serializes it (null stays null). */
export const utcInstantText = (sql: string) => `to_char((${sql}) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** A typed object stored as its JSON value (wire names): GraphQL's object type, read whole as its `json` field. */
export const jsonObject = <T extends z.ZodType>(type: T, reading: Reading = {}) =>
  member({
    type,
    field: reading.field,
    select: (field) => `${field} { json }`,
    present: (selected) => (selected ? (selected as { json: unknown }).json : null),
    sql: (row, column) => columnOf(reading, row, column),
  });

/** A list of typed objects stored as its JSON value (wire names): a list of GraphQL's object type, each read whole as its `json` field. */
export const jsonList = <T extends z.ZodType>(type: z.ZodArray<T>, reading: Reading = {}) =>
  member({
    type,
    field: reading.field,
    select: (field) => `${field} { json }`,
    present: (selected) => (selected as { json: unknown }[]).map((item) => item.json),
    sql: (row, column) => columnOf(reading, row, column),
  });

/** Where the rows of a nested record or a list are: rows of another table, related to the parent's. */
export interface Related {
  table: string;
  /** The alias of its rows, which the record's members read. */
  alias: string;
  /** The condition on its rows, given the parent's row alias: the parent's own (and its organization's). */
  where: RowSql;
  /** The order of a list's items. */
  orderBy?: string;
}

/** The alias of the row value a record's SQL makes: its fields are the wire names. */
const ROW_VALUE = 'record_row';
/** The alias its SQL is written for to find the columns it reads. */
const PROBED_ROW = 'probed_row';

/**
 * Another record inside this one: read from a related row (null when there
 * is none), or, without `related`, its members are more columns of the
 * parent's own row.
 */
export function nested<M extends Members>(shape: RecordShape<M>, related?: Related) {
  return member({
    type: shape.schema,
    select: (field) => `${field} { ${shape.selection} }`,
    present: (result) => (result ? shape.present(result as Result) : null),
    sql: (row) =>
      related
        ? `(SELECT ${ROW_VALUE} FROM "${related.table}" AS ${related.alias} CROSS JOIN LATERAL (SELECT ${shape.sqlColumns(related.alias)}) AS ${ROW_VALUE} WHERE ${related.where(row)})`
        : shape.sqlRow(row),
  });
}

/**
 * A list of records: the related rows, in their order (an empty list for
 * none), or, without `related`, the list its column holds as JSON (wire names).
 */
export function list<M extends Members>(shape: RecordShape<M>, related?: Related & { orderBy: string }) {
  return member({
    type: z.array(shape.schema),
    select: (field) => `${field} { ${shape.selection} }`,
    present: (items) => (items as Result[]).map(shape.present),
    sql: (row, column) =>
      related
        ? `ARRAY(SELECT ${ROW_VALUE} FROM "${related.table}" AS ${related.alias} CROSS JOIN LATERAL (SELECT ${shape.sqlColumns(related.alias)}) AS ${ROW_VALUE} WHERE ${related.where(row)} ORDER BY ${related.orderBy})`
        : `${row}."${column}"`,
  });
}

/** A record's members by wire name, in the wire's order: zod types (`value`s) or members. */
export type Members = Record<string, Member | z.ZodType>;
type Result = Record<string, unknown>;
type Shape<M extends Members> = { [K in keyof M]: M[K] extends Member<infer T> ? T : Extract<M[K], z.ZodType> };

export interface RecordShape<M extends Members> {
  /** The wire shape: its members and nothing else, named `id` in the OpenAPI document when it has one. */
  schema: z.ZodObject<Shape<M>, z.core.$strict>;
  /** The fields a GraphQL selection set reads it with (put them in braces). */
  selection: string;
  /** A GraphQL result of `selection` as the wire shows it, members in their declared order. */
  present(result: Result): Result;
  /** Its SELECT list, given its row's alias: each member's expression named by its wire name. */
  sqlColumns(row: string): string;
  /**
   * It as a row value whose fields are its wire names: to_jsonb makes it jsonb, row_to_json JSON text.
   * `given` members are the SQL expressions given instead of their own (a
   * value the statement has read already, from a row it joined).
   */
  sqlRow(row: string, given?: Partial<Record<keyof M, string>>): string;
  /** The columns of its row its SQL reads: all a query that makes it from rows must select. */
  columns: string[];
  /** The same record with more members (after its own), under another name. */
  extend<More extends Members>(naming: Naming, more: More): RecordShape<M & More>;
}

/** The record's name in the OpenAPI document (none: it is shown inline), and its description. */
interface Naming {
  id?: string;
  description?: string;
}

export function record<M extends Members>(naming: Naming, members: M): RecordShape<M> {
  const entries = Object.entries(members).map(([wire, declared]) => {
    const member = declared instanceof z.ZodType ? value(declared) : declared;
    return { wire, field: member.field ?? camelCase(wire), column: camelCase(wire), member };
  });
  const strict = z.strictObject(Object.fromEntries(entries.map(({ wire, member }) => [wire, member.type])) as Shape<M>);
  const schema = naming.id || naming.description ? strict.meta({ ...naming }) : strict;
  const sqlColumns = (row: string, given: Partial<Record<string, string>> = {}) =>
    entries.map(({ wire, column, member }) => `${given[wire] ?? member.sql(row, column)} AS "${wire}"`).join(', ');
  return {
    schema,
    selection: entries.map(({ field, member }) => member.select(field)).join(' '),
    present: (result) => {
      const shown: Result = {};
      for (const { wire, field, member } of entries) shown[wire] = member.present(result[field]);
      return shown;
    },
    sqlColumns,
    sqlRow: (row, given) => `(SELECT ${ROW_VALUE} FROM (SELECT ${sqlColumns(row, given)}) AS ${ROW_VALUE})`,
    columns: [...new Set([...sqlColumns(PROBED_ROW).matchAll(/\bprobed_row\."(\w+)"/g)].map(([, name]) => name!))],
    extend: (extended, added) => record(extended, { ...members, ...added }),
  };
}
