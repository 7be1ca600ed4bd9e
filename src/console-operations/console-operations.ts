// Every GraphQL document the console sends, with the types of its variables
// and of its answer. The console sends each one as a persisted operation (its
// SHA-256, never its text): the gateway allows them as it allows the REST
// layer's own (src/http/app.ts), so the console works with
// GRAPHQL_PERSISTED_ONLY=on; scripts/build-console.js gives the bundle their
// hashes. This module is plain data, read by the browser bundle (src/console/)
// and the server: it lives below both, so neither imports the other.

/** A document with the types of its answer and variables (they exist for the compiler only). */
export interface Operation<Data, Variables> {
  readonly name: string;
  readonly text: string;
  readonly types?: { data: Data; variables: Variables };
}

type NoVariables = Record<string, never>;

/** Every operation below, in order: the allow-list the gateway serves the console with. */
export const consoleOperations: Operation<unknown, unknown>[] = [];

function operation<Data, Variables = NoVariables>(text: string): Operation<Data, Variables> {
  const name = /^(?:query|mutation|subscription) (\w+)/.exec(text)?.[1];
  if (!name) throw new Error(`a console operation needs a name: ${text.slice(0, 40)}`);
  const defined = { name, text };
  consoleOperations.push(defined);
  return defined;
}

export type BatchStatus = 'PENDING' | 'IN_PROGRESS' | 'PAUSED' | 'FINISHED' | 'CANCELLED' | 'FAILED';
export type RunStatus = BatchStatus;
export type CallOutcome = 'answered' | 'no_answer' | 'busy' | 'voicemail' | 'failed' | 'ivr' | 'call_screening';
export type RunOrder = 'STARTED_DESC' | 'STARTED_ASC' | 'STATUS_ASC' | 'STATUS_DESC';

export interface Stats {
  pendingCount: number;
  inProgressCount: number;
  pausedCount: number;
  finishedCount: number;
  cancelledCount: number;
  failedCount: number;
  totalCount: number;
}

export interface Outcomes {
  attempts: number;
  answered: number;
  noAnswer: number;
  busy: number;
  voicemail: number;
  failed: number;
  ivr: number;
  callScreening: number;
}

export interface AttemptsInterval extends Outcomes {
  start: string;
  end: string;
}

interface PageInfo {
  endCursor: string | null;
  startCursor: string | null;
  hasNextPage: boolean;
  hasPreviousPage: boolean;
}

const STATS = 'stats { pendingCount inProgressCount pausedCount finishedCount cancelledCount failedCount totalCount }';
const OUTCOMES = 'attempts answered noAnswer busy voicemail failed ivr callScreening';
const PAGE_INFO = 'pageInfo { endCursor startCursor hasNextPage hasPreviousPage }';
/** What a batch's card shows; the timeline is the last hour, minute by minute. */
const BATCH_CARD = `id name status createdAt workflow { id name } ${STATS} outcomes { ${OUTCOMES} } windowState pausedReason
  lastHour: attemptsTimeline(minutes: 60) { start end ${OUTCOMES} }`;

export interface BatchCard {
  id: string;
  name: string;
  status: BatchStatus;
  createdAt: string;
  workflow: { id: string; name: string };
  stats: Stats;
  outcomes: Outcomes;
  windowState: string | null;
  pausedReason: string | null;
  lastHour: AttemptsInterval[];
}

export const ConsoleOrganization = operation<{
  organization: { id: string; name: string };
  currentApiKey: { scopes: string[] };
}>('query ConsoleOrganization { organization { id name } currentApiKey { scopes } }');

export const ConsoleWorkflows = operation<{ workflows: { nodes: { id: string; name: string }[] } }>(
  'query ConsoleWorkflows { workflows(first: 100) { nodes { id name } } }',
);

export const ConsoleBatches = operation<
  { batches: { totalCount: number; pageInfo: PageInfo; nodes: BatchCard[] } },
  { workflowId?: string | null; status?: BatchStatus | null; first: number }
