// What one operation may ask for, measured where its variables are known (so
// `first: $n` costs what `first: 100` does): the cost of its answer, and the
// length of every list it passes. graphql-armor's cost limit is a validation
// rule: it sees the document alone, multiplies only literal `first`/`last`
// and counts a connection without either as one item, so it is not used.
//
// The cost is how many values the answer may hold:
// - a scalar or enum field is 1, a field with a selection 2 plus what it selects;
// - a connection (a field with `first`/`last`) multiplies all that by its page
//   size: the larger of `first` and `last` (a literal, a variable's value, or
//   the variable's default), the default page size when neither is given, and
//   never more than the largest page (a larger one is refused by the connection);
// - `nodes(ids:)` (a list field sized by its list argument) multiplies it by the
//   number of ids;
// - fragments, inline or spread, add nothing of their own: a query composed of
//   fragments costs the same as its fields written out;
// - introspection (`__schema`, `__type`) costs nothing: a switch of its own governs it.
import {
  type ArgumentNode,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLArgument,
  type GraphQLCompositeType,
  type GraphQLField,
  type GraphQLInputField,
  type GraphQLInputObjectType,
  type GraphQLInputType,
  type GraphQLSchema,
  getNamedType,
  getNullableType,
  getOperationAST,
  isCompositeType,
  isInputObjectType,
  isListType,
  isObjectType,
  isUnionType,
  Kind,
  type OperationDefinitionNode,
  type SelectionSetNode,
  valueFromASTUntyped,
} from 'graphql';
import { DEFAULT_PAGE_SIZE, MAX_LIST_ITEMS, MAX_PAGE_SIZE } from '../schema/pagination.ts';

const SCALAR_COST = 1;
const OBJECT_COST = 2;

/** What an operation asks for: its cost, or the list that holds more than it may. */
export type OperationMeasure = { cost: number; overlong?: undefined } | { overlong: string };

class OverlongListError extends Error {
  constructor(field: string, path: string[], found: number) {
    super(`List limit of ${MAX_LIST_ITEMS} exceeded by ${field}(${path.join('.')}), found ${found}.`);
  }
}

/**
 * The bound of a list argument or input field that has one of its own, enforced
 * where it is used (the domain's schemas, which refuse past it with BAD_INPUT
 * naming the member): `extensions.maxItems`, set where the field is declared.
 */
const ownBoundOf = (member: GraphQLArgument | GraphQLInputField) => member.extensions?.maxItems as number | undefined;

/** Input object types whose values may hold a list somewhere (others are not walked). */
const holdsLists = new WeakMap<GraphQLInputObjectType, boolean>();

function mayHoldList(type: GraphQLInputType): boolean {
  const nullable = getNullableType(type);
  if (isListType(nullable)) return true;
  if (!isInputObjectType(nullable)) return false;
  let known = holdsLists.get(nullable);
  if (known === undefined) {
    known = reachesList(nullable, new Set());
    holdsLists.set(nullable, known);
  }
  return known;
}

/** Whether a member of `type`, or of an input object it holds, is a list; `seen` stops at recursive members. */
function reachesList(type: GraphQLInputObjectType, seen: Set<GraphQLInputObjectType>): boolean {
  seen.add(type);
  return Object.values(type.getFields()).some((field) => {
    const member = getNullableType(field.type);
    return isListType(member) || (isInputObjectType(member) && !seen.has(member) && reachesList(member, seen));
  });
}

class Measure {
  private readonly fragments = new Map<string, FragmentDefinitionNode>();
  private readonly fragmentCosts = new Map<string, number>();
  /** Each variable's value, its default when it was not given. */
  private readonly values: Record<string, unknown> = {};

  constructor(
    private readonly schema: GraphQLSchema,
    document: DocumentNode,
    operation: OperationDefinitionNode,
    variables: Readonly<Record<string, unknown>>,
  ) {
    for (const definition of document.definitions) {
      if (definition.kind === Kind.FRAGMENT_DEFINITION) this.fragments.set(definition.name.value, definition);
    }
    for (const { variable, defaultValue } of operation.variableDefinitions ?? []) {
      const name = variable.name.value;
      if (Object.hasOwn(variables, name)) this.values[name] = variables[name];
      else if (defaultValue) this.values[name] = valueFromASTUntyped(defaultValue);
    }
  }

  selections(selectionSet: SelectionSetNode, parent: GraphQLCompositeType): number {
    let cost = 0;
    for (const selection of selectionSet.selections) {
      if (selection.kind === Kind.FIELD) cost += this.field(selection, parent);
      else if (selection.kind === Kind.INLINE_FRAGMENT) {
        const condition = selection.typeCondition && this.schema.getType(selection.typeCondition.name.value);
        cost += this.selections(selection.selectionSet, (condition as GraphQLCompositeType) ?? parent);
      } else cost += this.fragment(selection.name.value);
    }
    return cost;
  }

