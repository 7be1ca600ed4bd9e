// What each server is asked in each scenario: the same data, in each server's
// own dialect.

/** (a) The dashboard query of docs/graphql.md, as the gateway serves it. */
export const GATEWAY_DASHBOARD = `query Dashboard($id: ID!) {
  workflow(id: $id) {
    name version
    batches(first: 20) {
      totalCount
      nodes {
        name status
        stats { pendingCount pausedCount finishedCount totalCount }
        runs(first: 50) { nodes { status startedAt prospect { firstName lastName phone } } }
      }
    }
  }
}`;

/**
 * (a) with records: the same dashboard, each run with its latest call record
 * as a dashboard shows it (bench/seed.ts gives workflow 1's started runs one).
 */
export const GATEWAY_DASHBOARD_WITH_RECORDS = GATEWAY_DASHBOARD.replace(
  'prospect { firstName lastName phone }',
  'prospect { firstName lastName phone }\n          lastRecord { summary sentiment disposition { label category } detection { result confidence } }',
);

/**
 * (a) The same data from PostGraphile: the same orders (batches newest first,
 * runs by started_at descending, ids breaking ties). PostGraphile has no
 * stats object: the six counters are read and the total is the client's sum.
 * Its names follow the keys, and every tenant table's keys hold
 * organizationId: a workflow is found by (id, organization), its batches by
 * (workflow, organization), a run refers to its batch by (batch, workflow,
 * organization, version) and to its prospect by (prospect, organization),
 * which keeps all of them in the one organization, as the gateway does.
 */
export const POSTGRAPHILE_DASHBOARD = `query Dashboard($id: String!, $organizationId: String!) {
  workflowByIdAndOrganizationId(id: $id, organizationId: $organizationId) {
    name version
    batchesByWorkflowIdAndOrganizationId(first: 20, orderBy: [CREATED_AT_DESC, ID_DESC]) {
      totalCount
      nodes {
        name status pendingCount inProgressCount pausedCount finishedCount cancelledCount failedCount
        runsByBatchIdAndWorkflowIdAndOrganizationIdAndWorkflowVersionId(first: 50, orderBy: [STARTED_AT_DESC, ID_DESC]) {
          nodes { status startedAt prospectByProspectIdAndOrganizationId { firstName lastName phone } }
        }
      }
    }
  }
}`;

/** (b) E6 through PostGraphile: the fields of the REST answer, the same page and total, in the one organization. */
export const POSTGRAPHILE_RUNS = `query Runs($workflowId: String!, $batchId: String!, $status: RunStatus!, $organizationId: String!,
                                        $first: Int!, $offset: Int!) {
  allRuns(condition: { workflowId: $workflowId, batchId: $batchId, status: $status, organizationId: $organizationId },
          orderBy: [STARTED_AT_DESC, ID_DESC], first: $first, offset: $offset) {
    totalCount
    nodes {
      id workflowId workflowVersionId batchId currentStepId prospectId startedAt endedAt status
      batchByBatchIdAndWorkflowIdAndOrganizationIdAndWorkflowVersionId { name workflowByWorkflowIdAndOrganizationId { name } }
      prospectByProspectIdAndOrganizationId { firstName lastName email phone }
    }
  }
}`;

/**
 * (a) The same data from PostGraphile 5, whose preset (bench/postgraphile5/server.js)
 * gives the relations natural names; rows keep their column `id` as `rowId`
 * (`id` is the Node interface's global id). A workflow's key is (id,
 * organization), so both find it.
 */
export const POSTGRAPHILE5_DASHBOARD = `query Dashboard($id: String!, $organizationId: String!) {
  workflow(rowId: $id, organizationId: $organizationId) {
    name version
    batches(first: 20, orderBy: [CREATED_AT_DESC, ROW_ID_DESC]) {
      totalCount
      nodes {
        name status pendingCount inProgressCount pausedCount finishedCount cancelledCount failedCount
        runs(first: 50, orderBy: [STARTED_AT_DESC, ROW_ID_DESC]) {
          nodes { status startedAt prospect { firstName lastName phone } }
        }
      }
    }
  }
}`;