>(`query ConsoleBatches($workflowId: ID, $status: BatchStatus, $first: Int!) {
  batches(workflowId: $workflowId, status: $status, first: $first) { totalCount ${PAGE_INFO} nodes { ${BATCH_CARD} } }
}`);

/** What a batch page follows of its batch: a live query, answered again whenever the batch changes. */
export const ConsoleBatchLive = operation<
  { batch: Pick<BatchCard, 'id' | 'status' | 'stats' | 'outcomes' | 'windowState' | 'pausedReason'> | null },
  { batchId: string }
>(
  `query ConsoleBatchLive($batchId: ID!) @live {
  batch(id: $batchId) { id status ${STATS} outcomes { ${OUTCOMES} } windowState pausedReason }
}`,
);

export interface BatchDetail extends BatchCard {
  totalProspects: number;
  scheduledAt: string | null;
  workflowVersionNumber: number;
  maxConcurrency: number | null;
  callsPerSecond: number | null;
  callingWindow: { days: string[]; start: string; end: string; timezone: string } | null;
  retry: { maxAttempts: number; on: CallOutcome[]; delaySeconds: number };
  autoPause: { failureRate: number; window: number } | null;
  history: AttemptsInterval[];
  recordBreakdown: RecordBreakdown;
}

/** A batch's call records by disposition and by detection (`Batch.recordBreakdown`). */
export interface RecordBreakdown {
  records: number;
  dispositions: { label: string; category: string; count: number }[];
  detections: { result: string; count: number }[];
}

export const ConsoleBatch = operation<
  { batch: BatchDetail | null },
  { id: string; minutes: number; intervalMinutes: number }
>(
  `query ConsoleBatch($id: ID!, $minutes: Int!, $intervalMinutes: Int!) {
  batch(id: $id) {
    ${BATCH_CARD}
    totalProspects scheduledAt workflowVersionNumber maxConcurrency callsPerSecond
    callingWindow { days start end timezone } retry { maxAttempts on delaySeconds } autoPause { failureRate window }
    history: attemptsTimeline(minutes: $minutes, intervalMinutes: $intervalMinutes) { start end ${OUTCOMES} }
    recordBreakdown { records dispositions { label category count } detections { result count } }
  }
}`,
);

interface CallAttempt {
  number: number;
  startedAt: string;
  endedAt: string | null;
  outcome: CallOutcome | null;
  reason: string | null;
  fromNumber: string | null;
  toNumber: string;
  durationSeconds: number | null;
}

export interface RunRow {
  id: string;
  status: RunStatus;
  attempts: number;
  lastOutcome: CallOutcome | null;
  currentStepId: string | null;
  error: string | null;
  reason: string | null;
  nextAttemptAt: string | null;
  startedAt: string | null;
  endedAt: string | null;
  prospect: { firstName: string; lastName: string; phone: string };
  callAttempts: CallAttempt[];
}

export interface RunFilter {
  status?: RunStatus;
  startedAfter?: string;
  startedBefore?: string;
}

export const ConsoleBatchRuns = operation<
  { batch: { runs: { totalCount: number; pageInfo: PageInfo; nodes: RunRow[] } } | null },
  { id: string; filter: RunFilter; orderBy: RunOrder; first?: number; after?: string; last?: number; before?: string }
>(`query ConsoleBatchRuns($id: ID!, $filter: RunFilterInput, $orderBy: RunOrder, $first: Int, $after: String, $last: Int, $before: String) {
  batch(id: $id) {
    runs(filter: $filter, orderBy: $orderBy, first: $first, after: $after, last: $last, before: $before) {
      totalCount ${PAGE_INFO}
      nodes {
        id status attempts lastOutcome currentStepId error reason nextAttemptAt startedAt endedAt
        prospect { firstName lastName phone }
        callAttempts { number startedAt endedAt outcome reason fromNumber toNumber durationSeconds }
      }
    }
  }
}`);

