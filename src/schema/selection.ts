// Reading what a query selects below a field, so a list reads the columns and
// related rows the query asks for, and only those.
import { type FieldNode, type GraphQLResolveInfo, Kind, type SelectionSetNode } from 'graphql';

/** The fields in these selection sets (named `name`, or all), through inline fragments and fragment spreads. */
function fieldsIn(info: GraphQLResolveInfo, sets: readonly SelectionSetNode[], name?: string): FieldNode[] {
  const found: FieldNode[] = [];
  const visit = (set: SelectionSetNode) => {
    for (const selection of set.selections) {
      if (selection.kind === Kind.FIELD) {
        if (name === undefined || selection.name.value === name) found.push(selection);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        visit(selection.selectionSet);
      } else {
        const fragment = info.fragments[selection.name.value];
        if (fragment) visit(fragment.selectionSet);
      }
    }
  };
  sets.forEach(visit);
  return found;
}

const selectionSets = (fields: readonly FieldNode[]) =>
  fields.flatMap((field) => (field.selectionSet ? [field.selectionSet] : []));

/** What a selection reads of a row: the selection sets and the resolver's info, to look inside fragments. */
interface RowSelection {
  info: GraphQLResolveInfo;
  sets: readonly SelectionSetNode[];
}

/** The selection of the nodes of the connection being resolved, under `nodes` and `edges { node }`. */
export function connectionNodes(info: GraphQLResolveInfo): RowSelection {
  const connection = selectionSets(info.fieldNodes);
  const edges = selectionSets(fieldsIn(info, connection, 'edges'));
  return {
    info,
    sets: [...selectionSets(fieldsIn(info, connection, 'nodes')), ...selectionSets(fieldsIn(info, edges, 'node'))],
  };
}

/**
 * The selection of `field` within these rows, or null when it is not selected.
 * Directives are not evaluated: a field under `@skip` counts as selected,
 * which costs a lookup, never a wrong answer.
 */
export function selectedField(selection: RowSelection, field: string): RowSelection | null {
  const fields = fieldsIn(selection.info, selection.sets, field);
  return fields.length ? { info: selection.info, sets: selectionSets(fields) } : null;
}

/**
 * The columns a selection reads: each field's own column and what `reads`
 * names for it (the columns a relation or a computed field reads), plus
 * `id`. Null, meaning every column, when a field is neither.
 */
export function selectedColumns(
  selection: RowSelection,
  columns: Readonly<Record<string, string>>,
  reads: Readonly<Record<string, readonly string[]>>,
): string[] | null {
  const needed = new Set(['id']);
  for (const field of fieldsIn(selection.info, selection.sets)) {
    const name = field.name.value;
    if (name === '__typename') continue;
    const own = Object.hasOwn(columns, name);
    // A field computed from its own column and others (Run.nextAttemptAt, from its status) reads them all.
    if (own) needed.add(columns[name]!);
    if (Object.hasOwn(reads, name)) {
      for (const column of reads[name]!) needed.add(column);
    } else if (!own) return null;
  }
  return [...needed];
}
