// What logs, metrics and traces call a GraphQL operation.
import { type DocumentNode, Kind, type OperationDefinitionNode } from 'graphql';

/** A name is cut here: a caller's name (a GraphQL name has no length limit) never makes a log line or a label long. */
const MAX_LABEL_LENGTH = 100;

/** An operation's name: its own, else its first root field (REST's operations are unnamed). */
export function operationLabel(document: DocumentNode, operationName?: string | null) {
  const operation = document.definitions.find(
    (definition): definition is OperationDefinitionNode =>
      definition.kind === Kind.OPERATION_DEFINITION && (!operationName || definition.name?.value === operationName),
  );
  const firstField = operation?.selectionSet.selections.find((selection) => selection.kind === Kind.FIELD);
  const name = operation?.name?.value ?? (firstField?.kind === Kind.FIELD ? firstField.name.value : 'anonymous');
  return {
    name: name.slice(0, MAX_LABEL_LENGTH),
    type: operation?.operation ?? 'query',
    named: Boolean(operation?.name),
  };
}
