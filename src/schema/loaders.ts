// Per-request dataloaders: every nested lookup (run -> prospect, batch ->
// runs, agent -> tools, …) is batched into one statement per kind and level,
// so a query's statement count does not grow with the number of rows.
import DataLoader from 'dataloader';
import type { SqlPart } from '../db/sql-part.ts';
import type { TenantClient } from '../db/tenant.ts';
import { Prisma } from '../generated/prisma/client.ts';
import type { AgentTool, PhoneNumber, Prospect, Tag } from '../generated/prisma/client.ts';

/** Loads rows by id through the tenant client; ids of other organizations load as null. */
function byId<Row extends { id: string }>(findMany: (ids: string[]) => Promise<Row[]>) {
  return new DataLoader<string, Row | null>(async (ids) => {
    const rows = new Map((await findMany([...ids])).map((row) => [row.id, row]));
    return ids.map((id) => rows.get(id) ?? null);
  });
}

function groupBy<Row, Key extends keyof Row>(rows: Row[], key: Key, keys: readonly Row[Key][]): Row[][] {
  const groups = new Map<Row[Key], Row[]>(keys.map((value) => [value, []]));
  for (const row of rows) groups.get(row[key])?.push(row);
  return keys.map((value) => groups.get(value) ?? []);
}

/** Child tables that are listed page by page under a parent, and the parent's column. */
export const childLists = {
  runsOfWorkflow: { table: 'Run', parent: 'workflowId' },
  runsOfBatch: { table: 'Run', parent: 'batchId' },
  runsOfProspect: { table: 'Run', parent: 'prospectId' },
  batchesOfWorkflow: { table: 'Batch', parent: 'workflowId' },
  versionsOfWorkflow: { table: 'WorkflowVersion', parent: 'workflowId' },
  evaluationsOfAgent: { table: 'Evaluation', parent: 'agentId' },
} as const;

export type ChildList = keyof typeof childLists;

export interface PageRequest {
  list: ChildList;
  parentId: string;
  /** Extra conditions on the child rows (AND-ed), or Prisma.empty. */
  where: SqlPart;
  orderBy: SqlPart;
  offset: number;
  limit: number;
}

export interface CountRequest {
  list: ChildList;
  parentId: string;
  where: SqlPart;
}

const table = (list: ChildList) => Prisma.raw(`"${childLists[list].table}"`);
const parentColumn = (list: ChildList) => Prisma.raw(`"${childLists[list].parent}"`);

function groupRequests<R extends { list: ChildList; parentId: string; where: SqlPart }>(requests: readonly R[], extraKey: (r: R) => string) {
  const groups = new Map<string, { sample: R; parentIds: Set<string> }>();
  for (const request of requests) {
    const key = `${request.list}|${request.where.key}|${extraKey(request)}`;
    const group = groups.get(key) ?? { sample: request, parentIds: new Set() };
    group.parentIds.add(request.parentId);
    groups.set(key, group);
  }
  return groups;
}

