// An audit event as GET /org/{org_id}/audit-events and the console show it:
// who changed what, when and from where (src/domain/audit-log.ts).
import { z } from 'zod';
import { record, timestamp } from './record.ts';
import { jsonValue } from './values.ts';

export const auditEvent = record(
  { id: 'AuditEvent' },
  {
    id: z.string(),
    at: timestamp(),
    key_id: z.string().nullable().meta({ description: 'The API key that made the change; null from the CLI' }),
    key_name: z.string().nullable().meta({ description: "The key's name when the change was made" }),
    source_ip: z.string().nullable().meta({ description: "The request's peer address" }),
    user_agent: z.string().nullable().meta({ description: "The request's User-Agent" }),
    operation: z.string().meta({ description: 'The GraphQL mutation the change ran as, e.g. `updateAgent`' }),
    resource_type: z.string().nullable().meta({ description: 'The type of the object changed, e.g. `Agent`' }),
    resource_id: z.string().nullable().meta({ description: 'Its id; null when the write has no single object' }),
    changes: jsonValue()
      .nullable()
      .meta({ description: 'For a change of an existing object: {member: {before, after}}, secrets masked' }),
  },
);
