// The `data` of each webhook event: the REST shape of its object (SPEC.md's
// names, as GET answers it), built by the database from the rows in the same
// statement that writes the event (write-webhook-events.ts): the SQL pieces
// of that statement, one per kind of object. Each reads its object's row by
// primary key, and its children by their parent's key (Run by batch,
// RunAttempt by run, AgentTool by agent). The REST layer builds the same shapes from
// GraphQL results (src/rest/resources/); the domain may not use those (the
// layers point one way), so the shapes are written here once more, and
// test/webhooks.test.ts compares each event with the GET answer for its object.
import { counterColumn } from './counter-columns.ts';

/** RFC 3339 UTC with milliseconds, as every REST timestamp (null stays null). */
const iso = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

const stats = Object.values(counterColumn);

/** GET /batches/{id}; `b` is the batch row. */
const batchData = `jsonb_build_object(
  'id', b.id, 'name', b.name, 'organization_id', b."organizationId", 'workflow_id', b."workflowId",
  'workflow_version_id', b."workflowVersionId",
  'workflow_version_number', (SELECT v.version FROM "WorkflowVersion" v WHERE v.id = b."workflowVersionId"),
  'source_type', b."sourceType", 'created_by', b."createdBy", 'created_at', ${iso('b."createdAt"')},
  'updated_at', ${iso('b."updatedAt"')}, 'scheduled_at', ${iso('b."scheduledAt"')}, 'status', b.status::text,
  'total_prospects', b."totalProspects",
  'stats', jsonb_build_object(${stats.map((column) => `'${column.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`)}', b."${column}"`).join(', ')},
    'total_count', ${stats.map((column) => `b."${column}"`).join(' + ')}),
  'calling_window', b."callingWindow", 'max_concurrency', b."maxConcurrency", 'calls_per_second', b."callsPerSecond",
  'retry', b.retry, 'auto_pause', b."autoPause", 'paused_reason', b."pausedReason")`;

/** An item of GET /runs/{id}'s `call_attempts`; `a` is the attempt row. */
const attemptData = `jsonb_build_object(
  'number', a.number, 'step_id', a."stepId", 'started_at', ${iso('a."startedAt"')}, 'ended_at', ${iso('a."endedAt"')},
  'outcome', a.outcome::text, 'reason', a.reason, 'from_number', a."fromNumber", 'to_number', a."toNumber",
  'duration_seconds', a."durationSeconds", 'dynamic_variables', a."dynamicVariables")`;

/** GET /runs/{id}; `r` is the run row. */
const runData = `jsonb_build_object(
  'id', r.id, 'workflow_id', r."workflowId", 'workflow_name', (SELECT w.name FROM "Workflow" w WHERE w.id = r."workflowId"),
  'workflow_version_id', r."workflowVersionId", 'batch_id', r."batchId",
  'batch_name', (SELECT b.name FROM "Batch" b WHERE b.id = r."batchId"), 'current_step_id', r."currentStepId",
  'prospect_id', r."prospectId", 'started_at', ${iso('r."startedAt"')}, 'ended_at', ${iso('r."endedAt"')}, 'status', r.status::text,
  'prospect', (SELECT jsonb_build_object('first_name', p."firstName", 'last_name', p."lastName", 'email', p.email, 'phone', p.phone)
    FROM "Prospect" p WHERE p.id = r."prospectId"),
  'attempts', r.attempts, 'last_outcome', r."lastOutcome"::text,
  'next_attempt_at', CASE WHEN r.status IN ('PENDING', 'PAUSED') THEN ${iso('r."nextAttemptAt"')} END,
  'error', r.error, 'reason', r.reason,
  'call_attempts', coalesce((SELECT jsonb_agg(${attemptData} ORDER BY a.number) FROM "RunAttempt" a WHERE a."runId" = r.id), '[]'::jsonb))`;

const agentConfigColumns = [
  'backgroundSound',
  'extraConfig',
  'goodbyeConfig',
  'greetingConfig',
  'llmConfig',
  'precallWebhook',
  'roomDurationConfig',
  'transcriberConfig',
  'vadConfig',
  'voiceConfig',
];
const snake = (name: string) => name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);