  /** A fragment's cost, found once however many times it is spread. */
  private fragment(name: string): number {
    const known = this.fragmentCosts.get(name);
    if (known !== undefined) return known;
    const fragment = this.fragments.get(name)!;
    const cost = this.selections(
      fragment.selectionSet,
      this.schema.getType(fragment.typeCondition.name.value) as GraphQLCompositeType,
    );
    this.fragmentCosts.set(name, cost);
    return cost;
  }

  private field(node: FieldNode, parent: GraphQLCompositeType): number {
    const name = node.name.value;
    if (name === '__typename') return SCALAR_COST;
    if (name.startsWith('__') || isUnionType(parent)) return 0;
    const field = parent.getFields()[name]!;
    for (const argument of node.arguments ?? []) this.checkLists(node, argument, field);
    if (!node.selectionSet) return SCALAR_COST;
    const type = getNamedType(field.type);
    const selected = isCompositeType(type) ? this.selections(node.selectionSet, type) : 0;
    return (OBJECT_COST + selected) * this.multiplier(node, field);
  }

  /** How many items the field answers with: its page size, its ids' number, or one. */
  private multiplier(node: FieldNode, field: GraphQLField<unknown, unknown>): number {
    const names = new Set(field.args.map((argument) => argument.name));
    if (names.has('first') || names.has('last')) {
      const sizes = ['first', 'last'].map((name) => this.argument(node, name)).filter(Number.isInteger) as number[];
      return sizes.length === 0 ? DEFAULT_PAGE_SIZE : Math.min(Math.max(1, ...sizes), MAX_PAGE_SIZE);
    }
    const sizedBy = field.args.find((argument) => isListType(getNullableType(argument.type)));
    if (sizedBy && isListType(getNullableType(field.type))) {
      const ids = this.argument(node, sizedBy.name);
      return Math.max(1, Array.isArray(ids) ? ids.length : 1);
    }
    return 1;
  }

  /** An argument's value, from its literal and the variables in it. */
  private argument(node: FieldNode, name: string): unknown {
    const argument = node.arguments?.find((candidate) => candidate.name.value === name);
    return argument && valueFromASTUntyped(argument.value, this.values);
  }

  private checkLists(node: FieldNode, argument: ArgumentNode, field: GraphQLField<unknown, unknown>) {
    const definition = field.args.find((candidate) => candidate.name === argument.name.value);
    if (!definition || !mayHoldList(definition.type)) return;
    const value = valueFromASTUntyped(argument.value, this.values);
    walkLists(node.name.value, definition.type, value, [definition.name], ownBoundOf(definition));
  }
}

/**
 * Refuses a list in `value` (of `field`'s argument, at `path` in it) that holds
 * more than MAX_LIST_ITEMS and has no bound of its own.
 */
function walkLists(
  field: string,
  type: GraphQLInputType,
  value: unknown,
  path: string[],
  ownBound: number | undefined,
): void {
  if (value === null || value === undefined) return;
  const nullable = getNullableType(type);
  if (isListType(nullable)) {
    // A single value where a list is expected is a list of one (GraphQL's input coercion).
    const items = Array.isArray(value) ? value : [value];
    if (ownBound === undefined && items.length > MAX_LIST_ITEMS) throw new OverlongListError(field, path, items.length);
    const itemType = nullable.ofType as GraphQLInputType;
    if (!mayHoldList(itemType)) return;
    for (const [index, item] of items.entries()) walkLists(field, itemType, item, [...path, String(index)], undefined);
    return;
  }
  if (!isInputObjectType(nullable) || typeof value !== 'object') return;
  for (const member of Object.values(nullable.getFields())) {
    const memberValue = (value as Record<string, unknown>)[member.name];
    if (memberValue !== undefined && mayHoldList(member.type)) {
      walkLists(field, member.type, memberValue, [...path, member.name], ownBoundOf(member));
    }
  }
}

/**
 * What the operation `operationName` of `document` (validated against
 * `schema`) asks for with these variables. An operation that cannot be picked
 * costs nothing here: execution refuses it.
 */
export function measureOperation(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | null | undefined,
  variables: Readonly<Record<string, unknown>> | null | undefined,
): OperationMeasure {
  const operation = getOperationAST(document, operationName);
  const root = operation && schema.getRootType(operation.operation);
  if (!operation || !root || !isObjectType(root)) return { cost: 0 };
  try {
    return { cost: new Measure(schema, document, operation, variables ?? {}).selections(operation.selectionSet, root) };
  } catch (error) {
    if (error instanceof OverlongListError) return { overlong: error.message };
    throw error;
  }
}