/** One turn of a call's transcript: times in ms from the call's start. */
export interface TranscriptTurn {
  role: 'agent' | 'callee' | 'system' | string;
  text: string;
  startedMs: number;
  endedMs: number;
}

/** What an agent worker reported of one call (`RunAttempt.record`). */
export interface CallRecordView {
  id: string;
  agentId: string;
  transcript: TranscriptTurn[];
  detection: { result: string; confidence: number; detectedMs: number } | null;
  summary: string | null;
  disposition: { label: string; category: string } | null;
  sentiment: number | null;
  endedBy: string | null;
  recordingUrl: string | null;
  latency: { p50Ms: number; p95Ms: number } | null;
  callbackAt: string | null;
  evaluations: { evaluationId: number; score: number; passed: boolean; reason: string | null }[];
  transfer: { to: string; status: string } | null;
}

/** An entry of a prospect's consent history (`Prospect.consents`): a consent, or a revocation (`revokedAt`). */
export interface ConsentView {
  id: string;
  scope: string;
  source: string;
  capturedAt: string;
  evidence: string | null;
  expiresAt: string | null;
  revokedAt: string | null;
}

export interface RunDetail extends RunRow {
  batch: { id: string; name: string };
  prospect: RunRow['prospect'] & { consents: ConsentView[] };
  callAttempts: (CallAttempt & { record: CallRecordView | null; consent: { id: string; scope: string } | null })[];
}

const CALL_RECORD = `id agentId transcript { role text startedMs endedMs } detection { result confidence detectedMs } summary
  disposition { label category } sentiment endedBy recordingUrl latency { p50Ms p95Ms } callbackAt
  evaluations { evaluationId score passed reason } transfer { to status }`;

export const ConsoleRun = operation<{ run: RunDetail | null }, { id: string }>(
  `query ConsoleRun($id: ID!) {
  run(id: $id) {
    id status attempts lastOutcome currentStepId error reason nextAttemptAt startedAt endedAt
    batch { id name }
    prospect { firstName lastName phone consents { id scope source capturedAt evidence expiresAt revokedAt } }
    callAttempts { number startedAt endedAt outcome reason fromNumber toNumber durationSeconds consent { id scope } record { ${CALL_RECORD} } }
  }
}`,
);

/** An agent's evaluations by number (`evaluation_id` of a record's evaluations), for their titles. */
export const ConsoleAgentEvaluations = operation<
  { agent: { id: string; evaluations: { nodes: { databaseId: number; title: string }[] } } | null },
  { id: string }
>(`query ConsoleAgentEvaluations($id: ID!) {
  agent(id: $id) { id evaluations(first: 100) { nodes { databaseId title } } }
}`);

/** A call record found by `callRecords`: what the search page lists. */
export interface FoundCallRecord {
  id: string;
  runId: string;
  attemptNumber: number;
  batchId: string;
  summary: string | null;
  disposition: { label: string; category: string } | null;
  detection: { result: string } | null;
  createdAt: string;
}

export interface CallRecordFilter {
  search?: string;
  agentId?: string;
  batchId?: string;
  disposition?: string;
  category?: string;
  detection?: string;
  from?: string;
  to?: string;
}

export const ConsoleCallRecords = operation<
  { callRecords: { totalCount: number; pageInfo: PageInfo; nodes: FoundCallRecord[] } },
  CallRecordFilter & { first: number; after?: string }
>(`query ConsoleCallRecords($search: String, $agentId: ID, $batchId: ID, $disposition: String, $category: String,
  $detection: String, $from: String, $to: String, $first: Int, $after: String) {
  callRecords(search: $search, agentId: $agentId, batchId: $batchId, disposition: $disposition, category: $category,
    detection: $detection, from: $from, to: $to, first: $first, after: $after) {
    totalCount ${PAGE_INFO}
    nodes { id runId attemptNumber batchId summary disposition { label category } detection { result } createdAt }
  }
}`);

