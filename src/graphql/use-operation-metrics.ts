// Latency by operation (src/observability/metrics.ts), and the operation's
// name for the request's log line (src/observability/request-log.ts).
import type { DocumentNode } from 'graphql';
import type { Maybe, Plugin } from 'graphql-yoga';
import type { Metrics } from '../observability/metrics.ts';
import { operationLabel } from '../observability/operation-label.ts';
import type { RequestAudit } from '../observability/request-log.ts';

export const useOperationMetrics = (metrics: Metrics): Plugin => ({
  onExecute({ args }: { args: { document: DocumentNode; operationName?: Maybe<string>; contextValue: unknown } }) {
    const operation = operationLabel(args.document, args.operationName);
    const { audit } = args.contextValue as { audit?: RequestAudit };
    if (audit) audit.operation = operation.name;
    const started = performance.now();
    return {
      onExecuteDone: () =>
        metrics.operationDuration.observe(
          { operation: operation.name, type: operation.type },
          (performance.now() - started) / 1000,
        ),
    };
  },
});
