// What an API key may do: its scopes, and the one table of what each GraphQL
// field needs. The schema checks it on every field named here
// (src/schema/key-scope-checks.ts); the REST routes run those fields, so they
// inherit the check, and the two routes that run no GraphQL operation (the runs listing's
// runs, the CSV import) name the field they stand for. The console reads the
// same table to disable what its key may not do. A root field missing from the
// table stops the schema from being built: nothing is reachable unchecked.

/** Every scope a key may hold; `*` holds all of them (the keys made before scopes, and `orgs create`'s). */
export const KEY_SCOPES = [
  'read',
  'agents:write',
  'workflows:write',
  'batches:write',
  'prospects:write',
  'telephony:write',
  'webhooks:write',
  'calls:report',
  'keys:admin',
] as const;

type KeyScope = (typeof KEY_SCOPES)[number];

/** The scope that holds every other. */
export const ALL_SCOPES = '*';

export type HeldScope = KeyScope | typeof ALL_SCOPES;

export const HELD_SCOPES: readonly HeldScope[] = [ALL_SCOPES, ...KEY_SCOPES];

/** What each scope allows, for the documentation and the console. */
export const SCOPE_DESCRIPTIONS: Record<HeldScope, string> = {
  '*': 'everything (the keys issued before scopes, and `orgs create`)',
  read: 'every read (queries, lists, subscriptions, the runs export)',
  'agents:write': 'agents, their tools and evaluations',
  'workflows:write': 'workflows and their versions',
  'batches:write': "batches, their status and settings, retries, insights' generation",
  'prospects:write': 'prospects, lists, tags, imports, consents, the do-not-call list',
  'telephony:write': 'SIP trunks and phone numbers',
  'webhooks:write': 'webhook endpoints, deliveries, the signing secret, integrations',
  'calls:report':
    "the agent worker's: read agents and their evaluations, report call outcomes and records, transfer calls",
  'keys:admin': "API keys, the organization's settings and its audit trail",
};

/** Any one of these suffices; an empty list: any valid key. */
type Needs = readonly KeyScope[];

const READ: Needs = ['read'];

/**
 * What each field needs, by `Type.field`. Every root field is here (the schema
 * refuses to build otherwise); other fields only where they show more than
 * their parent's scope does (an organization's keys).
 */
