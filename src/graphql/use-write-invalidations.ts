// After every mutation (over HTTP, graphql-ws or the REST layer, which runs
// the same mutations), its organization's live queries read again and its
// cached answers are dropped: a list may have gained or lost an item, whatever
// the write. Only the caller's organization: ids are unique across
// organizations, so nothing of another is touched (src/events/live-invalidations.ts,
// src/events/response-cache-store.ts).
import { getOperationAST } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { type LiveInvalidations, organizationIdentifier } from '../events/live-invalidations.ts';
import type { ResponseCacheStore } from '../events/response-cache-store.ts';
import type { GraphQLContext } from '../schema/context.ts';

export const useWriteInvalidations = (
  live: LiveInvalidations,
  responses: ResponseCacheStore,
): Plugin<GraphQLContext> => ({
  onExecute({ args }) {
    if (getOperationAST(args.document, args.operationName)?.operation !== 'mutation') return;
    const { organizationId } = args.contextValue.viewer;
    return {
      onExecuteDone: () => {
        live.invalidate([organizationIdentifier(organizationId)], organizationId);
        responses.organizationChanged(organizationId);
      },
    };
  },
});
