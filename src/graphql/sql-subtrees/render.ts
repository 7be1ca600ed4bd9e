// A connection's subtree as the SQL that writes its JSON text: the text
// JSON.stringify would make of what the resolvers answer, members in the
// selection's order under their response keys. Each builder returns null
// when some field of the selection is not one PostgreSQL can write (no
// `extensions.sql`, no column, arguments it does not know, a key scope to
// check): the caller then leaves the whole connection to its resolver.
// to_json escapes strings as JSON.stringify does (src/db/sql/wire-runs-page.ts).
import { offsetToCursor } from '@pothos/plugin-relay';
import {
  type FieldNode,
  type GraphQLField,
  type GraphQLObjectType,
  type GraphQLOutputType,
  getNamedType,
  getNullableType,
  isEnumType,
  isObjectType,
  isScalarType,
} from 'graphql';
import { getArgumentValues } from 'graphql/execution/values.js';
import { quoteIdentifier } from '../../db/parts/identifiers.ts';
import { shownRows } from '../../db/sql/child-pages.ts';
import { Prisma } from '../../generated/prisma/client.ts';
import { FIELD_SCOPES } from '../../key-scopes.ts';
import { utcInstantText } from '../../records/record.ts';
import { encodeGlobalID } from '../../schema/global-ids.ts';
import { knownWindow } from '../../schema/pagination.ts';
import type { SqlChildList, SqlField } from '../../schema/sql-fields.ts';
import { collectFields, type Operation, subselections } from './fields.ts';

/** An operation being rendered for one organization; `aliases` numbers the row aliases of its SQL. */
export interface Rendering extends Operation {
  organizationId: string;
  aliases: number;
}

type Text = Prisma.Sql;

/** JSON text known here, as a SQL literal. */
const literal = (value: unknown): Text => Prisma.raw(`'${JSON.stringify(value).replaceAll("'", "''")}'`);
const jsonOf = (value: Text): Text => Prisma.sql`coalesce(to_json(${value})::text, 'null')`;
/**
 * The JSON text of a value whose SQL text needs no escaping, written without to_json (which scans and
 * copies it again: a dashboard's thousand runs spent about 0.3 ms of PostgreSQL CPU on it): a number's
 * or a boolean's text as it is, an instant's (digits, `-`, `:`, `.`, `T`, `Z`) in quotes.
 */
const bareJsonOf = (value: Text): Text => Prisma.sql`coalesce((${value})::text, 'null')`;
const quotedJsonOf = (value: Text): Text => Prisma.sql`coalesce('"' || ${value} || '"', 'null')`;
const nextAlias = (rendering: Rendering) => `s${++rendering.aliases}`;
/** Pothos's offset cursor of the row at `offset` (SQL). */
const cursorAt = (offset: Text): Text =>
  Prisma.sql`to_json(encode(convert_to('OffsetConnection:' || (${offset}), 'UTF8'), 'base64'))::text`;