/** An audit event as the Audit page lists it (`auditEvents`, `keys:admin`). */
export interface ListedAuditEvent {
  id: string;
  at: string;
  keyId: string | null;
  keyName: string | null;
  sourceIp: string | null;
  userAgent: string | null;
  operation: string;
  resourceType: string | null;
  resourceId: string | null;
  changes: Record<string, { before: unknown; after: unknown }> | null;
}

export interface AuditEventFilter {
  resourceId?: string;
  keyId?: string;
  operation?: string;
  from?: string;
  to?: string;
}

export const ConsoleAuditEvents = operation<
  { auditEvents: { totalCount: number; pageInfo: PageInfo; nodes: ListedAuditEvent[] } },
  AuditEventFilter & { first: number; after?: string }
>(`query ConsoleAuditEvents($resourceId: ID, $keyId: ID, $operation: String, $from: String, $to: String, $first: Int,
  $after: String) {
  auditEvents(resourceId: $resourceId, keyId: $keyId, operation: $operation, from: $from, to: $to, first: $first,
    after: $after) {
    totalCount ${PAGE_INFO}
    nodes { id at keyId keyName sourceIp userAgent operation resourceType resourceId changes }
  }
}`);

export const ConsoleSetBatchStatus = operation<
  { updateBatchStatus: { id: string; status: BatchStatus } },
  { id: string; status: 'PAUSED' | 'PENDING' | 'CANCELLED' }
>(
  'mutation ConsoleSetBatchStatus($id: ID!, $status: BatchStatus!) { updateBatchStatus(id: $id, status: $status) { id status } }',
);

export const ConsoleRetryFailedRuns = operation<
  { retryFailedRuns: { id: string; status: BatchStatus } },
  { id: string }
>('mutation ConsoleRetryFailedRuns($id: ID!) { retryFailedRuns(id: $id) { id status } }');

export interface AgentSummary {
  id: string;
  name: string;
  type: string;
  updatedAt: string;
  llmConfig: { provider: string; model: string } | null;
  voiceConfig: { provider: string; model: string } | null;
  transcriberConfig: { provider: string; model: string | null } | null;
  tools: { id: string }[];
}

export const ConsoleAgents = operation<{ agents: { totalCount: number; nodes: AgentSummary[] } }>(
  `query ConsoleAgents {
  agents(first: 100) {
    totalCount
    nodes { id name type updatedAt llmConfig { provider model } voiceConfig { provider model } transcriberConfig { provider model } tools { id } }
  }
}`,
);

/** A configuration object as REST has it (snake_case), fallbacks at any depth. */
export type WireConfig = Record<string, unknown>;

/** The agent's configuration members, by their GraphQL names. */
const configMembers = [
  'llmConfig',
  'voiceConfig',
  'transcriberConfig',
  'vadConfig',
  'greetingConfig',
  'goodbyeConfig',
  'extraConfig',
  'roomDurationConfig',
  'backgroundSound',
  'precallWebhook',
] as const;

export type ConfigMember = (typeof configMembers)[number];

export interface AgentTool {
  id: string;
  name: string;
  description: string;
  method: string;
  url: string;
  isEnabled: boolean;
  parameters: { name: string; type: string; required: boolean; description: string }[];
}

export type AgentDetail = {
  id: string;
  name: string;
  type: string;
  promptTemplate: string;
  createdAt: string;
  updatedAt: string;
  tools: AgentTool[];
} & Record<ConfigMember, { json: WireConfig } | null>;

const AGENT_DETAIL = `id name type promptTemplate createdAt updatedAt
  ${configMembers.map((member) => `${member} { json }`).join(' ')}
  tools { id name description method url isEnabled parameters { name type required description } }`;

export const ConsoleAgent = operation<{ agent: AgentDetail | null }, { id: string }>(
  `query ConsoleAgent($id: ID!) { agent(id: $id) { ${AGENT_DETAIL} } }`,
);

export const ConsoleUpdateAgent = operation<
  { updateAgent: AgentDetail },
  { id: string; input: Record<string, unknown> }
