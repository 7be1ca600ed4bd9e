// SPEC.md's workflow, version, batch, run, prospect and tag records: the
// GraphQL selection each is read with, how it maps to the wire, and its schema.
import { z } from 'zod';
import { wire } from '../wire.ts';
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
export const batchFragment = `fragment BatchRest on Batch {
  id name organizationId workflowId workflowVersionId workflowVersionNumber sourceType createdBy
  createdAt updatedAt scheduledAt status totalProspects stats { ${statsFields} } }`;
export const presentBatch = (batch: Record<string, unknown>) => wire(batch, ['stats']);
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
  })
  .meta({ id: 'Batch' });

export const runFragment = `fragment RunRest on Run {
  id workflowId workflowName workflowVersionId batchId batchName currentStepId prospectId startedAt endedAt status
  prospect { firstName lastName email phone } }`;
export const presentRun = (run: Record<string, unknown>) => wire(run, ['prospect']);
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

export const tagFragment = `fragment TagRest on Tag { id name }`;
export const tagSchema = z.strictObject({ id: z.string(), name: z.string() }).meta({ id: 'Tag' });

export const prospectFragment = `fragment ProspectRest on Prospect {
  id firstName lastName email phone createdAt updatedAt tags { ...TagRest } }
  ${tagFragment}`;
export const presentProspect = (prospect: Record<string, unknown>) => wire(prospect, ['tags']);
export const prospectSchema = z
  .strictObject({
    id: z.string(),
    first_name: z.string(),
    last_name: z.string(),
    email: z.string(),
    phone: z.string(),
    created_at: timestamp(),
    updated_at: timestamp(),
    tags: z.array(tagSchema),
  })
  .meta({ id: 'Prospect' });

export const prospectListSchema = z
  .strictObject({ id: z.string(), name: z.string(), prospect_count: int() })
  .meta({ id: 'ProspectList' });
