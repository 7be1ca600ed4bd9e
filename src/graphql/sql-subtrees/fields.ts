// The fields a selection holds on an object, collected as the executor
// collects them (CollectFields in the GraphQL spec, as graphql-js runs it):
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
 * `type`: the nodes the executor keeps, by response key, in the order
 * CollectFields gives them (a left-out node takes no place: `a @skip(if:
 * true) b a` answers `b` first; a fragment left out where it is spread is
 * still read where it is spread again). Null when a directive is not one the
 * executor alone gives meaning to.
 */
export function collectFields(
  operation: Operation,
  type: GraphQLObjectType,
  sets: readonly SelectionSetNode[],
): Map<string, FieldNode[]> | null {
  const fields = new Map<string, FieldNode[]>();
  const visited = new Set<string>();
  const visit = (set: SelectionSetNode): boolean => {
    for (const selection of set.selections) {
      const kept = included(operation, selection);
      if (kept === undefined) return false;
      if (!kept) continue;
      if (selection.kind === Kind.FIELD) {
        const key = selection.alias?.value ?? selection.name.value;
        const found = fields.get(key);
        if (found) found.push(selection);
        else fields.set(key, [selection]);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        if (applies(operation, selection.typeCondition, type) && !visit(selection.selectionSet)) return false;
      } else {
        const name = selection.name.value;
        if (visited.has(name)) continue;
        visited.add(name);
        const fragment = operation.fragments[name];
        if (fragment && applies(operation, fragment.typeCondition, type) && !visit(fragment.selectionSet)) return false;
      }
    }
    return true;
  };
  for (const set of sets) if (!visit(set)) return null;
  return fields;
}

/** The selection sets of these nodes (one field's, merged). */
export const subselections = (nodes: readonly FieldNode[]) =>
  nodes.flatMap((node) => (node.selectionSet ? [node.selectionSet] : []));