>(
  `mutation ConsoleUpdateAgent($id: ID!, $input: AgentUpdateInput!) { updateAgent(id: $id, input: $input) { ${AGENT_DETAIL} } }`,
);

export interface InsightRow {
  id: string;
  periodStart: string;
  periodEnd: string;
  totalCalls: number;
  issuesIdentified: number;
  issueRate: number;
  executiveSummary: string;
  createdAt: string;
}

export const ConsoleInsights = operation<{ insights: { totalCount: number; nodes: InsightRow[] } }>(
  `query ConsoleInsights {
  insights(first: 100) { totalCount nodes { id periodStart periodEnd totalCalls issuesIdentified issueRate executiveSummary createdAt } }
}`,
);

type DeliveryStatus = 'pending' | 'delivered' | 'failed';

export interface WebhookDeliveryRow {
  id: string;
  eventId: string;
  eventType: string;
  status: DeliveryStatus;
  attempts: number;
  lastResponseCode: number | null;
  lastError: string | null;
  latencyMs: number | null;
  createdAt: string;
  deliveredAt: string | null;
  nextAttemptAt: string | null;
}

export interface WebhookEndpointRow {
  id: string;
  url: string;
  description: string;
  events: string[];
  enabled: boolean;
  disabledAt: string | null;
  failingSince: string | null;
  createdAt: string;
  deliveries: { totalCount: number; nodes: WebhookDeliveryRow[] };
}

const DELIVERY =
  'id eventId eventType status attempts lastResponseCode lastError latencyMs createdAt deliveredAt nextAttemptAt';

export const ConsoleWebhookEndpoints = operation<{
  webhookEndpoints: { totalCount: number; nodes: WebhookEndpointRow[] };
}>(
  `query ConsoleWebhookEndpoints {
  webhookEndpoints(first: 50) {
    totalCount
    nodes { id url description events enabled disabledAt failingSince createdAt deliveries(first: 20) { totalCount nodes { ${DELIVERY} } } }
  }
}`,
);

export const ConsoleReplayWebhookDelivery = operation<{ replayWebhookDelivery: WebhookDeliveryRow }, { id: string }>(
  `mutation ConsoleReplayWebhookDelivery($id: ID!) { replayWebhookDelivery(id: $id) { ${DELIVERY} } }`,
);

interface PhoneNumberHealth {
  attempts: number;
  attemptsToday: number;
  answerRate: number | null;
  shortCallRate: number | null;
  voicemailShare: number | null;
  restedUntil: string | null;
  restedReason: string | null;
}

export interface PhoneNumberRow {
  id: string;
  number: string;
  label: string;
  trunkName: string;
  health: PhoneNumberHealth;
}

const PHONE_NUMBER =
  'id number label trunkName health { attempts attemptsToday answerRate shortCallRate voicemailShare restedUntil restedReason }';

export const ConsolePhoneNumbers = operation<
  { phoneNumbers: { totalCount: number; pageInfo: PageInfo; nodes: PhoneNumberRow[] } },
  { first: number; after?: string }
>(`query ConsolePhoneNumbers($first: Int, $after: String) {
  phoneNumbers(first: $first, after: $after) { totalCount ${PAGE_INFO} nodes { ${PHONE_NUMBER} } }
}`);

export const ConsoleRestPhoneNumber = operation<{ restPhoneNumber: PhoneNumberRow }, { id: string; hours: number }>(
  `mutation ConsoleRestPhoneNumber($id: ID!, $hours: Int!) { restPhoneNumber(id: $id, input: { hours: $hours }) { ${PHONE_NUMBER} } }`,
);

export const ConsoleRestorePhoneNumber = operation<{ restorePhoneNumber: PhoneNumberRow }, { id: string }>(
  `mutation ConsoleRestorePhoneNumber($id: ID!) { restorePhoneNumber(id: $id) { ${PHONE_NUMBER} } }`,
);
