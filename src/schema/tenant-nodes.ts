// A node type's id and its row's key when its table's primary key is
// (id, organizationId) (docs/scaling.md#ready-for-citus): the global id is the
// row's id as before, and the row is read again within the caller's
// organization.
import { rowKey } from '../db/tenant.ts';
import type { GraphQLContext } from './context.ts';

export const tenantNodeId = {
  id: { resolve: (row: { id: string }) => row.id },
  findUnique: (id: string, context: GraphQLContext) => rowKey(context.viewer.organizationId, id),
};
