import type { Database } from '../db/database.ts';
import { type TenantClient, tenantClient } from '../db/tenant.ts';
import type { Viewer } from '../domain/organizations.ts';
import type { SecretBox } from '../domain/secrets.ts';
import { createLoaders, type Loaders } from './loaders.ts';

/**
 * What every resolver sees: the organization the API key belongs to, a Prisma
 * client confined to it, and this request's dataloaders (built on that client).
 */
export interface GraphQLContext {
  db: Database;
  viewer: Viewer;
  prisma: TenantClient;
  loaders: Loaders;
  secrets: SecretBox;
}

export function createContext(db: Database, secrets: SecretBox, viewer: Viewer): GraphQLContext {
  const prisma = tenantClient(db.prisma, viewer.organizationId);
  return { db, viewer, prisma, secrets, loaders: createLoaders(prisma, viewer.organizationId) };
}