/** (b) E6 through PostGraphile 5: the fields of the REST answer, the same page and total, in the one organization. */
export const POSTGRAPHILE5_RUNS = `query Runs($workflowId: String!, $batchId: String!, $status: RunStatus!, $organizationId: String!,
                                         $first: Int!, $offset: Int!) {
  runs(condition: { workflowId: $workflowId, batchId: $batchId, status: $status, organizationId: $organizationId },
       orderBy: [STARTED_AT_DESC, ROW_ID_DESC], first: $first, offset: $offset) {
    totalCount
    nodes {
      rowId workflowId workflowVersionId batchId currentStepId prospectId startedAt endedAt status
      batch { name workflow { name } }
      prospect { firstName lastName email phone }
    }
  }
}`;

/** (e) A trivial query every GraphQL server answers the same way. */
export const TRIVIAL = '{ __typename }';

/** The E6 request of scenario (b): a deep page of one status of the big batch. */
export const E6 = { status: 'FINISHED', page: Number(process.env.BENCH_E6_PAGE ?? 100), limit: 100 } as const;

// Reading each server's answer, to check they all return the same rows.
type Json = any;

export interface DashboardDigest {
  batches: string[];
  runsPerBatch: number[];
  firstBatchProspects: string[];
  /** The instants as ISO text: PostGraphile prints `+00:00` where the others print `Z`. */
  firstBatchStartedAt: (string | null)[];
  totalBatches: number;
}

const instant = (value: string | null) => (value === null ? null : new Date(value).toISOString());

/** The gateway's dashboard, the raw baseline's and PostGraphile 5's (the same names). */
export function digestGatewayDashboard(body: Json): DashboardDigest {
  const batches = body.data.workflow.batches;
  return {
    totalBatches: batches.totalCount,
    batches: batches.nodes.map((batch: Json) => batch.name),
    runsPerBatch: batches.nodes.map((batch: Json) => batch.runs.nodes.length),
    firstBatchProspects: batches.nodes[0].runs.nodes.map((run: Json) => run.prospect.firstName),
    firstBatchStartedAt: batches.nodes[0].runs.nodes.map((run: Json) => instant(run.startedAt)),
  };
}

export interface RecordsDigest extends DashboardDigest {
  /** Each run's record (null: none) as [summary, disposition, detection, sentiment], batch after batch. */
  records: (string | number | null)[][];
}

/** The dashboard with records: the gateway's and the raw baseline's (`/dashboard?records=1`). */
export function digestDashboardRecords(body: Json): RecordsDigest {
  const record = (run: Json) =>
    run.lastRecord === null
      ? [null]
      : [
          run.lastRecord.summary,
          `${run.lastRecord.disposition?.label}/${run.lastRecord.disposition?.category}`,
          `${run.lastRecord.detection?.result}/${run.lastRecord.detection?.confidence}`,
          run.lastRecord.sentiment,
        ];
  return {
    ...digestGatewayDashboard(body),
    records: body.data.workflow.batches.nodes.flatMap((batch: Json) => batch.runs.nodes.map(record)),
  };
}

const runsOf = (batch: Json) => batch.runsByBatchIdAndWorkflowIdAndOrganizationIdAndWorkflowVersionId;

export function digestPostGraphileDashboard(body: Json): DashboardDigest {
  const batches = body.data.workflowByIdAndOrganizationId.batchesByWorkflowIdAndOrganizationId;
  return {
    totalBatches: batches.totalCount,
    batches: batches.nodes.map((batch: Json) => batch.name),
    runsPerBatch: batches.nodes.map((batch: Json) => runsOf(batch).nodes.length),
    firstBatchProspects: runsOf(batches.nodes[0]).nodes.map(
      (run: Json) => run.prospectByProspectIdAndOrganizationId.firstName,
    ),
    firstBatchStartedAt: runsOf(batches.nodes[0]).nodes.map((run: Json) => instant(run.startedAt)),
  };
}

export interface RunsDigest {
  total: number;
  ids: string[];
}

export const digestRestRuns = (body: Json): RunsDigest => ({
  total: body.pagination.total,
  ids: body.data.map((run: Json) => run.id),
});

export const digestPostGraphileRuns = (body: Json): RunsDigest => ({
  total: body.data.allRuns.totalCount,
  ids: body.data.allRuns.nodes.map((run: Json) => run.id),
});

export const digestPostGraphile5Runs = (body: Json): RunsDigest => ({
  total: body.data.runs.totalCount,
  ids: body.data.runs.nodes.map((run: Json) => run.rowId),
});
