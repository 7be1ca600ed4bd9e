// Which connections of a query PostgreSQL writes, and the document the
// executor runs instead. A connection is written when it is reached from the
// query root through object types (no interface or union on the way, so its
// place in the answer is known without the answer's types), through the
// operation's own selections (a named fragment may be spread elsewhere too),
// and when every field of its selection is one PostgreSQL can write
// (render.ts). The executor then reads the parent's `id` in its place, under
// the same response key: the answer keeps its shape and order, and holds the
// parents' ids where the connections go (splice.ts).
import {
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLObjectType,
  type GraphQLSchema,
  getNamedType,
  getOperationAST,
  getVariableValues,
  isObjectType,
  Kind,
  type SelectionSetNode,
  visit,
} from 'graphql';
import { BoundedMap } from '../../bounded-map.ts';
import type { Prisma } from '../../generated/prisma/client.ts';
import { included, type Operation, subselections } from './fields.ts';
import { connectionText, type Rendering } from './render.ts';

/** A connection PostgreSQL writes: where its parents are in the answer, their table, the text under the parent `p`. */
interface Site {
  path: readonly string[];
  parentTable: string;
  text: Prisma.Sql;
}

export interface Plan {
  document: DocumentNode;
  sites: Site[];
}

/** A field's response key. */
const keyOf = (node: FieldNode) => node.alias?.value ?? node.name.value;

/**
 * The fields of the operation's own selection sets by response key, with
 * whether the executor keeps each node (its directives and its inline
 * fragments'; undefined for a directive it alone does not give meaning to),
 * and the keys a named fragment selects too.
 */
function ownFields(operation: Operation, sets: readonly SelectionSetNode[]) {
  const own = new Map<string, { node: FieldNode; kept: boolean | undefined }[]>();
  const spread = new Set<string>();
  const seen = new Set<string>();
  const visitSet = (set: SelectionSetNode, owned: boolean, shown: boolean | undefined) => {
    for (const selection of set.selections) {
      const directives = included(operation, selection);
      const kept = directives === undefined || shown === undefined ? undefined : directives && shown;
      if (selection.kind === Kind.FIELD) {
        const key = keyOf(selection);
        if (!owned) spread.add(key);
        else own.set(key, [...(own.get(key) ?? []), { node: selection, kept }]);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) visitSet(selection.selectionSet, owned, kept);
      else if (!seen.has(selection.name.value)) {
        seen.add(selection.name.value);
        const fragment = operation.fragments[selection.name.value];
        if (fragment) visitSet(fragment.selectionSet, false, kept);
      }
    }
  };
  for (const set of sets) visitSet(set, true, true);
  return { own, spread };
}

/** Each rewritten document, by the sites it was made for, by the document it was made from. */
const rewritten = new WeakMap<DocumentNode, Map<string, DocumentNode>>();

/**
 * Plans made, by document, operation, organization and variables: a dashboard
 * polled again is planned once, not at each request (the plan depends on
 * nothing else). Bounded over all documents; variables longer than
 * PLANNED_VARIABLES_MAX characters are planned each time, not kept.
 */
const plans = new BoundedMap<string, Plan | null>(512);
const PLANNED_VARIABLES_MAX = 2048;
const documentNumbers = new WeakMap<GraphQLSchema, WeakMap<DocumentNode, number>>();
let documentsNumbered = 0;

/** The connections of the query PostgreSQL writes for `organizationId`, and the document to run; null when none. */
export function planQuery(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | null | undefined,
  variableValues: Record<string, unknown> | null | undefined,
  organizationId: string,
): Plan | null {
  const variables = JSON.stringify(variableValues ?? {});
  if (variables.length > PLANNED_VARIABLES_MAX)
    return plannedQuery(schema, document, operationName, variableValues, organizationId);
  let numbers = documentNumbers.get(schema);
  if (!numbers) {
    numbers = new WeakMap();
    documentNumbers.set(schema, numbers);
  }
  let number = numbers.get(document);
  if (number === undefined) {
    number = ++documentsNumbered;
    numbers.set(document, number);
  }
  const key = `${number}\u0000${operationName ?? ''}\u0000${organizationId}\u0000${variables}`;
  let plan = plans.get(key);
  if (plan === undefined) {
    plan = plannedQuery(schema, document, operationName, variableValues, organizationId);
    plans.set(key, plan);
  }
  return plan;
}

function plannedQuery(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | null | undefined,
  variableValues: Record<string, unknown> | null | undefined,
  organizationId: string,
): Plan | null {
  const operation = getOperationAST(document, operationName);
  const query = schema.getQueryType();
  if (operation?.operation !== 'query' || operation.directives?.length || !query) return null;
  const coerced = getVariableValues(schema, operation.variableDefinitions ?? [], variableValues ?? {});
  if (coerced.errors) return null;
  const fragments: Record<string, FragmentDefinitionNode> = {};
  for (const definition of document.definitions)
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments[definition.name.value] = definition;
  const rendering: Rendering = { schema, fragments, variables: coerced.coerced, organizationId, aliases: 0 };
  const sites: Site[] = [];
  const replaced = new Map<FieldNode, FieldNode>();

  const visitObject = (type: GraphQLObjectType, sets: readonly SelectionSetNode[], path: string[]) => {
    const { own, spread } = ownFields(rendering, sets);
    for (const [key, entries] of own) {
      const field = type.getFields()[entries[0]!.node.name.value];
      // A key with a node the executor leaves out is the resolvers' to answer: which of its nodes the
      // rewritten document replaces would depend on the variables, and that document is kept by its sites.
      if (spread.has(key) || !field || entries.some((entry) => entry.kept !== true)) continue;
      const nodes = entries.map((entry) => entry.node);
      if (field.extensions.sql && 'children' in (field.extensions.sql as object) && type.getFields().id) {
        const text = connectionText(rendering, field, nodes, 'p');
        if (text) {
          sites.push({ path: [...path, key], parentTable: type.extensions.pothosPrismaModel as string, text });
          for (const node of nodes)
            replaced.set(node, {
              ...node,
              alias: { kind: Kind.NAME, value: key },
              name: { kind: Kind.NAME, value: 'id' },
              arguments: [],
              selectionSet: undefined,
            });
          continue;
        }
      }
      const inner = getNamedType(field.type);
      if (isObjectType(inner)) visitObject(inner, subselections(nodes), [...path, key]);
    }
  };
  visitObject(query, [operation.selectionSet], []);
  if (sites.length === 0) return null;

  let byDocument = rewritten.get(document);
  if (!byDocument) {
    byDocument = new Map();
    rewritten.set(document, byDocument);
  }
  // Which fields are replaced depends on the variables (a page size out of bounds is the resolver's to refuse).
  const signature = sites.map((site) => site.path.join('.')).join('|');
  let made = byDocument.get(signature);
  if (!made) {
    made = visit(document, { Field: (node) => replaced.get(node) });
    byDocument.set(signature, made);
  }
  return { document: made, sites };
}
