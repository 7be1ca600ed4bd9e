// The objects a mutation returned, as the response cache tags answers
// (src/events/response-cache-store.ts): each object's type and its id, read
// from the result along the operation's selections and the schema. A type
// with an id whose id was not selected is returned without one (the caller
// drops every answer that read the type); an object of an abstract type whose
// `__typename` was not selected makes the whole result unknown (null).
import {
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLCompositeType,
  type GraphQLObjectType,
  type GraphQLSchema,
  getNamedType,
  isCompositeType,
  isObjectType,
  Kind,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';

export interface ReturnedEntity {
  typename: string;
  /** Null: the type has an id, the operation did not select it. */
  id: string | null;
}

/** Every field selection of the set, through inline fragments and fragment spreads: its key and name. */
function fieldsOf(selections: SelectionSetNode, fragments: Map<string, FragmentDefinitionNode>) {
  const fields: { key: string; name: string; selectionSet?: SelectionSetNode }[] = [];
  const collect = (set: SelectionSetNode) => {
    for (const selection of set.selections) {
      if (selection.kind === Kind.FIELD) {
        fields.push({
          key: selection.alias?.value ?? selection.name.value,
          name: selection.name.value,
          selectionSet: selection.selectionSet,
        });
      } else if (selection.kind === Kind.INLINE_FRAGMENT) collect(selection.selectionSet);
      else {
        const fragment = fragments.get(selection.name.value);
        if (fragment) collect(fragment.selectionSet);
      }
    }
  };
  collect(selections);
  return fields;
}

export function returnedEntities(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  data: Record<string, unknown>,
): ReturnedEntity[] | null {
  const fragments = new Map(
    document.definitions.flatMap((definition) =>
      definition.kind === Kind.FRAGMENT_DEFINITION ? [[definition.name.value, definition] as const] : [],
    ),
  );
  const found: ReturnedEntity[] = [];
  let unknown = false;
  const visit = (value: unknown, type: GraphQLCompositeType, selections: SelectionSetNode) => {
    if (Array.isArray(value)) {
      for (const item of value) visit(item, type, selections);
      return;
    }
    if (value === null || typeof value !== 'object') return;
    const record = value as Record<string, unknown>;
    const fields = fieldsOf(selections, fragments);
    let concrete: GraphQLObjectType | undefined;
    if (isObjectType(type)) concrete = type;
    else {
      const typename = fields.find((field) => field.name === '__typename');
      const named = typename && schema.getType(String(record[typename.key]));
      if (isObjectType(named)) concrete = named;
    }
    if (!concrete) {
      unknown = true;
      return;
    }
    const definitions = concrete.getFields();
    if (definitions.id) {
      const id = fields.find((field) => field.name === 'id' && record[field.key] != null);
      found.push({ typename: concrete.name, id: id ? String(record[id.key]) : null });
    }
    for (const field of fields) {
      const definition = definitions[field.name];
      const fieldType = definition && getNamedType(definition.type);
      if (field.selectionSet && isCompositeType(fieldType)) visit(record[field.key], fieldType, field.selectionSet);
    }
  };
  const root = schema.getMutationType();
  if (root) visit(data, root, operation.selectionSet);
  // The mutation root itself has no id: what was found is below it.
  return unknown ? null : found;
}
