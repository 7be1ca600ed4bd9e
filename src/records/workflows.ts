// SPEC.md's workflow, version, batch, run and call attempt records.
import { z } from 'zod';
import { BatchStatus, RunStatus } from '../generated/prisma/enums.ts';
import { callRecord } from './call-records.ts';
import { autoPause, callingWindow, callOutcomes, retryPolicy } from './campaign-settings.ts';
import { consent } from './consents.ts';
import { camelCase } from './names.ts';
import { jsonObject, list, nested, record, timestamp, value } from './record.ts';
import { integer, jsonValue } from './values.ts';

export const workflow = record(
  { id: 'Workflow' },
  {
    id: z.string(),
    name: z.string(),
    description: z.string(),
    is_active: z.boolean(),
    trigger_type: z.string(),
    version: integer(),
    definition: jsonValue(),
    created_at: timestamp(),
    updated_at: timestamp(),
    published_at: timestamp().nullable(),
  },
);

export const workflowVersion = record(
  { id: 'WorkflowVersion' },
  {
    id: z.string(),
    version: integer(),
    created_by: z.string(),
    created_at: timestamp(),
  },
);

/** The row of `alias` that the column `column` of the row `row` names, in the same organization. */
const named = (alias: string, column: string) => (row: string) =>
  `${alias}.id = ${row}."${column}" AND ${alias}."organizationId" = ${row}."organizationId"`;

/** A batch's runs by status: counter columns of its row, moved with its runs. */
const runCounts = ['cancelled', 'failed', 'finished', 'in_progress', 'paused', 'pending'].map(
  (status) => `${status}_count`,
);

const batchStats = record(
  {},
  {
    ...Object.fromEntries(runCounts.map((count) => [count, integer()])),
    total_count: value(integer(), { sql: (b) => runCounts.map((count) => `${b}."${camelCase(count)}"`).join(' + ') }),
  },
);

/** GET /batches/{id}; a `batch.*` event's data. */
export const batch = record(
  { id: 'Batch' },
  {
    id: z.string(),
    name: z.string(),
    organization_id: z.string(),
    workflow_id: z.string(),
    workflow_version_id: z.string(),
    workflow_version_number: value(integer(), {
      sql: (b) => `(SELECT v.version FROM "WorkflowVersion" AS v WHERE ${named('v', 'workflowVersionId')(b)})`,
    }),
    source_type: z.string(),
    created_by: z.string(),
    created_at: timestamp(),
    updated_at: timestamp(),
    scheduled_at: timestamp().nullable(),
    status: z.enum(BatchStatus),
    total_prospects: integer(),
    stats: nested(batchStats),
    calling_window: jsonObject(callingWindow.nullable()),
    retry: jsonObject(retryPolicy),
    auto_pause: jsonObject(autoPause.nullable()),
    max_concurrency: integer().nullable(),
    calls_per_second: z.number().nullable(),
    require_consent: z.boolean().nullable(),
    consent_scope: z.string().nullable(),
    paused_reason: z.string().nullable(),
  },
);

/** A run's prospect, as its run shows it. */
export const runProspect = record(
  {},
  {
    first_name: z.string(),
    last_name: z.string(),
    email: z.string(),
    phone: z.string(),
  },
);

/** A run of the runs listing: its row, and its workflow's and batch's names, and its prospect. */
export const workflowRun = record(
  { id: 'WorkflowRun' },
  {
    id: z.string(),
    workflow_id: z.string(),
    workflow_name: value(z.string(), {
      sql: (r) => `(SELECT w.name FROM "Workflow" AS w WHERE ${named('w', 'workflowId')(r)})`,
    }),
    workflow_version_id: z.string(),
    batch_id: z.string(),
    batch_name: value(z.string(), {
      sql: (r) => `(SELECT b.name FROM "Batch" AS b WHERE ${named('b', 'batchId')(r)})`,
    }),
    current_step_id: z.string().nullable(),
    prospect_id: z.string(),
    started_at: timestamp().nullable(),
    ended_at: timestamp().nullable(),
    status: z.enum(RunStatus),
    prospect: nested(runProspect, { table: 'Prospect', alias: 'p', where: named('p', 'prospectId') }),
  },
);

const callOutcome = () => z.enum(callOutcomes);

/** An item of a run's `call_attempts`; a `call.attempt_ended` event's data (with its run's ids). */
export const callAttempt = record(
  { id: 'CallAttempt' },
  {
    number: integer(),
    step_id: z.string(),
    started_at: timestamp(),
    ended_at: timestamp().nullable(),
    outcome: callOutcome().nullable(),
    reason: z.string().nullable(),
    from_number: z.string().nullable(),
    to_number: z.string(),
    duration_seconds: z.number().nullable(),
    dynamic_variables: jsonValue().nullable(),
    consent: nested(consent, {
      table: 'Consent',
      alias: 'k',
      where: (a) => `k.id = ${a}."consentId" AND k."organizationId" = ${a}."organizationId"`,
    }).nullable(),
    record: nested(callRecord, {
      table: 'CallRecord',
      alias: 'c',
      where: (a) => `c."attemptId" = ${a}."id" AND c."organizationId" = ${a}."organizationId"`,
    }).nullable(),
  },
);

/** GET /runs/{id}: a run of the runs listing and what its attempts tell; a `run.*` event's data. */
export const run = workflowRun.extend(
  { id: 'Run' },
  {
    attempts: integer(),
    last_outcome: callOutcome().nullable(),
    // Only a run that waits for it has a next attempt.
    next_attempt_at: timestamp({
      sql: (r) => `CASE WHEN ${r}."status" IN ('PENDING', 'PAUSED') THEN ${r}."nextAttemptAt" END`,
    }).nullable(),
    error: z.string().nullable(),
    reason: z.string().nullable(),
    call_attempts: list(callAttempt, {
      table: 'RunAttempt',
      alias: 'a',
      where: (r) => `a."runId" = ${r}."id" AND a."organizationId" = ${r}."organizationId"`,
      orderBy: 'a.number',
    }),
  },
);