/** An object's text from its members' (key, text), in order. */
function objectText(members: [string, Text][]): Text {
  if (members.length === 0) return literal({});
  const parts = members.map(
    ([key, text], index) => Prisma.sql`${Prisma.raw(`'${index ? ',' : '{'}"${key}":'`)} || ${text}`,
  );
  return Prisma.sql`(${Prisma.join(parts, ' || ')} || '}')`;
}

/** The members of `type`'s selection, each written by `member`; null when one is not. */
function membersOf(
  rendering: Rendering,
  type: GraphQLObjectType,
  nodes: readonly FieldNode[],
  member: (name: string, nodes: FieldNode[]) => Text | null,
): Text | null {
  const fields = collectFields(rendering, type, subselections(nodes));
  if (!fields) return null;
  const members: [string, Text][] = [];
  for (const [key, keyed] of fields) {
    const name = keyed[0]!.name.value;
    const text = name === '__typename' ? literal(type.name) : member(name, keyed);
    if (!text) return null;
    members.push([key, text]);
  }
  return objectText(members);
}

/** A scalar's or an enum's text, as its GraphQL type serializes the SQL value `value`. */
function scalarText(type: GraphQLOutputType, value: string): Text | null {
  const named = getNullableType(type);
  if (isEnumType(named))
    return named.getValues().every((entry) => entry.value === entry.name) ? jsonOf(Prisma.raw(value)) : null;
  if (!isScalarType(named)) return null;
  if (named.name === 'DateTime') return quotedJsonOf(Prisma.raw(utcInstantText(value)));
  if (named.name === 'Int' || named.name === 'Boolean') return bareJsonOf(Prisma.raw(value));
  return named.name === 'String' || named.name === 'ID' ? jsonOf(Prisma.raw(value)) : null;
}

/**
 * A number's text as JavaScript writes it (Number.prototype.toString, which
 * JSON.stringify and GraphQL's Float use), from its SQL value: PostgreSQL
 * writes a double precision with the same shortest digits (Ryu), but in
 * exponent form below 1e-4 and from 1e15, with two exponent digits, and -0 as
 * such; JavaScript writes plain decimals from 1e-6 to 1e21 (as numeric does),
 * `1e-7` beyond, and 0 for -0.
 */
const numberText = (value: string): Text =>
  Prisma.raw(`(SELECT CASE WHEN v IS NULL THEN 'null' WHEN v = 0 THEN '0'
    WHEN abs(v) >= 1e-6 AND abs(v) < 1e21 THEN v::text::numeric::text
    ELSE regexp_replace(v::text, 'e([+-])0*', 'e\\1') END FROM (SELECT (${value})::float8 AS v) AS n)`);

/** A member of an object held in the JSON value `held`, as the resolver reads it (by its wire name). */
function memberText(type: GraphQLObjectType, nodes: FieldNode[], held: string): Text | null {
  const field = type.getFields()[nodes[0]!.name.value];
  const sql = field?.extensions.sql as SqlField | undefined;
  if (!field || !sql || !('member' in sql)) return null;
  const value = `(${held} ->> '${sql.member.replaceAll("'", "''")}')`;
  const named = getNullableType(field.type);
  if (!isScalarType(named)) return null;
  if (named.name === 'Float') return numberText(value);
  if (named.name === 'Int') return scalarText(named, `${value}::int`);
  if (named.name === 'Boolean') return scalarText(named, `${value}::boolean`);
  return named.name === 'String' || named.name === 'ID' ? scalarText(named, value) : null;
}

/** An object's text read from the row of `table` aliased `related` that `picked` (its conditions, its order) picks, in the organization; null when none. */
const relatedText = (rendering: Rendering, text: Text, table: string, related: string, picked: [string, string]) =>
  Prisma.sql`coalesce((SELECT ${text} FROM ${Prisma.raw(quoteIdentifier(table))} AS ${Prisma.raw(related)}
      WHERE ${Prisma.raw(picked[0])} AND ${Prisma.raw(related)}."organizationId" = ${rendering.organizationId}
      ${Prisma.raw(picked[1])}), 'null')`;

/** A field of a row's object: a column, what its `extensions.sql` declares, or a connection. */
function fieldText(rendering: Rendering, type: GraphQLObjectType, nodes: FieldNode[], row: string): Text | null {
  const field = type.getFields()[nodes[0]!.name.value];
  if (!field || FIELD_SCOPES[`${type.name}.${field.name}`]) return null;
  const sql = field.extensions.sql as SqlField | undefined;
  if (sql && 'children' in sql) return connectionText(rendering, field, nodes, row);
  if (field.args.length > 0) return null;
  if (sql && 'float' in sql) return numberText(sql.float(row));
  const column = field.extensions.pothosExposedField as string | undefined;
  if (column) return scalarText(field.type, `${row}.${quoteIdentifier(column)}`);
  // A node's global id is its row's id (global-ids.ts), but for types whose ids are numbers.
  if (field.name === 'id' && type.extensions.pothosPrismaModel && encodeGlobalID(type.name, 'x') === 'x')
    return scalarText(field.type, `${row}.id`);
  if (!sql || 'member' in sql) return null;
  if ('value' in sql) return scalarText(field.type, sql.value(row));
  const object = getNullableType(field.type);
  if (!isObjectType(object)) return null;
  if ('json' in sql) {
    const held = `${row}.${quoteIdentifier(sql.json)}`;
    const text = membersOf(rendering, object, nodes, (_name, keyed) => memberText(object, keyed, held));
    return text && Prisma.sql`CASE WHEN jsonb_typeof(${Prisma.raw(held)}) = 'object' THEN ${text} ELSE 'null' END`;
  }
  const member = (_name: string, keyed: FieldNode[]) => fieldText(rendering, object, keyed, row);
  if ('sameRow' in sql) return membersOf(rendering, object, nodes, member);
  const related = nextAlias(rendering);
  const text = membersOf(rendering, object, nodes, (_name, keyed) => fieldText(rendering, object, keyed, related));
  if (!text) return null;
  if ('row' in sql)
    return relatedText(rendering, text, sql.row.table, related, [
      `${related}.id = ${row}.${quoteIdentifier(sql.row.column)}`,
      '',
    ]);
  const { table, parent, orderBy } = sql.first;
  return relatedText(rendering, text, table, related, [
    `${related}.${quoteIdentifier(parent)} = ${row}.id`,
    `ORDER BY ${orderBy(related)} LIMIT 1`,
  ]);
}

/** The number of rows the list holds under the parent row `parent` (with the list's conditions). */
const countedRows = (rendering: Rendering, list: SqlChildList, parent: string): Text =>
  Prisma.sql`(SELECT count(*) FROM ${Prisma.raw(quoteIdentifier(list.table))} AS c
    WHERE c.${Prisma.raw(quoteIdentifier(list.parent))} = ${Prisma.raw(parent)}.id
      AND c."organizationId" = ${rendering.organizationId} ${list.where.sql})`;

/**
 * A connection's text under the parent row `parent`: one page of the
 * parent's list, written as offsetConnection (pagination.ts) answers it
 * (its cursors, its page info), with `totalCount` when selected.
 */
export function connectionText(
  rendering: Rendering,
  field: GraphQLField<unknown, unknown>,
  nodes: FieldNode[],
  parent: string,
): Text | null {
  const { first, last, after, before, ...rest } = getArgumentValues(field, nodes[0]!, rendering.variables);
  const window = knownWindow({ first, last, after, before } as never);
  const list =
    window && (field.extensions.sql as { children: (args: typeof rest) => SqlChildList | null }).children(rest);
  const connection = getNullableType(field.type);
  if (!list || !window || !isObjectType(connection)) return null;
  const { offset, limit, expectedSize, hasPreviousPage } = window;
  const page = nextAlias(rendering);
  const item = nextAlias(rendering);
  /** The aggregated items of each `edges` and `nodes` selected: `page.l0`, `page.l1`, … */
  const lists: Text[] = [];
  const itemsOf = (text: Text) => {
    lists.push(
      Prisma.sql`coalesce(string_agg(${text}, ',' ORDER BY ${Prisma.raw(item)}.rn) FILTER (WHERE ${Prisma.raw(item)}.rn <= ${Prisma.raw(String(expectedSize))}), '') AS l${Prisma.raw(String(lists.length))}`,
    );
    return Prisma.sql`('[' || ${Prisma.raw(`${page}.l${lists.length - 1}`)} || ']')`;
  };
  const nodeOf = (nodeType: GraphQLOutputType, keyed: FieldNode[]) => {
    const object = getNamedType(nodeType);
    return isObjectType(object)
      ? membersOf(rendering, object, keyed, (_name, fields) => fieldText(rendering, object, fields, item))
      : null;
  };
  const shown = Prisma.raw(String(expectedSize));
  const members = membersOf(rendering, connection, nodes, (name, keyed) => {
    const member = connection.getFields()[name];
    if (!member || member.args.length > 0) return null;
    switch (name) {
      case 'totalCount':
        return list.count ? list.count(parent) : countedRows(rendering, list, parent);
      case 'nodes': {
        const text = nodeOf(member.type, keyed);
        return text && itemsOf(text);
      }
      case 'edges': {
        const edge = getNamedType(member.type) as GraphQLObjectType;
        const text = membersOf(rendering, edge, keyed, (edgeField, fields) =>
          edgeField === 'cursor'
            ? cursorAt(Prisma.sql`${Prisma.raw(String(offset))} + ${Prisma.raw(item)}.rn - 1`)
            : edgeField === 'node'
              ? nodeOf(edge.getFields().node!.type, fields)
              : null,
        );
        return text && itemsOf(text);
      }
      case 'pageInfo':
        return membersOf(rendering, getNamedType(member.type) as GraphQLObjectType, keyed, (info) => {
          if (info === 'hasPreviousPage') return literal(hasPreviousPage);
          if (info === 'hasNextPage')
            return Prisma.sql`CASE WHEN ${Prisma.raw(page)}.n > ${shown} THEN 'true' ELSE 'false' END`;
          if (info === 'startCursor') return literal(offsetToCursor(offset));
          if (info === 'endCursor')
            return cursorAt(Prisma.sql`${Prisma.raw(String(offset))} + least(${Prisma.raw(page)}.n, ${shown}) - 1`);
          return null;
        });
      default:
        return null;
    }
  });
  if (!members) return null;
  const rows = shownRows(
    { ...list, offset, limit, columns: null, pruning: list.pruning?.(parent) },
    rendering.organizationId,
    Prisma.raw(`${parent}.id`),
  );
  return Prisma.sql`(SELECT ${members} FROM (
      SELECT count(*) AS n ${lists.length ? Prisma.sql`, ${Prisma.join(lists)}` : Prisma.empty}
      FROM (SELECT c.*, row_number() OVER (ORDER BY ${list.orderBy.sql}) AS rn FROM (${rows}) AS c) AS ${Prisma.raw(item)}
    ) AS ${Prisma.raw(page)})`;
}