/** GET /agents/{id}, with its tools; `g` is the agent row. */
const agentData = `jsonb_build_object(
  'id', g.id, 'name', g.name, 'organization_id', g."organizationId", 'type', g.type::text, 'prompt_template', g."promptTemplate",
  'public_quota', g."publicQuota", 'created_at', ${iso('g."createdAt"')}, 'updated_at', ${iso('g."updatedAt"')},
  'allowed_sip_trunks', to_jsonb(g."allowedSipTrunks"), 'default_functions', to_jsonb(g."defaultFunctions"), 'plugins', g.plugins,
  ${agentConfigColumns.map((column) => `'${snake(column)}', g."${column}"`).join(', ')},
  'tools', coalesce((SELECT jsonb_agg(jsonb_build_object('tool_id', t.id, 'name', t.name, 'description', t.description, 'url', t.url,
      'method', t.method, 'is_enabled', t."isEnabled", 'config_override', t."configOverride",
      'parameters', t.parameters) ORDER BY t.position)
    FROM "AgentTool" t WHERE t."agentId" = g.id), '[]'::jsonb))`;

/** GET /integrations/{id}; `c` is the connection row, `i` its catalog entry. */
const integrationData = `jsonb_build_object(
  'id', c.id, 'name', i.name, 'slug', i.slug, 'created_at', ${iso('c."createdAt"')}, 'last_sync_at', ${iso('c."lastSyncAt"')},
  'last_sync_status', c."lastSyncStatus", 'last_sync_error', c."lastSyncError", 'is_active', c."isActive",
  'schema_config', i."schemaConfig", 'settings', c.settings)`;

/** GET /webhook-endpoints/{id}; `e` is the endpoint row. */
const endpointData = `jsonb_build_object(
  'id', e.id, 'url', e.url, 'events', to_jsonb(e.events), 'description', e.description, 'enabled', e.enabled,
  'created_at', ${iso('e."createdAt"')}, 'failing_since', ${iso('e."failingSince"')}, 'disabled_at', ${iso('e."disabledAt"')})`;

/** What an event is about: the row its data is read from. */
export type EventSubject =
  | { kind: 'batch'; id: string }
  | { kind: 'run'; id: string }
  | { kind: 'attempt'; runId: string; number: number }
  | { kind: 'agent'; id: string }
  | { kind: 'integration'; id: string }
  | { kind: 'endpoint'; id: string };

export type SubjectKind = EventSubject['kind'];

/**
 * Per kind: the rows of `wanted` (its columns: id, number, and what the
 * caller carries along) joined to their object's row, the object id events
 * are ordered by, and the event's data.
 */
export const subjectSources: Record<SubjectKind, { join: string; objectId: string; data: string }> = {
  batch: { join: 'JOIN "Batch" b ON b.id = w.id', objectId: 'b.id', data: batchData },
  run: { join: 'JOIN "Run" r ON r.id = w.id', objectId: 'r.id', data: runData },
  // A call attempt's events are ordered with its run's, and carry its run, batch and prospect.
  attempt: {
    join: 'JOIN "RunAttempt" a ON a."runId" = w.id AND a.number = w.number JOIN "Run" r ON r.id = a."runId"',
    objectId: 'r.id',
    data: `${attemptData} || jsonb_build_object('run_id', r.id, 'batch_id', r."batchId", 'prospect_id', r."prospectId")`,
  },
  agent: { join: 'JOIN "Agent" g ON g.id = w.id', objectId: 'g.id', data: agentData },
  integration: {
    join: 'JOIN "OrganizationIntegration" c ON c.id = w.id JOIN "Integration" i ON i.id = c."integrationId"',
    objectId: 'c.id',
    data: integrationData,
  },
  endpoint: { join: 'JOIN "WebhookEndpoint" e ON e.id = w.id', objectId: 'e.id', data: endpointData },
};

/** The row id a subject's kind joins on, and the attempt number (0 for other kinds). */
export const subjectKey = (subject: EventSubject): { id: string; number: number } =>
  subject.kind === 'attempt' ? { id: subject.runId, number: subject.number } : { id: subject.id, number: 0 };
