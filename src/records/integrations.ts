// SPEC.md's integration records: available (the catalog with the
// organization's connection status) and connected.
import { z } from 'zod';
import { record, timestamp, value } from './record.ts';
import { jsonValue } from './values.ts';

export const availableIntegration = record(
  { id: 'AvailableIntegration' },
  {
    id: z.string(),
    name: z.string(),
    slug: z.string(),
    connected_at: timestamp().nullable(),
    organization_integration_id: z.string().nullable(),
    is_active: z.boolean(),
    is_connected: z.boolean(),
    schema_config: jsonValue(),
  },
);

/** A member of the connection's catalog entry (the catalog is shared: it has no organization). */
const ofCatalog = (column: string) => (c: string) =>
  `(SELECT i."${column}" FROM "Integration" AS i WHERE i.id = ${c}."integrationId")`;

/** GET /integrations/{id}; an `integration.connected` event's data. */
export const connectedIntegration = record(
  { id: 'ConnectedIntegration' },
  {
    id: z.string(),
    name: value(z.string(), { sql: ofCatalog('name') }),
    slug: value(z.string(), { sql: ofCatalog('slug') }),
    created_at: timestamp(),
    last_sync_at: timestamp().nullable(),
    last_sync_status: z.string().nullable(),
    last_sync_error: z.string().nullable(),
    is_active: z.boolean(),
    schema_config: value(jsonValue(), { sql: ofCatalog('schemaConfig') }),
    settings: jsonValue(),
  },
);
