// The audit trail (src/schema/audit-event.ts): GET /audit-events, with the
// `keys:admin` scope, in envelope A.
import { auditEventFilter } from '../../domain/audit-events.ts';
import { auditEvent } from '../../records/audit-events.ts';
import { operationRoute, pageArgs, pageLimitQuery, paginationEnvelope, paginationEnvelopeSchema } from '../route.ts';

const auditEventsQuery = pageLimitQuery.extend(auditEventFilter.shape);

export const auditEventRoutes = [
  operationRoute({
    method: 'GET',
    path: '/audit-events',
    endpoint: null,
    summary:
      "List the organization's audit trail (who wrote what, when, from where), newest first, by object, key, " +
      'operation and time',
    operation: `query($resourceId: ID, $keyId: ID, $operation: String, $from: String, $to: String, $first: Int,
      $after: String) {
      auditEvents(resourceId: $resourceId, keyId: $keyId, operation: $operation, from: $from, to: $to,
        first: $first, after: $after) { totalCount nodes { ${auditEvent.selection} } } }`,
    query: auditEventsQuery,
    variables: ({ query }) => ({
      resourceId: query.resource_id ?? null,
      keyId: query.key_id ?? null,
      operation: query.operation ?? null,
      from: query.from ?? null,
      to: query.to ?? null,
      ...pageArgs(query.page, query.limit),
    }),
    respond: (data, { query }) => paginationEnvelope(data.auditEvents, query.page, query.limit, auditEvent.present),
    response: paginationEnvelopeSchema(auditEvent.schema),
  }),
];