export const FIELD_SCOPES: Record<string, Needs> = {
  // Reads: any key with `read`; the worker's key reads agents too.
  'Query.agent': ['read', 'calls:report'],
  'Query.agents': ['read', 'calls:report'],
  'Query.batch': READ,
  'Query.callRecords': READ,
  'Query.batches': READ,
  'Query.connectedIntegration': READ,
  'Query.connectedIntegrations': READ,
  'Query.doNotCallNumbers': READ,
  'Query.evaluations': ['read', 'calls:report'],
  'Query.insight': READ,
  'Query.insights': READ,
  'Query.integrationBySlug': READ,
  'Query.integrations': READ,
  'Query.node': READ,
  'Query.nodes': READ,
  'Query.organization': READ,
  'Query.phoneNumber': READ,
  'Query.phoneNumbers': READ,
  'Query.prospect': READ,
  'Query.prospectLists': READ,
  'Query.prospects': READ,
  'Query.run': READ,
  'Query.runs': READ,
  'Query.sipTrunk': READ,
  'Query.sipTrunks': READ,
  'Query.tags': READ,
  'Query.webhookEndpoint': READ,
  'Query.webhookEndpoints': READ,
  'Query.workflow': READ,
  'Query.workflows': READ,
  // The caller's own key: what it may do, so a client (the console) can tell before trying.
  'Query.currentApiKey': [],
  'Query.apiKeys': ['keys:admin'],
  // Who changed what, from where: the administrators' (docs/security.md#audit-log).
  'Query.auditEvents': ['keys:admin'],
  'Organization.apiKeys': ['keys:admin'],
  'Subscription.batchProgress': READ,

  'Mutation.createAgent': ['agents:write'],
  'Mutation.updateAgent': ['agents:write'],
  'Mutation.deleteAgent': ['agents:write'],
  'Mutation.setAgentTools': ['agents:write'],
  'Mutation.createEvaluation': ['agents:write'],

  'Mutation.createWorkflow': ['workflows:write'],
  'Mutation.updateWorkflow': ['workflows:write'],
  'Mutation.publishWorkflowVersion': ['workflows:write'],

  'Mutation.createBatch': ['batches:write'],
  'Mutation.updateBatchStatus': ['batches:write'],
  'Mutation.updateBatchSettings': ['batches:write'],
  'Mutation.retryFailedRuns': ['batches:write'],
  'Mutation.generateInsight': ['batches:write'],

  'Mutation.createProspects': ['prospects:write'],
  'Mutation.importProspects': ['prospects:write'],
  'Mutation.addTagsToProspect': ['prospects:write'],
  'Mutation.createProspectList': ['prospects:write'],
  'Mutation.createTag': ['prospects:write'],
  'Mutation.eraseProspect': ['prospects:write'],
  'Mutation.addDoNotCallNumbers': ['prospects:write'],
  'Mutation.removeDoNotCallNumber': ['prospects:write'],
  'Mutation.addConsent': ['prospects:write'],
  'Mutation.revokeConsent': ['prospects:write'],

  'Mutation.createSipTrunk': ['telephony:write'],
  'Mutation.createPhoneNumber': ['telephony:write'],
  'Mutation.createPhoneNumbers': ['telephony:write'],
  'Mutation.restPhoneNumber': ['telephony:write'],
  'Mutation.restorePhoneNumber': ['telephony:write'],

  'Mutation.createWebhookEndpoint': ['webhooks:write'],
  'Mutation.updateWebhookEndpoint': ['webhooks:write'],
  'Mutation.deleteWebhookEndpoint': ['webhooks:write'],
  'Mutation.rotateWebhookEndpointSecret': ['webhooks:write'],
  'Mutation.replayWebhookDelivery': ['webhooks:write'],
  'Mutation.rotateSigningSecret': ['webhooks:write'],
  'Mutation.connectIntegration': ['webhooks:write'],
  'Mutation.disconnectIntegration': ['webhooks:write'],

  'Mutation.reportCallOutcome': ['calls:report'],
  'Mutation.reportCallRecord': ['calls:report'],
  'Mutation.transferCall': ['calls:report'],

  'Mutation.createApiKey': ['keys:admin'],
  'Mutation.rotateApiKey': ['keys:admin'],
  'Mutation.revokeApiKey': ['keys:admin'],
  'Mutation.updateOrganizationSettings': ['keys:admin'],
};

/**
 * What reading an object of these types by id (`node(id:)`, `nodes(ids:)`)
 * needs beyond `read`: the same as listing them. Without it the object reads
 * as null, as one the caller cannot see.
 */
export const NODE_TYPE_SCOPES: Record<string, Needs> = {
  ApiKey: FIELD_SCOPES['Query.apiKeys']!,
};

/** Whether a key holding `held` may use a field needing `needs`. */
export function allows(held: readonly string[], needs: readonly string[]): boolean {
  if (needs.length === 0 || held.includes(ALL_SCOPES)) return true;
  return needs.some((scope) => held.includes(scope));
}

/** Whether every scope of `wanted` is held by `held` (a key may grant only what it holds itself). */
export const holdsAll = (held: readonly string[], wanted: readonly string[]) =>
  held.includes(ALL_SCOPES) || wanted.every((scope) => scope !== ALL_SCOPES && held.includes(scope));

/** The federation subgraph's (FEDERATION=on) table: the schema's, and the root fields a router calls. */
export const SUBGRAPH_FIELD_SCOPES: Record<string, Needs> = {
  ...FIELD_SCOPES,
  // The entities a router resolves are reads; the subgraph's SDL tells nothing of the organization's data.
  'Query._entities': READ,
  'Query._service': [],
};
