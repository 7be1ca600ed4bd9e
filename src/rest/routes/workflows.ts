// Workflows, versions, batches, runs and DECISIONS.md's extensions.
import { z } from 'zod';
import { runsListingPage } from '../../db/sql/runs-listing-page.ts';
import { wireRunsPage } from '../../db/sql/wire-runs-page.ts';
import { batchSettingsUpdate } from '../../domain/batch-settings.ts';
import { batchCreate, batchStatusUpdate } from '../../domain/batches.ts';
import { notFound } from '../../domain/errors.ts';
import { runFilter, runFilterSql, runOrderSql, runSorts } from '../../domain/runs.ts';
import { workflowCreate, workflowUpdate, workflowVersionCreate } from '../../domain/workflows.ts';
import { batch, run, workflow, workflowRun, workflowVersion } from '../../records/workflows.ts';
import { wireNames } from '../../schema/json-schema-names.ts';
import { runListing } from '../../schema/run-listing.ts';
import {
  found,
  metaEnvelope,
  metaEnvelopeSchema,
  operationRoute,
  pageArgs,
  pageLimitQuery,
  pageSizeQuery,
  paginationEnvelope,
  paginationEnvelopeSchema,
  paginationEnvelopeText,
  textRoute,
} from '../route.ts';

const WorkflowCreate = wireNames(workflowCreate);
const WorkflowUpdate = wireNames(workflowUpdate);
const WorkflowVersionCreate = wireNames(workflowVersionCreate);
const BatchCreate = wireNames(batchCreate);
const BatchSettingsUpdate = wireNames(batchSettingsUpdate);

/** The runs listing's query: DECISIONS.md's parameter names, the filter members of `runFilter`, and `sort`. */
const runsQuery = pageLimitQuery.extend({
  ...runFilter.shape,
  sort: z.enum(runSorts).optional(),
});

/** Batches of up to 100,000 prospect ids need more than the default 1 MiB. */
const BATCH_BODY_LIMIT = 8 * 1024 * 1024;

