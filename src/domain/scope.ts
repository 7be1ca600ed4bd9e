import type { Viewer } from '../auth/authenticate.ts';
import type { TenantClient } from '../db/tenant.ts';

/** What a domain operation runs as: a client confined to the caller's organization, and the caller. */
export interface Scope {
  prisma: TenantClient;
  viewer: Viewer;
}

/** The actor recorded in `created_by`: the API key that made the change. */
export const actorOf = (scope: Scope) => scope.viewer.apiKeyId;
