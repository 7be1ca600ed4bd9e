// The data shapes the dashboard (a) and E6 (b) are measured on beside their
// main rows, gateway against the raw baseline in the same run: a batch's
// pending runs (no startedAt) as well as its finished ones, a small batch as
// well as the 100,000-run one, every sort, a fresh batch the planner has no
// statistics of yet; dashboards of small ended batches, of the big batch, of a
// campaign's pending batches, and of a workflow whose newest batch is fresh.
import { ms, ratio, rps, verdict } from './report.ts';
import type { Seeded } from './seed.ts';
import { RAW_RUN_ORDERS, type RawRunOrder } from './sql.ts';

export interface RunsShape {
  label: string;
  workflowId: string;
  batchId: string;
  status: 'PENDING' | 'FINISHED';
  sort: RawRunOrder;
  page: number;
  limit: number;
}

/** Page 2 (100 runs a page, the listing's most) of the big batch by status and every sort, and of a small batch. */
export function runsShapes(seeded: Seeded): RunsShape[] {
  const shapes: RunsShape[] = [];
  for (const status of ['PENDING', 'FINISHED'] as const) {
    for (const sort of Object.keys(RAW_RUN_ORDERS) as RawRunOrder[]) {
      shapes.push({
        label: `${status}, big batch, ${sort}`,
        workflowId: seeded.bigWorkflowId,
        batchId: seeded.bigBatchId,
        status,
        sort,
        page: 2,
        limit: 100,
      });
    }
  }
  shapes.push({
    label: 'PENDING, fresh batch (inserted after ANALYZE), started_desc',
    workflowId: seeded.e4WorkflowId,
    batchId: seeded.freshBatchId,
    status: 'PENDING',
    sort: 'started_desc',
    page: 2,
    limit: 100,
  });
  for (const status of ['PENDING', 'FINISHED'] as const) {
    shapes.push({
      label: `${status}, small batch (~900 runs), started_desc`,
      workflowId: seeded.smallWorkflowId,
      batchId: seeded.smallBatchId,
      status,
      sort: 'started_desc',
      page: 2,
      limit: 100,
    });
  }
  return shapes;
}

/** The query string of E6 for a shape (the gateway's route and the raw server's /runs read the same names). */
export const runsQueryOf = (shape: RunsShape) =>
  `status=${shape.status}&batch_id=${shape.batchId}&sort=${shape.sort}&page=${shape.page}&limit=${shape.limit}`;

export interface DashboardShape {
  label: string;
  workflowId: string;
}

/** The dashboards besides (a)'s own (workflow 1: 20 batches of about 900 runs, most of them ended). */
export const dashboardShapes = (seeded: Seeded): DashboardShape[] => [
  { label: 'workflow 10: the 100,000-run batch and 19 of ~900', workflowId: seeded.bigWorkflowId },
  { label: 'campaign: 20 batches of 500 pending runs', workflowId: seeded.campaignWorkflowId },
  {
    label: 'workflow 2: a fresh batch of pending runs (inserted after ANALYZE) and 19 of ~900',
    workflowId: seeded.e4WorkflowId,
  },
];

interface Measured {
  rps: number;
  serverCpuPerRequest: number;
  postgresCpuPerRequest: number;
}

/** One line per shape: the gateway beside the raw baseline, and their ratios. */
export function shapeRows(measured: { label: string; gateway: Measured; raw: Measured }[]) {
  return {
    header: [
      'shape',
      'gateway req/s',
      'raw req/s',
      'gateway ÷ raw req/s',
      'server CPU / req, gateway',
      'raw',
      'gateway ÷ raw',
      'PostgreSQL CPU / req, gateway',
      'raw',
      'gateway ÷ raw',
    ],
    rows: measured.map(({ label, gateway, raw }) => [
      label,
      rps(gateway.rps),
      rps(raw.rps),
      ratio(gateway.rps / raw.rps),
      ms(gateway.serverCpuPerRequest),
      ms(raw.serverCpuPerRequest),
      ratio(gateway.serverCpuPerRequest / raw.serverCpuPerRequest),
      ms(gateway.postgresCpuPerRequest),
      ms(raw.postgresCpuPerRequest),
      ratio(gateway.postgresCpuPerRequest / raw.postgresCpuPerRequest),
    ]),
  };
}

/**
 * The targets of the dashboards and E6 on every shape, as ratios to the raw
 * baseline and PostGraphile measured in the same run (absolute figures move
 * twofold from one machine to the next; the ratios do not).
 */
export function shapeTargets(measured: {
  dashboard: Record<'gateway' | 'raw' | 'postgraphile' | 'postgraphile5', Measured>;
  dashboardStatements: number;
  /** The same dashboard with each run's latest call record. */
  recordsStatements: number;
  runs: { label: string; gateway: Measured; raw: Measured }[];
}): string[][] {
  const { gateway, raw, postgraphile, postgraphile5 } = measured.dashboard;
  const within = (label: string, a: number, b: number, bound: number, show: (value: number) => string) => [
    label,
    `${show(a)} vs ${show(b)} (${ratio(a / b)})`,
    verdict(a <= bound * b),
  ];
  const atLeast = (label: string, a: number, b: number, bound: number) => [
    label,
    `${rps(a)} vs ${rps(b)} (${ratio(a / b)})`,
    verdict(a >= bound * b),
  ];
  return [
    within('(a) server CPU ≤ 1.7× raw', gateway.serverCpuPerRequest, raw.serverCpuPerRequest, 1.7, ms),
    atLeast('(a) ≥ 0.9× raw req/s', gateway.rps, raw.rps, 0.9),
    atLeast('(a) ≥ 1.5× PostGraphile 5 req/s', gateway.rps, postgraphile5.rps, 1.5),
    atLeast('(a) ≥ 1.5× PostGraphile 4 req/s', gateway.rps, postgraphile.rps, 1.5),
    ['(a) SQL statements per request', String(measured.dashboardStatements), ''],
    [
      '(a) with records: SQL statements unchanged',
      `${measured.recordsStatements} vs ${measured.dashboardStatements}`,
      verdict(measured.recordsStatements === measured.dashboardStatements),
    ],
    ...measured.runs.flatMap(({ label, gateway, raw }) => [
      within(`(b) ${label}: server CPU ≤ 1.6× raw`, gateway.serverCpuPerRequest, raw.serverCpuPerRequest, 1.6, ms),
      within(
        `(b) ${label}: PostgreSQL CPU ≤ 1.5× raw`,
        gateway.postgresCpuPerRequest,
        raw.postgresCpuPerRequest,
        1.5,
        ms,
      ),
    ]),
  ];
}
