// SPEC.md's integration records: available (the catalog with the
// organization's connection status) and connected.
import { z } from 'zod';
import { record, timestamp, value } from './record.ts';
import { jsonValue } from './values.ts';

export const availableIntegration = record(
  { id: 'AvailableIntegration' },
  {
    id: value(z.string()),
    name: value(z.string()),
    slug: value(z.string()),
    connected_at: timestamp().nullable(),
    organization_integration_id: value(z.string().nullable()),
    is_active: value(z.boolean()),
    is_connected: value(z.boolean()),
    schema_config: value(jsonValue()),
  },
);

/** A member of the connection's catalog entry (the catalog is shared: it has no organization). */
const ofCatalog = (column: string) => (c: string) =>
  `(SELECT i."${column}" FROM "Integration" AS i WHERE i.id = ${c}."integrationId")`;

/** GET /integrations/{id}; an `integration.connected` event's data. */
export const connectedIntegration = record(
  { id: 'ConnectedIntegration' },
  {
    id: value(z.string()),
    name: value(z.string(), { sql: ofCatalog('name') }),
    slug: value(z.string(), { sql: ofCatalog('slug') }),
    created_at: timestamp(),
    last_sync_at: timestamp().nullable(),
    last_sync_status: value(z.string().nullable()),
    last_sync_error: value(z.string().nullable()),
    is_active: value(z.boolean()),
    schema_config: value(jsonValue(), { sql: ofCatalog('schemaConfig') }),
    settings: value(jsonValue()),
  },
);
