// Per-request dataloaders: every nested lookup (run -> prospect, batch ->
// runs, agent -> tools, …) is batched into one statement per kind and level,
// so a query's statement count does not grow with the number of rows.
//
// The hot lookups (rows by id, pages, counts) are hand-written SQL (src/db/sql/) sent to the
// database driver directly, not through Prisma's query pipeline: each names the
// organization itself. A page comes back as one JSON array per parent, built
// by PostgreSQL, so Node.js parses one string per parent instead of a row of
// typed columns per child. Timestamps in it stay PostgreSQL's ISO 8601 text
// until the DateTime scalar serializes the few a query asks for.
import DataLoader from 'dataloader';
import type { SqlQueryable } from '../db/database.ts';
import { counterColumn, type RunCounters } from '../db/parts/counter-columns.ts';
import type { SqlPart } from '../db/parts/sql-part.ts';
import { attemptOutcomesOfBatches } from '../db/sql/attempt-outcomes-of-batches.ts';
import { attemptsTimeline } from '../db/sql/attempts-timeline.ts';
import { childCounts } from '../db/sql/child-counts.ts';
import { childPages } from '../db/sql/child-pages.ts';
import { type EvaluationResults, evaluationResults } from '../db/sql/evaluation-results.ts';
import { type RecordGroup, recordBreakdownOfBatches } from '../db/sql/record-breakdown-of-batches.ts';
import { rowsById } from '../db/sql/rows-by-id.ts';
import { runCountersOfWorkflows } from '../db/sql/run-counters-of-workflows.ts';
import { tagsOfProspects } from '../db/sql/tags-of-prospects.ts';
import type { TenantClient } from '../db/tenant.ts';
import { numbersOfPairs } from '../domain/telephony.ts';
import type * as Rows from '../generated/prisma/client.ts';
import type { callOutcomes } from '../records/campaign-settings.ts';

function groupBy<Row, Key extends keyof Row>(rows: Row[], key: Key, keys: readonly Row[Key][]): Row[][] {
  const groups = new Map<Row[Key], Row[]>(keys.map((value) => [value, []]));
  for (const row of rows) groups.get(row[key])?.push(row);
  return keys.map((value) => groups.get(value) ?? []);
}

/** Child tables that are listed page by page under a parent, and the parent's column. */
const childLists = {
  runsOfWorkflow: { table: 'Run', parent: 'workflowId' },
  runsOfBatch: { table: 'Run', parent: 'batchId' },
  runsOfProspect: { table: 'Run', parent: 'prospectId' },
  batchesOfWorkflow: { table: 'Batch', parent: 'workflowId' },
  versionsOfWorkflow: { table: 'WorkflowVersion', parent: 'workflowId' },
  evaluationsOfAgent: { table: 'Evaluation', parent: 'agentId' },
} as const;

export type ChildList = keyof typeof childLists;

/** Rows a page can carry inside each of its rows (a run's prospect), read in the same statement. */
const embeddable = {
  prospect: { table: 'Prospect', column: 'prospectId' },
} as const;

type Embed = keyof typeof embeddable;

interface PageRequest {
  list: ChildList;
  parentId: string;
  /** Extra conditions on the child rows (AND-ed), or Prisma.empty. */
  where: SqlPart;
  orderBy: SqlPart;
  offset: number;
  limit: number;
  /** The columns to read (with those the order uses), or every column when absent or null. */
  columns?: readonly string[] | null;
  /** Related rows to embed in each row under their name, with the columns to read (null: all). */
  embeds?: Partial<Record<Embed, readonly string[] | null>>;
}

interface CountRequest {
  list: ChildList;
  parentId: string;
  where: SqlPart;
}

const counterColumns = Object.values(counterColumn);

/** Equal intervals of time, the last one ending at `to`. */
export interface TimelineWindow {
  to: Date;
  intervalMs: number;
  intervals: number;
}

