import type { Viewer } from '../auth/authenticate.ts';
import type { Database, SqlQueryable } from '../db/database.ts';
import type { RequestConsistency } from '../db/read-replicas.ts';
import { type TenantClient, tenantClient } from '../db/tenant.ts';
import { type AuditActor, type AuditedWrite, actorOf, type RequestOrigin } from '../domain/audit-log.ts';
import type { CallTransferer } from '../domain/call-transfers.ts';
import type { Scope } from '../domain/scope.ts';
import type { SecretBox } from '../domain/secrets.ts';
import type { TrunkDirectory } from '../domain/telephony.ts';
import type { BatchProgressHub } from '../events/batch-progress.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import type { OutboundPolicy } from '../outbound/request.ts';
import type { Services } from '../services.ts';
import { createLoaders, type Loaders } from './loaders.ts';
import type { ParsedBody } from './parsed-input.ts';

// Kept off the context's named members: a resolver reaches the client that
// sees every organization only through `unscopedClient`, so its uses are few
// and can be found by that name.
const unscoped = Symbol('unscoped client');

/**
 * What every resolver sees, and nothing more: the caller, a Prisma client
 * confined to its organization, this request's dataloaders (confined to it
 * too), batch-progress events and the secret box; and, for the mutations that
 * need them, the outbound URL policy, LiveKit's trunks and the cap on API keys.
 */
export interface GraphQLContext {
  viewer: Viewer;
  /** The caller's key: its id, name and scopes (what key-scope-checks.ts checks; caches may key on the scopes). */
  apiKey: { id: string; name: string | null; scopes: readonly string[] };
  db: TenantClient;
  /** The driver `db` reads through, for hand-written SQL that names the organization itself (src/db/sql/). */
  sql: SqlQueryable;
  /** Who the caller's writes are recorded as (src/schema/audited-mutations.ts). */
  actor: AuditActor;
  /** The event a mutation that appends its own is to append (audited-mutations.ts); none for the others. */
  audit?: AuditedWrite<unknown>;
  /** The primary's driver, for the writes that are one statement of their own (reportCallRecord). */
  primarySql: SqlQueryable;
  loaders: Loaders;
  events: BatchProgressHub;
  secrets: SecretBox;
  /** Where requests made on the caller's behalf may go: checked as their URLs are saved. */
  outbound: OutboundPolicy;
  /** Where trunks are created too (DIALER=livekit); null with the simulated dialer. */
  trunks: TrunkDirectory | null;
  /** What hands calls in flight to a person (DIALER=livekit); null: transfers are simulated. */
  transfers: CallTransferer | null;
  /** Unrevoked API keys the caller's organization may hold (`createApiKey`). */
  apiKeysPerOrganization: number;
  /** A REST request's body, parsed by the router: the mutation's input (src/schema/parsed-input.ts). */
  parsedBody?: ParsedBody;
  /** The HTTP request's X-Consistency token and who wrote through it, with read replicas (src/requests/consistency.ts). */
  consistency?: RequestConsistency;
  [unscoped]: PrismaClient;
}

export function createContext(
  services: Services,
  viewer: Viewer,
  parsedBody?: ParsedBody,
  consistency?: RequestConsistency,
  origin: RequestOrigin = {},
): GraphQLContext {
  return {
    viewer,
    apiKey: { id: viewer.apiKeyId, name: viewer.apiKeyName ?? null, scopes: viewer.scopes },
    ...readingFrom(services.db, viewer.organizationId),
    actor: actorOf(viewer, origin),
    primarySql: services.db.sql,
    events: services.events,
    secrets: services.secrets,
    outbound: services.webhooks,
    trunks: services.livekit?.trunks ?? null,
    transfers: services.livekit?.transfers ?? null,
    apiKeysPerOrganization: services.apiKeysPerOrganization,
    parsedBody,
    consistency,
    [unscoped]: services.db.prisma,
  };
}

/**
 * The organization's client and dataloaders over `reads` (the primary, or a read replica for a query):
 * the same tenant scope (src/db/tenant.ts) and the same SQL, which names the organization itself.
 */
export function readingFrom(reads: Database, organizationId: string): Pick<GraphQLContext, 'db' | 'loaders' | 'sql'> {
  const db = tenantClient(reads.prisma, organizationId);
  return { db, loaders: createLoaders(db, reads.sql, organizationId), sql: reads.sql };
}

/** What a domain operation runs as: the caller, through the client confined to its organization. */
export const scopeOf = (context: GraphQLContext): Scope => ({ prisma: context.db, viewer: context.viewer });

/**
 * The client that sees every organization's rows. Only what no tenant client
 * can do uses it: the caller's organization and API keys (organization.ts).
 */
export const unscopedClient = (context: GraphQLContext) => context[unscoped];

/**
 * The context a mutation's resolver runs with inside its transaction
 * (audited-mutations.ts): every client it reaches is the transaction, and
 * batch changes are announced through `announce`, which the caller calls
 * once the transaction has committed (subscribers then read what committed).
 */
export function inTransaction(
  context: GraphQLContext,
  tx: TenantClient,
  announce: (batchId: string) => void,
): GraphQLContext {
  const events = new Proxy(context.events, {
    get: (hub, property) =>
      property === 'batchChanged' ? announce : (Reflect.get(hub, property) as (...args: never[]) => unknown),
  });
  return { ...context, db: tx, events, [unscoped]: tx as unknown as PrismaClient };
}