export function createLoaders(prisma: TenantClient, organizationId: string) {
  const rows = {
    agent: byId((ids) => prisma.agent.findMany({ where: { id: { in: ids } } })),
    workflow: byId((ids) => prisma.workflow.findMany({ where: { id: { in: ids } } })),
    workflowVersion: byId((ids) => prisma.workflowVersion.findMany({ where: { id: { in: ids } } })),
    batch: byId((ids) => prisma.batch.findMany({ where: { id: { in: ids } } })),
    run: byId((ids) => prisma.run.findMany({ where: { id: { in: ids } } })),
    // A page of runs asks for up to 5,000 prospects at once: given as one array joined on
    // the primary key, not `IN (…5,000 parameters)`, for which PostgreSQL scans the table.
    prospect: byId((ids) =>
      prisma.$queryRaw<Prospect[]>(Prisma.sql`
        SELECT p.* FROM unnest(${ids}::text[]) AS given(id) JOIN "Prospect" AS p ON p.id = given.id
        WHERE p."organizationId" = ${organizationId}`),
    ),
    sipTrunk: byId((ids) => prisma.sipTrunk.findMany({ where: { id: { in: ids } } })),
    integration: byId((ids) => prisma.integration.findMany({ where: { id: { in: ids } } })),
  };
  // Rows a page brought in are primed into their by-id loader, so a later
  // lookup of the same row (run -> batch name) costs no statement.
  const primeByTable: Partial<Record<string, DataLoader<string, any>>> = {
    Run: rows.run,
    Batch: rows.batch,
    WorkflowVersion: rows.workflowVersion,
  };

  // One LATERAL subquery per parent: each uses the (parent, order) index and
  // stops at its LIMIT, all in a single statement for every parent at once.
  const pages = new DataLoader<PageRequest, Record<string, unknown>[], string>(
    async (requests) => {
      const groups = groupRequests(requests, (r) => `${r.orderBy.key}|${r.offset}|${r.limit}`);
      const results = new Map<string, Record<string, unknown>[]>();
      await Promise.all(
        [...groups.entries()].map(async ([groupKey, { sample, parentIds }]) => {
          const rows = await prisma.$queryRaw<Record<string, unknown>[]>(Prisma.sql`
            SELECT child.* FROM unnest(${[...parentIds]}::text[]) AS parent(id)
            CROSS JOIN LATERAL (
              SELECT * FROM ${table(sample.list)} AS c
              WHERE c.${parentColumn(sample.list)} = parent.id AND c."organizationId" = ${organizationId}
                ${sample.where.sql}
              ORDER BY ${sample.orderBy.sql}
              LIMIT ${sample.limit} OFFSET ${sample.offset}
            ) AS child`);
          const column = childLists[sample.list].parent;
          const byId = primeByTable[childLists[sample.list].table];
          for (const parentId of parentIds) results.set(`${groupKey}|${parentId}`, []);
          for (const row of rows) {
            results.get(`${groupKey}|${row[column]}`)!.push(row);
            byId?.prime(row.id as string, row);
          }
        }),
      );
      return requests.map(
        (r) => results.get(`${r.list}|${r.where.key}|${r.orderBy.key}|${r.offset}|${r.limit}|${r.parentId}`) ?? [],
      );
    },
    { cacheKeyFn: (r) => `${r.list}|${r.where.key}|${r.orderBy.key}|${r.offset}|${r.limit}|${r.parentId}` },
  );

  const counts = new DataLoader<CountRequest, number, string>(
    async (requests) => {
      const groups = groupRequests(requests, () => '');
      const results = new Map<string, number>();
      await Promise.all(
        [...groups.entries()].map(async ([groupKey, { sample, parentIds }]) => {
          const rows = await prisma.$queryRaw<{ parent: string; count: bigint | number }[]>(Prisma.sql`
            SELECT c.${parentColumn(sample.list)} AS parent, count(*) AS count FROM ${table(sample.list)} AS c
            WHERE c.${parentColumn(sample.list)} = ANY(${[...parentIds]}::text[]) AND c."organizationId" = ${organizationId}
              ${sample.where.sql}
            GROUP BY 1`);
          for (const parentId of parentIds) results.set(`${groupKey}|${parentId}`, 0);
          for (const row of rows) results.set(`${groupKey}|${row.parent}`, Number(row.count));
        }),
      );
      return requests.map((r) => results.get(`${r.list}|${r.where.key}||${r.parentId}`) ?? 0);
    },
    { cacheKeyFn: (r) => `${r.list}|${r.where.key}||${r.parentId}` },
  );

  return {
    ...rows,
    /** A workflow's version by number, keyed `workflowId:version`. */
    workflowVersionByNumber: new DataLoader<string, Awaited<ReturnType<typeof prisma.workflowVersion.findFirst>>>(
      async (keys) => {
        const pairs = keys.map((key) => {
          const [workflowId, version] = key.split(':');
          return { workflowId: workflowId!, version: Number(version) };
        });
        const rows = await prisma.workflowVersion.findMany({ where: { OR: pairs } });
        const found = new Map(rows.map((row) => [`${row.workflowId}:${row.version}`, row]));
        return keys.map((key) => found.get(key) ?? null);
      },
    ),
    toolsOfAgent: new DataLoader<string, AgentTool[]>(async (agentIds) =>
      groupBy(
        await prisma.agentTool.findMany({ where: { agentId: { in: [...agentIds] } }, orderBy: { position: 'asc' } }),
        'agentId',
        agentIds,
      ),
    ),
    phoneNumbersOfTrunk: new DataLoader<string, PhoneNumber[]>(async (trunkIds) =>
      groupBy(
        await prisma.phoneNumber.findMany({ where: { sipTrunkId: { in: [...trunkIds] } }, orderBy: { createdAt: 'asc' } }),
        'sipTrunkId',
        trunkIds,
      ),
    ),
    tagsOfProspect: new DataLoader<string, Tag[]>(async (prospectIds) => {
      const tagged = await prisma.$queryRaw<(Tag & { prospectId: string })[]>(Prisma.sql`
        SELECT link."prospectId", tag.* FROM "ProspectTag" AS link JOIN "Tag" AS tag ON tag.id = link."tagId"
        WHERE link."prospectId" = ANY(${[...prospectIds]}::text[]) AND tag."organizationId" = ${organizationId}
        ORDER BY link."createdAt", tag.name`);
      return groupBy(tagged, 'prospectId', prospectIds).map((group) =>
        group.map(({ prospectId: _prospectId, ...tag }) => tag),
      );
    }),
    pages,
    counts,
  };
}

export type Loaders = ReturnType<typeof createLoaders>;