/** Attempts started in one interval of a timeline: how many, and how many ended in each outcome. */
export type IntervalCounts = { interval: number; attempts: number } & Record<(typeof callOutcomes)[number], number>;

const windowKey = (w: TimelineWindow) => `${w.to.getTime()}|${w.intervalMs}|${w.intervals}`;

const pageKey = (r: PageRequest) =>
  `${r.list}|${r.where.key}|${r.orderBy.key}|${r.offset}|${r.limit}|${r.columns?.join() ?? '*'}|${JSON.stringify(r.embeds ?? {})}`;
const countKey = (r: CountRequest) => `${r.list}|${r.where.key}`;

function groupRequests<R extends { parentId: string }>(requests: readonly R[], key: (r: R) => string) {
  const groups = new Map<string, { sample: R; parentIds: Set<string> }>();
  for (const request of requests) {
    const group = groups.get(key(request)) ?? { sample: request, parentIds: new Set() };
    group.parentIds.add(request.parentId);
    groups.set(key(request), group);
  }
  return groups;
}

/** What a request's loaders are made with: its organization's clients, and the loaders rows are primed into. */
interface Made {
  prisma: TenantClient;
  sql: SqlQueryable;
  organizationId: string;
  /** The by-id loader of a table whose rows a page brings in whole, if it has one. */
  primed(table: string): DataLoader<string, unknown> | undefined;
}

/** Rows of an organization's table by id; other organizations' ids load as null. */
const byId =
  <Row extends { id: string }>(table: string) =>
  ({ sql, organizationId }: Made) =>
    new DataLoader<string, Row | null>(async (ids) => {
      const rows = await rowsById<Row>(sql, table, organizationId, ids);
      const found = new Map(rows.map((row) => [row.id, row]));
      return ids.map((id) => found.get(id) ?? null);
    });

