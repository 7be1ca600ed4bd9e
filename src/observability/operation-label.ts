// What logs, metrics and traces call a GraphQL operation.
import { type DocumentNode, Kind, type OperationDefinitionNode } from 'graphql';

/** An operation's name: its own, else its first root field (REST's operations are unnamed). */
export function operationLabel(document: DocumentNode, operationName?: string | null) {
  const operation = document.definitions.find(
    (definition): definition is OperationDefinitionNode =>
      definition.kind === Kind.OPERATION_DEFINITION && (!operationName || definition.name?.value === operationName),
  );
  const firstField = operation?.selectionSet.selections.find((selection) => selection.kind === Kind.FIELD);
  return {
    name: operation?.name?.value ?? (firstField?.kind === Kind.FIELD ? firstField.name.value : 'anonymous'),
    type: operation?.operation ?? 'query',
    named: Boolean(operation?.name),
  };
}
