// With read replicas (DATABASE_REPLICA_URLS): a query, and a subscription's
// reads, run on a replica that has replayed the caller's last write and the
// X-Consistency token it sent; a mutation stays on the primary and marks the
// request as a write, whose answer then carries the primary's WAL position
// (src/requests/consistency.ts). Live queries stay on the primary: each
// re-execution follows a write just committed there, which a replica may not
// have replayed yet, and no later event would correct the stale answer.
import { getOperationAST } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { ReadReplicas } from '../db/read-replicas.ts';
import { type GraphQLContext, readingFrom } from '../schema/context.ts';
import { isLiveQuery } from './use-live-queries.ts';

export function useReadReplicas(replicas: ReadReplicas): Plugin<GraphQLContext> {
  /** The context's client and loaders over a replica, or nothing to change when the primary must answer. */
  const readsOf = async (context: GraphQLContext) => {
    const reads = await replicas.reader(context.viewer.apiKeyId, context.consistency?.token);
    return reads && readingFrom(reads, context.viewer.organizationId);
  };
  return {
    async onExecute({ args, extendContext }) {
      const context = args.contextValue;
      const operation = getOperationAST(args.document, args.operationName)?.operation;
      if (operation === 'mutation') {
        // Over HTTP the host answers the token (and remembers it) once the mutation is done; over
        // graphql-ws there is no header to carry it, and the key's next read is what must see it.
        if (context.consistency) context.consistency.writer = context.viewer.apiKeyId;
        else return { onExecuteDone: () => void replicas.wrote(context.viewer.apiKeyId).catch(() => {}) };
        return;
      }
      if (operation !== 'query' || isLiveQuery(args.document, args.operationName)) return;
      const reads = await readsOf(context);
      if (reads) extendContext(reads);
    },
    async onSubscribe({ args, extendContext }) {
      const reads = await readsOf(args.contextValue);
      if (reads) extendContext(reads);
    },
  };
}