// Each loader is made the first time a resolver of the request reads it: most
// queries use a few of them, and a trivial one none.
const factories = {
  agent: byId<Rows.Agent>('Agent'),
  workflow: byId<Rows.Workflow>('Workflow'),
  workflowVersion: byId<Rows.WorkflowVersion>('WorkflowVersion'),
  batch: byId<Rows.Batch>('Batch'),
  run: byId<Rows.Run>('Run'),
  prospect: byId<Rows.Prospect>('Prospect'),
  sipTrunk: byId<Rows.SipTrunk>('SipTrunk'),
  phoneNumber: byId<Rows.PhoneNumber>('PhoneNumber'),
  consent: byId<Rows.Consent>('Consent'),
  // The integration catalog is shared by every organization.
  integration: ({ prisma }: Made) =>
    new DataLoader<string, Rows.Integration | null>(async (ids) => {
      const found = new Map(
        (await prisma.integration.findMany({ where: { id: { in: [...ids] } } })).map((row) => [row.id, row]),
      );
      return ids.map((id) => found.get(id) ?? null);
    }),

  // One statement for every parent at once (src/db/sql/child-pages.ts).
  pages: ({ sql, organizationId, primed }: Made) =>
    new DataLoader<PageRequest, Record<string, unknown>[], string>(
      async (requests) => {
        const results = new Map<string, Record<string, unknown>[]>();
        await Promise.all(
          [...groupRequests(requests, pageKey).entries()].map(async ([groupKey, { sample, parentIds }]) => {
            const list = childLists[sample.list];
            const embeds = Object.entries(sample.embeds ?? {}) as [Embed, readonly string[] | null][];
            const { where, orderBy, offset, limit, columns } = sample;
            const page = { ...list, where, orderBy, offset, limit, columns };
            const embedded = embeds.map(([name, embeddedColumns]) => ({
              name,
              ...embeddable[name],
              columns: embeddedColumns,
            }));
            const pagesByParent = await childPages(sql, { ...page, embeds: embedded }, organizationId, [...parentIds]);
            // Only whole rows are primed: a later lookup by id must see every column.
            const prime = sample.columns ? undefined : primed(list.table);
            const primeEmbedded = embeds.flatMap(([name, columns]) => {
              const loader = columns ? undefined : primed(embeddable[name].table);
              return loader ? [{ name, loader }] : [];
            });
            for (const { parent, rows: page } of pagesByParent) {
              results.set(`${groupKey}|${parent}`, page ?? []);
              for (const row of page ?? []) {
                prime?.prime(row.id as string, row);
                for (const { name, loader } of primeEmbedded) {
                  const embeddedRow = row[name] as { id: string } | null;
                  if (embeddedRow) loader.prime(embeddedRow.id, embeddedRow);
                }
              }
            }
          }),
        );
        return requests.map((r) => results.get(`${pageKey(r)}|${r.parentId}`) ?? []);
      },
      { cacheKeyFn: (r) => `${pageKey(r)}|${r.parentId}` },
    ),

  counts: ({ sql, organizationId }: Made) =>
    new DataLoader<CountRequest, number, string>(
      async (requests) => {
        const results = new Map<string, number>();
        await Promise.all(
          [...groupRequests(requests, countKey).entries()].map(async ([groupKey, { sample, parentIds }]) => {
            const list = childLists[sample.list];
            const counted = await childCounts(sql, { ...list, where: sample.where }, organizationId, [...parentIds]);
            for (const row of counted) results.set(`${groupKey}|${row.parent}`, Number(row.count));
          }),
        );
        return requests.map((r) => results.get(`${countKey(r)}|${r.parentId}`) ?? 0);
      },
      { cacheKeyFn: (r) => `${countKey(r)}|${r.parentId}` },
    ),

  /** The run counters of each workflow's batches, summed: every run belongs to a batch of its workflow. */
  runCountersOfWorkflow: ({ sql, organizationId }: Made) =>
    new DataLoader<string, RunCounters>(async (workflowIds) => {
      const sums = await runCountersOfWorkflows(sql, counterColumns, organizationId, workflowIds);
      const counters = (of: (column: keyof RunCounters) => unknown) =>
        Object.fromEntries(counterColumns.map((column) => [column, Number(of(column))])) as RunCounters;
      const found = new Map(sums.map((sum) => [sum.workflowId, counters((column) => sum[column])]));
      return workflowIds.map((id) => found.get(id) ?? counters(() => 0));
    }),
  /** A workflow's version by number, keyed `workflowId:version`. */
  workflowVersionByNumber: ({ prisma }: Made) =>
    new DataLoader<string, Rows.WorkflowVersion | null>(async (keys) => {
      const pairs = keys.map((key) => {
        const [workflowId, version] = key.split(':');
        return { workflowId: workflowId!, version: Number(version) };
      });
      const rows = await prisma.workflowVersion.findMany({ where: { OR: pairs } });
      const found = new Map(rows.map((row) => [`${row.workflowId}:${row.version}`, row]));
      return keys.map((key) => found.get(key) ?? null);
    }),
  toolsOfAgent: ({ prisma }: Made) =>
    new DataLoader<string, Rows.AgentTool[]>(async (agentIds) =>
      groupBy(
        await prisma.agentTool.findMany({ where: { agentId: { in: [...agentIds] } }, orderBy: { position: 'asc' } }),
        'agentId',
        agentIds,
      ),
    ),
  /** The numbers of each trunk pair, keyed by `pairKeyOf`: both trunks of a pair list the pair's numbers. */
  numbersOfPair: ({ prisma, organizationId }: Made) =>
    new DataLoader<string, Rows.PhoneNumber[]>((pairKeys) => numbersOfPairs(prisma, organizationId, pairKeys)),
  /** The caller's connection to each catalog integration, or null; cleared when a connect or disconnect changes it. */
  connectionOfIntegration: ({ prisma }: Made) =>
    new DataLoader<string, Rows.OrganizationIntegration | null>(async (integrationIds) => {
      const rows = await prisma.organizationIntegration.findMany({
        where: { integrationId: { in: [...integrationIds] } },
      });
      const byIntegration = new Map(rows.map((row) => [row.integrationId, row]));
      return integrationIds.map((id) => byIntegration.get(id) ?? null);
    }),
  /** The type of each webhook event by id. */
  webhookEventType: ({ prisma }: Made) =>
    new DataLoader<string, string>(async (eventIds) => {
      const events = await prisma.webhookEvent.findMany({
        where: { id: { in: [...eventIds] } },
        select: { id: true, type: true },
      });
      const types = new Map(events.map((event) => [event.id, event.type]));
      return eventIds.map((id) => types.get(id) ?? '');
    }),
  /** Each run's call attempts, oldest first ("RunAttempt_runId_number_organizationId_key"). */
  attemptsOfRun: ({ prisma }: Made) =>
    new DataLoader<string, Rows.RunAttempt[]>(async (runIds) =>
      groupBy(
        await prisma.runAttempt.findMany({
          where: { runId: { in: [...runIds] } },
          orderBy: [{ runId: 'asc' }, { number: 'asc' }],
        }),
        'runId',
        runIds,
      ),
    ),
  /** Each attempt's call record, or null ("CallRecord_attemptId_runId_organizationId_key"). */
  recordOfAttempt: ({ prisma }: Made) =>
    new DataLoader<string, Rows.CallRecord | null>(async (attemptIds) => {
      const rows = await prisma.callRecord.findMany({ where: { attemptId: { in: [...attemptIds] } } });
      const byAttempt = new Map(rows.map((row) => [row.attemptId, row]));
      return attemptIds.map((id) => byAttempt.get(id) ?? null);
    }),
  /** How records made in a period scored each evaluation asked: one statement per period asked about. */
  resultsOfEvaluation: ({ prisma, organizationId }: Made) =>
    new DataLoader<{ evaluationId: number; from: Date; to: Date }, EvaluationResults, string>(
      async (requests) => {
        const periods = new Map<string, { from: Date; to: Date; ids: Set<number> }>();
        for (const { evaluationId, from, to } of requests) {
          const key = `${from.getTime()}|${to.getTime()}`;
          const period = periods.get(key) ?? { from, to, ids: new Set<number>() };
          period.ids.add(evaluationId);
          periods.set(key, period);
        }
        const results = new Map<string, EvaluationResults>();
        for (const [key, period] of periods)
          for (const result of await evaluationResults(prisma, organizationId, [...period.ids], period.from, period.to))
            results.set(`${result.evaluationId}|${key}`, result);
        return requests.map((r) => results.get(`${r.evaluationId}|${r.from.getTime()}|${r.to.getTime()}`)!);
      },
      { cacheKeyFn: (r) => `${r.evaluationId}|${r.from.getTime()}|${r.to.getTime()}` },
    ),
  /** Each run's latest call record, or null ("CallRecord_runId_idx"). */
  lastRecordOfRun: ({ prisma }: Made) =>
    new DataLoader<string, Rows.CallRecord | null>(async (runIds) => {
      const rows = await prisma.callRecord.findMany({
        where: { runId: { in: [...runIds] } },
        orderBy: [{ runId: 'asc' }, { attemptNumber: 'desc' }],
        distinct: ['runId'],
      });
      const byRun = new Map(rows.map((row) => [row.runId, row]));
      return runIds.map((id) => byRun.get(id) ?? null);
    }),
  /** Each batch's attempts counted by outcome (null: in flight), in one statement for every batch asked. */
  outcomesOfBatch: ({ sql, organizationId }: Made) =>
    new DataLoader<string, { outcome: string | null; count: number }[]>(async (batchIds) =>
      groupBy(await attemptOutcomesOfBatches(sql, organizationId, batchIds), 'batchId', batchIds),
    ),
  /** Each batch's call records by disposition, by detection and in all: one statement for every batch asked. */
  recordBreakdownOfBatch: ({ sql, organizationId }: Made) =>
    new DataLoader<string, RecordGroup[]>(async (batchIds) =>
      groupBy(await recordBreakdownOfBatches(sql, organizationId, batchIds), 'batchId', batchIds),
    ),
  /**
   * Each batch's attempts by the interval of the window they started in (0 the
   * first), counted by outcome: one statement per window for every batch asked,
   * on "RunAttempt_batchId_startedAt_idx". Intervals with no attempt are absent.
   */
  attemptsTimeline: ({ sql, organizationId }: Made) =>
    new DataLoader<{ batchId: string; window: TimelineWindow }, IntervalCounts[], string>(
      async (requests) => {
        const results = new Map<string, IntervalCounts[]>();
        const byWindow = new Map<string, { window: TimelineWindow; batchIds: Set<string> }>();
        for (const { batchId, window } of requests) {
          const group = byWindow.get(windowKey(window)) ?? { window, batchIds: new Set() };
          group.batchIds.add(batchId);
          byWindow.set(windowKey(window), group);
        }
        await Promise.all(
          [...byWindow.entries()].map(async ([key, { window, batchIds }]) => {
            const ids = [...batchIds];
            const from = new Date(window.to.getTime() - window.intervalMs * window.intervals);
            const counted = await attemptsTimeline(sql, organizationId, ids, {
              from,
              to: window.to,
              intervalMs: window.intervalMs,
            });
            for (const [index, group] of groupBy(counted, 'batchId', ids).entries()) {
              results.set(
                `${key}|${ids[index]}`,
                group.map(({ batchId: _batchId, ...counts }) => counts),
              );
            }
          }),
        );
        return requests.map((r) => results.get(`${windowKey(r.window)}|${r.batchId}`) ?? []);
      },
      { cacheKeyFn: (r) => `${windowKey(r.window)}|${r.batchId}` },
    ),
  tagsOfProspect: ({ sql, organizationId }: Made) =>
    new DataLoader<string, Rows.Tag[]>(async (prospectIds) => {
      const tagged = await tagsOfProspects(sql, organizationId, prospectIds);
      return groupBy(tagged, 'prospectId', prospectIds).map((group) =>
        group.map(({ prospectId: _prospectId, ...tag }) => tag),
      );
    }),
};

