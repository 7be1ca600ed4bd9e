import { type TenantClient, tenantClient } from '../db/tenant.ts';
import type { Viewer } from '../domain/organizations.ts';
import type { Services } from '../services.ts';
import { createLoaders, type Loaders } from './loaders.ts';

/**
 * What every resolver sees: the services, the organization the API key
 * belongs to, a Prisma client confined to it, and this request's dataloaders
 * (confined to it too).
 */
export interface GraphQLContext extends Services {
  viewer: Viewer;
  prisma: TenantClient;
  loaders: Loaders;
}

export function createContext(services: Services, viewer: Viewer): GraphQLContext {
  const prisma = tenantClient(services.db.prisma, viewer.organizationId);
  return { ...services, viewer, prisma, loaders: createLoaders(prisma, services.db.sql, viewer.organizationId) };
}