export const workflowRoutes = [
  operationRoute({
    method: 'POST',
    path: '/workflows',
    endpoint: null,
    summary: 'Create a workflow at version 1',
    operation: `mutation($input: WorkflowCreateInput!) { createWorkflow(input: $input) { ${workflow.selection} } }`,
    body: workflowCreate,
    jsonMembers: { objects: ['definition'] },
    status: 201,
    variables: ({ body }) => ({ input: WorkflowCreate.toInput(body) }),
    respond: (data) => workflow.present(data.createWorkflow),
    response: workflow.schema,
  }),
  operationRoute({
    method: 'GET',
    path: '/workflows/:workflow_id',
    endpoint: null,
    summary: 'Get a workflow',
    operation: `query($id: ID!) { workflow(id: $id) { ${workflow.selection} } }`,
    variables: ({ params }) => ({ id: params.workflow_id }),
    respond: (data) => workflow.present(found(data.workflow, 'workflow')),
    response: workflow.schema,
  }),
  operationRoute({
    method: 'PATCH',
    path: '/workflows/:workflow_id',
    endpoint: 'E5',
    summary: 'Update workflow (never creates a version)',
    operation: `mutation($id: ID!, $input: WorkflowUpdateInput!) { updateWorkflow(id: $id, input: $input) { ${workflow.selection} } }`,
    body: workflowUpdate,
    variables: ({ params, body }) => ({ id: params.workflow_id, input: WorkflowUpdate.toInput(body) }),
    respond: (data) => workflow.present(data.updateWorkflow),
    response: workflow.schema,
  }),
  operationRoute({
    method: 'POST',
    path: '/workflows/:workflow_id/versions',
    endpoint: null,
    summary: 'Publish a new definition as version N+1',
    operation: `mutation($id: ID!, $input: WorkflowVersionCreateInput!) {
      publishWorkflowVersion(workflowId: $id, input: $input) { ${workflow.selection} } }`,
    body: workflowVersionCreate,
    jsonMembers: { objects: ['definition'] },
    status: 201,
    variables: ({ params, body }) => ({ id: params.workflow_id, input: WorkflowVersionCreate.toInput(body) }),
    respond: (data) => workflow.present(data.publishWorkflowVersion),
    response: workflow.schema,
  }),
  operationRoute({
    method: 'GET',
    path: '/workflows/:workflow_id/versions',
    endpoint: 'E8',
    summary: 'List workflow versions, newest first',
    operation: `query($id: ID!, $first: Int, $after: String) { workflow(id: $id) {
      versions(first: $first, after: $after) { totalCount nodes { ${workflowVersion.selection} } } } }`,
    query: pageSizeQuery,
    variables: ({ params, query }) => ({ id: params.workflow_id, ...pageArgs(query.page, query.size) }),
    respond: (data, { query }) =>
      metaEnvelope(found(data.workflow, 'workflow').versions, query.page, query.size, workflowVersion.present),
    response: metaEnvelopeSchema(workflowVersion.schema),
  }),
  operationRoute({
    method: 'POST',
    path: '/workflows/:workflow_id/batches',
    endpoint: 'E4',
    summary: 'Create a workflow batch: one run per prospect, all or nothing',
    operation: `mutation($id: ID!, $input: BatchCreateInput!) { createBatch(workflowId: $id, input: $input) { ${batch.selection} } }`,
    body: batchCreate,
    answers: { 409: 'the workflow is inactive' },
    bodyLimit: BATCH_BODY_LIMIT,
    status: 201,
    variables: ({ params, body }) => ({ id: params.workflow_id, input: BatchCreate.toInput(body) }),
    respond: (data) => batch.present(data.createBatch),
    response: batch.schema,
  }),
  operationRoute({
    method: 'GET',
    path: '/workflows/:workflow_id/batches',
    endpoint: 'E7',
    summary: 'List workflow batches, newest first',
    operation: `query($id: ID!, $first: Int, $after: String) { workflow(id: $id) {
      batches(first: $first, after: $after) { totalCount nodes { ${batch.selection} } } } }`,
    query: pageLimitQuery,
    variables: ({ params, query }) => ({ id: params.workflow_id, ...pageArgs(query.page, query.limit) }),
    respond: (data, { query }) =>
      paginationEnvelope(found(data.workflow, 'workflow').batches, query.page, query.limit, batch.present),
    response: paginationEnvelopeSchema(batch.schema),
  }),
  textRoute({
    method: 'GET',
    path: '/workflows/:workflow_id/runs',
    endpoint: 'E6',
    summary: 'List workflow runs, filtered, sorted and paged',
    query: runsQuery,
    field: 'Query.runs',
    // What GraphQL's `runs` lists (run-listing.ts), its page written by PostgreSQL in the answer's shape.
    answer: async ({ organizationId, sql, loaders }, { params, query }) => {
      // The query's filter members are runFilter's, parsed with it.
      const { page, limit, sort, ...filter } = query;
      const workflowId = params.workflow_id!;
      const window = { where: runFilterSql(filter), orderBy: runOrderSql(sort), offset: (page - 1) * limit, limit };
      // The workflow, the batch the filter names and the page, in one statement.
      const read = await runsListingPage(sql, { workflowId, batchId: filter.batch_id, ...window }, organizationId);
      if (!read.workflowFound) throw notFound('workflow');
      // A batch named that is not the workflow's holds none of its runs.
      if (filter.batch_id && read.batch?.workflowId !== workflowId) return paginationEnvelopeText('', page, limit, 0);
      const listing = await runListing(read.batch ? { batch: read.batch } : { workflowId }, filter, sort, loaders);
      if (!listing) return paginationEnvelopeText('', page, limit, 0);
      // A run without its prospect row is written as wire-runs-page.ts writes it (prospect null).
      const items = read.prospectsMissing
        ? await wireRunsPage(sql, { ...listing, ...window }, organizationId)
        : read.items;
      return paginationEnvelopeText(items, page, limit, await listing.count());
    },
    response: paginationEnvelopeSchema(workflowRun.schema),
  }),
  operationRoute({
    method: 'GET',
    path: '/batches/:batch_id',
    endpoint: null,
    summary: 'Get a batch',
    operation: `query($id: ID!) { batch(id: $id) { ${batch.selection} } }`,
    variables: ({ params }) => ({ id: params.batch_id }),
    respond: (data) => batch.present(found(data.batch, 'batch')),
    response: batch.schema,
  }),
  operationRoute({
    method: 'PATCH',
    path: '/batches/:batch_id',
    endpoint: 'E9',
    summary: 'Update batch status: PAUSED, PENDING (resume) or CANCELLED',
    operation: `mutation($id: ID!, $status: BatchStatus!) { updateBatchStatus(id: $id, status: $status) { ${batch.selection} } }`,
    body: batchStatusUpdate,
    answers: { 409: "the batch's status cannot move to the one given" },
    variables: ({ params, body }) => ({ id: params.batch_id, status: body.status }),
    respond: (data) => batch.present(data.updateBatchStatus),
    response: batch.schema,
  }),
  operationRoute({
    method: 'PATCH',
    path: '/batches/:batch_id/settings',
    endpoint: null,
    summary: "Change a live batch's calling window, pacing, retry policy or circuit breaker",
    operation: `mutation($id: ID!, $input: BatchSettingsUpdateInput!) {
      updateBatchSettings(id: $id, input: $input) { ${batch.selection} } }`,
    body: batchSettingsUpdate,
    variables: ({ params, body }) => ({ id: params.batch_id, input: BatchSettingsUpdate.toInput(body) }),
    respond: (data) => batch.present(data.updateBatchSettings),
    response: batch.schema,
  }),
  operationRoute({
    method: 'POST',
    path: '/batches/:batch_id/retry-failed',
    endpoint: null,
    summary: "Give the batch's FAILED runs one more attempt each (409 on a cancelled batch)",
    operation: `mutation($id: ID!) { retryFailedRuns(id: $id) { ${batch.selection} } }`,
    answers: { 409: 'the batch is CANCELLED' },
    variables: ({ params }) => ({ id: params.batch_id }),
    respond: (data) => batch.present(data.retryFailedRuns),
    response: batch.schema,
  }),
  operationRoute({
    method: 'GET',
    path: '/runs/:run_id',
    endpoint: null,
    summary: 'Get a run with its call attempts, oldest first',
    operation: `query($id: ID!) { run(id: $id) { ${run.selection} } }`,
    variables: ({ params }) => ({ id: params.run_id }),
    respond: (data) => run.present(found(data.run, 'run')),
    response: run.schema,
  }),
];
