// Latency by operation (src/observability/metrics.ts), the documents read
// (what a response cache hit skips), and the operation's name for the
// request's log line (src/observability/request-log.ts).
//
// A label value is kept for good, and every caller of /graphql chooses its
// operations' names: so only the persisted operations (the gateway's own and
// the allow-list file's) are measured under their names, a bounded set known
// at start; any other operation is measured as OTHER_OPERATIONS. A tenant's
// names never reach the metrics, and cannot grow them.
import { type DocumentNode, Kind, parse } from 'graphql';
import type { Maybe, Plugin } from 'graphql-yoga';
import type { Metrics } from '../observability/metrics.ts';
import { operationLabel } from '../observability/operation-label.ts';
import type { RequestAudit } from '../observability/request-log.ts';
import type { PersistedOperations } from './protections.ts';

/** The one label of every operation that is not persisted. */
const OTHER_OPERATIONS = 'other';

/** What the operations of each persisted document are labelled (a document that does not parse never runs). */
function persistedLabels(operations: PersistedOperations): Set<string> {
  const labels = new Set<string>();
  for (const text of operations.texts()) {
    let document: DocumentNode;
    try {
      document = parse(text);
    } catch {
      continue;
    }
    for (const definition of document.definitions) {
      if (definition.kind === Kind.OPERATION_DEFINITION)
        labels.add(operationLabel(document, definition.name?.value).name);
    }
  }
  return labels;
}

export const useOperationMetrics = (metrics: Metrics, operations: PersistedOperations): Plugin => {
  const persisted = persistedLabels(operations);
  return {
    onParse() {
      metrics.documentsRead.inc();
    },
    onExecute({ args }: { args: { document: DocumentNode; operationName?: Maybe<string>; contextValue: unknown } }) {
      const operation = operationLabel(args.document, args.operationName);
      const { audit } = args.contextValue as { audit?: RequestAudit };
      if (audit) audit.operation = operation.name;
      const label = persisted.has(operation.name) ? operation.name : OTHER_OPERATIONS;
      const started = performance.now();
      return {
        onExecuteDone: () =>
          metrics.operationDuration.observe(
            { operation: label, type: operation.type },
            (performance.now() - started) / 1000,
          ),
      };
    },
  };
};
