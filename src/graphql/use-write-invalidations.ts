// After every mutation (over HTTP, graphql-ws or the REST layer, which runs
// the same mutations), its organization's live queries read again
// (src/events/live-invalidations.ts), and the cached answers that read what
// it changed are dropped (src/events/response-cache-store.ts):
// - the objects it returned, by type and id (an agent update drops the answers
//   that read that agent, not a dashboard of batches that did not);
// - the lists (connections) of the types it may add an item to, remove one
//   from, or move one within (WRITTEN_LISTS): a create of a workflow drops
//   every answer that read a list of workflows, empty or not;
// - a mutation not in WRITTEN_LISTS (its writes reach further than it returns:
//   a call's outcome moves runs, prospects and batches), or whose result is
//   not known object by object, drops all of its organization's answers.
// Only the caller's organization: ids are unique across organizations and
// type tags carry theirs, so nothing of another is touched.
import {
  type GraphQLSchema,
  getNamedType,
  getOperationAST,
  isObjectType,
  Kind,
  type OperationDefinitionNode,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { type LiveInvalidations, organizationIdentifier } from '../events/live-invalidations.ts';
import { entityTag, type ResponseCacheStore, typeTag } from '../events/response-cache-store.ts';
import type { GraphQLContext } from '../schema/context.ts';
import { returnedEntities } from './returned-entities.ts';

/**
 * The mutations whose writes are the objects they return, and the types
 * whose lists they may change. Each was read for its side effects: none
 * writes an object of another type that it does not return.
 */
const WRITTEN_LISTS: Record<string, string[]> = {
  createAgent: ['Agent'],
  updateAgent: ['Agent'],
  setAgentTools: ['Agent'],
  createWorkflow: ['Workflow'],
  // Its definition may make a new version: the workflow's list of versions too.
  updateWorkflow: ['Workflow', 'WorkflowVersion'],
  // A batch is created with a run per prospect: lists of runs (the batch's, a prospect's) gain them.
  createBatch: ['Batch', 'Run'],
  updateBatchSettings: ['Batch'],
  createProspects: ['Prospect'],
  importProspects: ['Prospect', 'ProspectImport'],
  createProspectList: ['ProspectList'],
  createTag: ['Tag'],
  createWebhookEndpoint: ['WebhookEndpoint'],
  updateWebhookEndpoint: ['WebhookEndpoint'],
};

/** Each object type's lists: the connection types whose edges' node (or nodes) is of it. */
const listsBySchema = new WeakMap<GraphQLSchema, Map<string, string[]>>();
function listsOf(schema: GraphQLSchema, typename: string): string[] {
  let lists = listsBySchema.get(schema);
  if (!lists) {
    lists = new Map();
    for (const type of Object.values(schema.getTypeMap())) {
      if (!isObjectType(type) || !type.name.endsWith('Connection')) continue;
      const edges = type.getFields().edges;
      const edge = edges && getNamedType(edges.type);
      const node = isObjectType(edge) ? edge.getFields().node : type.getFields().nodes;
      if (!node) continue;
      const name = getNamedType(node.type).name;
      lists.set(name, [...(lists.get(name) ?? []), type.name]);
    }
    listsBySchema.set(schema, lists);
  }
  return lists.get(typename) ?? [];
}

/** The tags of the answers the mutation's result makes stale; null: every answer of the organization. */
function staleTags(
  schema: GraphQLSchema,
  args: { document: Parameters<typeof returnedEntities>[1] },
  operation: OperationDefinitionNode,
  organizationId: string,
  data: Record<string, unknown> | null | undefined,
): string[] | null {
  const written: string[] = [];
  for (const selection of operation.selectionSet.selections) {
    const lists = selection.kind === Kind.FIELD ? WRITTEN_LISTS[selection.name.value] : undefined;
    if (!lists) return null;
    written.push(...lists);
  }
  const entities = data ? returnedEntities(schema, args.document, operation, data) : [];
  if (!entities) return null;
  return [
    ...written.flatMap((typename) => listsOf(schema, typename).map((list) => typeTag(organizationId, list))),
    ...entities.map(({ typename, id }) => (id === null ? typeTag(organizationId, typename) : entityTag(typename, id))),
  ];
}

export const useWriteInvalidations = (
  live: LiveInvalidations,
  responses: ResponseCacheStore,
): Plugin<GraphQLContext> => ({
  onExecute({ args }) {
    const operation = getOperationAST(args.document, args.operationName);
    if (operation?.operation !== 'mutation') return;
    const { organizationId } = args.contextValue.viewer;
    return {
      onExecuteDone: ({ result }) => {
        live.invalidate([organizationIdentifier(organizationId)], organizationId);
        const data = 'data' in result ? (result.data as Record<string, unknown> | null) : null;
        const tags = staleTags(args.schema, args, operation, organizationId, data);
        // Awaited before the answer is written: the writer's next read does not find what it made stale.
        return tags === null
          ? responses.organizationChanged(organizationId)
          : responses.dropTagged(organizationId, tags);
      },
    };
  },
});
