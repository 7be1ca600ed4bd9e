// SPEC.md's workflow, version, batch and run records: the GraphQL selection
// each is read with, how it maps to the wire, and its schema.
import { z } from 'zod';
import { autoPause, callOutcomes, retryPolicy } from '../../domain/batch-settings.ts';
import { callingWindow } from '../../domain/calling-window.ts';
import { unwrapJson, wire } from '../wire.ts';
import { int, json, timestamp } from './common.ts';

export const workflowFragment = `fragment WorkflowRest on Workflow {
  id name description isActive triggerType version definition createdAt updatedAt publishedAt }`;
export const presentWorkflow = (workflow: Record<string, unknown>) => wire(workflow);
export const workflowSchema = z
  .strictObject({
    id: z.string(),
    name: z.string(),
    description: z.string(),
    is_active: z.boolean(),
    trigger_type: z.string(),
    version: int(),
    definition: json(),
    created_at: timestamp(),
    updated_at: timestamp(),
    published_at: timestamp().nullable(),
  })
  .meta({ id: 'Workflow' });

export const versionFragment = `fragment VersionRest on WorkflowVersion { id version createdBy createdAt }`;
export const presentVersion = (version: Record<string, unknown>) => wire(version);
export const versionSchema = z
  .strictObject({ id: z.string(), version: int(), created_by: z.string(), created_at: timestamp() })
  .meta({ id: 'WorkflowVersion' });

const statsFields = 'cancelledCount failedCount finishedCount inProgressCount pausedCount pendingCount totalCount';
/** The campaign settings, read as their JSON values (wire names). */
const settingMembers = ['callingWindow', 'retry', 'autoPause'];
export const batchFragment = `fragment BatchRest on Batch {
  id name organizationId workflowId workflowVersionId workflowVersionNumber sourceType createdBy
  createdAt updatedAt scheduledAt status totalProspects stats { ${statsFields} }
  ${settingMembers.map((member) => `${member} { json }`).join(' ')} maxConcurrency callsPerSecond pausedReason }`;
export const presentBatch = (batch: Record<string, unknown>) => wire(unwrapJson(batch, settingMembers), ['stats']);
export const batchSchema = z
  .strictObject({
    id: z.string(),
    name: z.string(),
    organization_id: z.string(),
    workflow_id: z.string(),
    workflow_version_id: z.string(),
    workflow_version_number: int(),
    source_type: z.string(),
    created_by: z.string(),
    created_at: timestamp(),
    updated_at: timestamp(),
    scheduled_at: timestamp().nullable(),
    status: z.string(),
    total_prospects: int(),
    stats: z.strictObject({
      cancelled_count: int(),
      failed_count: int(),
      finished_count: int(),
      in_progress_count: int(),
      paused_count: int(),
      pending_count: int(),
      total_count: int(),
    }),
    calling_window: callingWindow.nullable(),
    max_concurrency: int().nullable(),
    calls_per_second: z.number().nullable(),
    retry: retryPolicy,
    auto_pause: autoPause.nullable(),
    paused_reason: z.string().nullable(),
  })
  .meta({ id: 'Batch' });

/**
 * A run as `GET /runs/{id}` reads it. E6's runs are written by PostgreSQL
 * instead (src/db/sql/wire-runs-page.ts), members in `runSchema`'s order.
 */
const runFragment = `fragment RunRest on Run {
  id workflowId workflowName workflowVersionId batchId batchName currentStepId prospectId startedAt endedAt status
  prospect { firstName lastName email phone } }`;

/** A run by id: E6's run and what its attempts tell. */
export const runDetailFragment = `fragment RunDetailRest on Run { ...RunRest attempts lastOutcome nextAttemptAt error reason
  callAttempts { number stepId startedAt endedAt outcome reason fromNumber toNumber durationSeconds dynamicVariables } }
  ${runFragment}`;
export const presentRunDetail = (run: Record<string, unknown>) => wire(run, ['prospect', 'callAttempts']);
export const runSchema = z
  .strictObject({
    id: z.string(),
    workflow_id: z.string(),
    workflow_name: z.string(),
    workflow_version_id: z.string(),
    batch_id: z.string(),
    batch_name: z.string(),
    current_step_id: z.string().nullable(),
    prospect_id: z.string(),
    started_at: timestamp().nullable(),
    ended_at: timestamp().nullable(),
    status: z.string(),
    prospect: z.strictObject({ first_name: z.string(), last_name: z.string(), email: z.string(), phone: z.string() }),
  })
  .meta({ id: 'WorkflowRun' });

const callAttemptSchema = z
  .strictObject({
    number: int(),
    step_id: z.string(),
    started_at: timestamp(),
    ended_at: timestamp().nullable(),
    outcome: z.enum(callOutcomes).nullable(),
    reason: z.string().nullable(),
    from_number: z.string().nullable(),
    to_number: z.string(),
    duration_seconds: z.number().nullable(),
    dynamic_variables: json().nullable(),
  })
  .meta({ id: 'CallAttempt' });

export const runDetailSchema = runSchema
  .extend({
    attempts: int(),
    last_outcome: z.enum(callOutcomes).nullable(),
    next_attempt_at: timestamp().nullable(),
    error: z.string().nullable(),
    reason: z.string().nullable(),
    call_attempts: z.array(callAttemptSchema),
  })
  .meta({ id: 'Run' });
