// Tenancy, enforced where rows are read and written: every query through a
// tenant client is confined to one organization, whatever the resolver asked
// for. Reads and bulk writes get `organizationId` added to their filter;
// creates get it set on every row. Another organization's row therefore reads
// as missing and cannot be changed. Resolvers never pass organizationId
// themselves, so a forgotten check cannot leak data.
import { BoundedMap } from '../bounded-map.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';

// Shared by all organizations: the integration catalog.
const UNSCOPED_MODELS = new Set(['Integration']);

const FILTERED = new Set([
  'findUnique',
  'findUniqueOrThrow',
  'findFirst',
  'findFirstOrThrow',
  'findMany',
  'count',
  'aggregate',
  'groupBy',
  'update',
  'updateMany',
  'updateManyAndReturn',
  'delete',
  'deleteMany',
  'upsert',
]);

// An operation's arguments, as far as scoping reads them: the model's own types vary per model.
type Args = Record<string, unknown>;

function withOrganization(model: string, organizationId: string) {
  // The organization itself is scoped by its own id.
  return model === 'Organization' ? { id: organizationId } : { organizationId };
}

/**
 * The caller's filter AND the organization's: added as a conjunct, never
 * merged, so a filter naming another organization (or, for Organization,
 * another id) matches nothing instead of being overwritten into a match.
 */
function conjoin(where: Args | undefined, scope: Args): Args {
  if (!where) return scope;
  const and = where.AND === undefined ? [] : Array.isArray(where.AND) ? where.AND : [where.AND];
  return { ...where, AND: [...and, scope] };
}

function extendedFor(prisma: PrismaClient, organizationId: string) {
  return prisma.$extends({
    name: 'tenant',
    query: {
      $allModels: {
        $allOperations({ model, operation, args, query }) {
          if (UNSCOPED_MODELS.has(model)) return query(args);
          const scope = withOrganization(model, organizationId);
          const scoped: Args = { ...(args as Args) };
          if (FILTERED.has(operation)) scoped.where = conjoin(scoped.where as Args | undefined, scope);
          if (operation === 'create') scoped.data = { ...(scoped.data as Args), ...scope };
          if (operation === 'upsert') scoped.create = { ...(scoped.create as Args), ...scope };
          if (operation === 'createMany' || operation === 'createManyAndReturn') {
            const rows = (Array.isArray(scoped.data) ? scoped.data : [scoped.data]) as Args[];
            scoped.data = rows.map((row) => ({ ...row, ...scope }));
          }
          return query(scoped as typeof args);
        },
      },
    },
  });
}

export type TenantClient = ReturnType<typeof extendedFor>;

/** How many organizations' clients each Prisma client keeps; the oldest is let go beyond that. */
const KEPT_PER_CLIENT = 1_000;
const kept = new WeakMap<PrismaClient, BoundedMap<string, TenantClient>>();

/**
 * The client confined to `organizationId`. Extending a Prisma client costs a
 * good part of a trivial request's CPU, and the extension holds nothing but the
 * organization, so each organization's is made once and shared by its requests.
 */
export function tenantClient(prisma: PrismaClient, organizationId: string): TenantClient {
  let byOrganization = kept.get(prisma);
  if (!byOrganization) {
    byOrganization = new BoundedMap(KEPT_PER_CLIENT);
    kept.set(prisma, byOrganization);
  }
  let client = byOrganization.get(organizationId);
  if (!client) {
    client = extendedFor(prisma, organizationId);
    byOrganization.set(organizationId, client);
  }
  return client;
}

/**
 * The unique key of an organization's row by its id: a tenant table's primary
 * key is (id, organizationId), organizationId being the distribution column
 * a sharded database places rows by (docs/scaling.md#ready-for-citus).
 */
export const rowKey = <Id extends string | number>(organizationId: string, id: Id) => ({
  id_organizationId: { id, organizationId },
});