export type Loaders = { readonly [Name in keyof typeof factories]: ReturnType<(typeof factories)[Name]> };

// Rows a page brought in are primed into their by-id loader, so a later
// lookup of the same row (run -> batch name) costs no statement.
const primeByTable: Partial<Record<string, 'run' | 'batch' | 'workflowVersion' | 'prospect'>> = {
  Run: 'run',
  Batch: 'batch',
  WorkflowVersion: 'workflowVersion',
  Prospect: 'prospect',
};

// Under a symbol, so that a request's loaders enumerate as the loaders made so far, and nothing else.
const made = Symbol('made with');

class RequestLoaders {
  readonly [made]: Made;

  constructor(prisma: TenantClient, sql: SqlQueryable, organizationId: string) {
    const primed = (table: string) => {
      const name = primeByTable[table];
      return name ? ((this as unknown as Loaders)[name] as DataLoader<string, unknown>) : undefined;
    };
    this[made] = { prisma, sql, organizationId, primed };
  }
}
// A getter per loader on the prototype, made once: the first read makes the loader and keeps it on the instance.
for (const name of Object.keys(factories) as (keyof typeof factories)[]) {
  Object.defineProperty(RequestLoaders.prototype, name, {
    get(this: RequestLoaders) {
      const loader = factories[name](this[made]);
      Object.defineProperty(this, name, { value: loader, enumerable: true });
      return loader;
    },
  });
}

export function createLoaders(prisma: TenantClient, sql: SqlQueryable, organizationId: string): Loaders {
  return new RequestLoaders(prisma, sql, organizationId) as unknown as Loaders;
}
