// SPEC.md's integration records: available (catalog with connection status)
// and connected.
import { z } from 'zod';
import { wire } from '../wire.ts';
import { json, timestamp } from './common.ts';

export const availableIntegrationFragment = `fragment AvailableIntegrationRest on Integration {
  id name slug connectedAt organizationIntegrationId isActive isConnected schemaConfig }`;
export const availableIntegrationSchema = z
  .strictObject({
    id: z.string(),
    name: z.string(),
    slug: z.string(),
    connected_at: timestamp().nullable(),
    organization_integration_id: z.string().nullable(),
    is_active: z.boolean(),
    is_connected: z.boolean(),
    schema_config: json(),
  })
  .meta({ id: 'AvailableIntegration' });

export const connectedIntegrationFragment = `fragment ConnectedIntegrationRest on ConnectedIntegration {
  id name slug createdAt lastSyncAt lastSyncStatus lastSyncError isActive schemaConfig settings }`;
export const connectedIntegrationSchema = z
  .strictObject({
    id: z.string(),
    name: z.string(),
    slug: z.string(),
    created_at: timestamp(),
    last_sync_at: timestamp().nullable(),
    last_sync_status: z.string().nullable(),
    last_sync_error: z.string().nullable(),
    is_active: z.boolean(),
    schema_config: json(),
    settings: json(),
  })
  .meta({ id: 'ConnectedIntegration' });

export const presentIntegration = (integration: Record<string, unknown>) => wire(integration);
