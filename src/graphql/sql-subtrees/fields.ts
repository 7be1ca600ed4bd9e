// The fields a selection holds on an object, collected as the executor
// collects them (CollectFields in the GraphQL spec, as graphql-jit runs it):
// by response key, through fragments whose type condition the object meets,
// leaving out what @skip and @include leave out.
import {
  type FieldNode,
  type FragmentDefinitionNode,
  GraphQLIncludeDirective,
  type GraphQLObjectType,
  type GraphQLSchema,
  GraphQLSkipDirective,
  getDirectiveValues,
  isAbstractType,
  Kind,
  type NamedTypeNode,
  type SelectionNode,
  type SelectionSetNode,
  typeFromAST,
} from 'graphql';

/** What a selection is read against: the schema, the document's fragments, the coerced variables. */
export interface Operation {
  schema: GraphQLSchema;
  fragments: Readonly<Record<string, FragmentDefinitionNode>>;
  variables: Readonly<Record<string, unknown>>;
}

/** Whether the executor keeps this selection; undefined when it carries a directive other than @skip and @include. */
export function included(operation: Operation, node: SelectionNode): boolean | undefined {
  for (const directive of node.directives ?? [])
    if (directive.name.value !== 'skip' && directive.name.value !== 'include') return undefined;
  if (getDirectiveValues(GraphQLSkipDirective, node, operation.variables)?.if === true) return false;
  return getDirectiveValues(GraphQLIncludeDirective, node, operation.variables)?.if !== false;
}

function applies(operation: Operation, condition: NamedTypeNode | undefined, type: GraphQLObjectType) {
  if (!condition) return true;
  const conditional = typeFromAST(operation.schema, condition);
  return conditional === type || (isAbstractType(conditional) && operation.schema.isSubType(conditional, type));
}

/**
 * The fields of these selection sets (a field's, merged) on an object of
 * `type`: the nodes the executor keeps, by response key, the keys in the
 * order graphql-jit's executor (the one queries run on) gives them: where a
 * key first appears, kept or not (`a @skip(if: true) b a` answers `a` first).
 * Null when a directive is not one the executor alone gives meaning to, and
 * where graphql-jit departs from graphql-js (the resolvers then answer): a
 * kept key that also has a left-out node with a selection set (graphql-jit
 * keeps the fields that node's fragments hold), and a fragment spread again
 * after a left-out spread (graphql-jit reads it once, left out).
 */
export function collectFields(
  operation: Operation,
  type: GraphQLObjectType,
  sets: readonly SelectionSetNode[],
): Map<string, FieldNode[]> | null {
  const fields = new Map<string, FieldNode[]>();
  const leftOutSets = new Set<string>();
  /** Each fragment spread, by name: whether its first spread was kept. */
  const visited = new Map<string, boolean>();
  const visit = (set: SelectionSetNode, shown: boolean): boolean => {
    for (const selection of set.selections) {
      const own = included(operation, selection);
      if (own === undefined) return false;
      const kept = shown && own;
      if (selection.kind === Kind.FIELD) {
        const key = selection.alias?.value ?? selection.name.value;
        const found = fields.get(key) ?? [];
        fields.set(key, found);
        if (kept) found.push(selection);
        else if (selection.selectionSet) leftOutSets.add(key);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        if (applies(operation, selection.typeCondition, type) && !visit(selection.selectionSet, kept)) return false;
      } else {
        const name = selection.name.value;
        if (visited.has(name)) {
          if (kept && !visited.get(name)) return false;
          continue;
        }
        visited.set(name, kept);
        const fragment = operation.fragments[name];
        if (fragment && applies(operation, fragment.typeCondition, type) && !visit(fragment.selectionSet, kept))
          return false;
      }
    }
    return true;
  };
  for (const set of sets) if (!visit(set, true)) return null;
  for (const [key, nodes] of fields) {
    if (nodes.length === 0) fields.delete(key);
    else if (leftOutSets.has(key)) return null;
  }
  return fields;
}

/** The selection sets of these nodes (one field's, merged). */
export const subselections = (nodes: readonly FieldNode[]) =>
  nodes.flatMap((node) => (node.selectionSet ? [node.selectionSet] : []));
