// Reading the audit trail (GET /org/{org_id}/audit-events, GraphQL
// `auditEvents`): the filters, newest first. What is written, and when, is
// src/domain/audit-log.ts.
import { z } from 'zod';
import type { Prisma } from '../generated/prisma/client.ts';

const instant = () => z.iso.datetime({ offset: true, local: false });
const name = () => z.string().min(1).max(200);

export const auditEventFilter = z
  .strictObject({
    resource_id: name().optional().meta({ description: 'events of the object with this id (`agt_…`)' }),
    key_id: name().optional().meta({ description: 'events of this API key (`key_…`)' }),
    operation: name().optional().meta({ description: 'events of this mutation, e.g. `updateAgent`' }),
    from: instant().optional().meta({ description: 'events at or after this instant (RFC 3339)' }),
    to: instant().optional().meta({ description: 'events before this instant (RFC 3339)' }),
  })
  .refine((filter) => !filter.from || !filter.to || Date.parse(filter.to) >= Date.parse(filter.from), {
    path: ['to'],
    message: 'must not be before from',
  })
  .meta({ id: 'AuditEventFilter', description: 'Conditions an audit event must meet, all of them.' });

type AuditEventFilter = z.output<typeof auditEventFilter>;

/**
 * The filter as Prisma's condition. Each filter has its index within the
 * organization (prisma/schema.prisma, AuditEvent): resource, key, operation, time.
 */
export const auditEventWhere = (filter: AuditEventFilter): Prisma.AuditEventWhereInput => ({
  ...(filter.resource_id ? { resourceId: filter.resource_id } : {}),
  ...(filter.key_id ? { keyId: filter.key_id } : {}),
  ...(filter.operation ? { operation: filter.operation } : {}),
  ...(filter.from || filter.to
    ? {
        at: {
          ...(filter.from ? { gte: new Date(filter.from) } : {}),
          ...(filter.to ? { lt: new Date(filter.to) } : {}),
        },
      }
    : {}),
});

/** Newest first; events of one instant in a fixed order, so pages neither repeat nor skip. */
export const AUDIT_EVENT_ORDER: Prisma.AuditEventOrderByWithRelationInput[] = [{ at: 'desc' }, { id: 'desc' }];
