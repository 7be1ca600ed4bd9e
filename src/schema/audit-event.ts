// The audit trail (src/domain/audit-log.ts), read with `keys:admin`
// (src/key-scopes.ts): who changed what, when and from where. Not a Relay
// node: `node(id:)` needs only `read`, and the trail is the administrators'.
import { AUDIT_EVENT_ORDER, auditEventFilter, auditEventWhere } from '../domain/audit-events.ts';
import { builder } from './builder.ts';
import { modelConnection } from './pagination.ts';
import { parseOnce } from './parsed-input.ts';

const AuditEvent = builder.prismaObject('AuditEvent', {
  description: 'A write an API caller (or the CLI) made, appended in its transaction and never changed.',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'Its id (`aud_…`).' }),
    at: t.expose('at', { type: 'DateTime', description: 'When the write was made (its transaction began).' }),
    keyId: t.exposeID('keyId', { nullable: true, description: 'The API key that made it; null from the CLI.' }),
    keyName: t.exposeString('keyName', { nullable: true, description: "The key's name then, if it had one." }),
    sourceIp: t.exposeString('sourceIp', { nullable: true, description: "The request's peer address." }),
    userAgent: t.exposeString('userAgent', { nullable: true, description: "The request's User-Agent." }),
    operation: t.exposeString('operation', {
      description: 'The mutation it ran as (REST runs the same ones), e.g. `updateAgent`.',
    }),
    resourceType: t.exposeString('resourceType', {
      nullable: true,
      description: 'The type of the object written, e.g. `Agent`; null when the write has no single object.',
    }),
    resourceId: t.exposeString('resourceId', { nullable: true, description: 'The id of the object written.' }),
    changes: t.expose('changes', {
      type: 'JSON',
      nullable: true,
      description:
        'For a change of an existing object, the members changed: `{member: {before, after}}`; secrets, credentials, ' +
        "headers and a person's data show `[redacted]`. Null for creations and deletions.",
    }),
  }),
});

builder.queryFields((t) => ({
  auditEvents: t.connection({
    type: AuditEvent,
    description: "The organization's audit trail, newest first (`GET /audit-events`); needs `keys:admin`.",
    args: {
      resourceId: t.arg.id({ description: 'Events of the object with this id (`agt_…`).' }),
      keyId: t.arg.id({ description: 'Events of this API key (`key_…`).' }),
      operation: t.arg.string({ description: 'Events of this mutation, e.g. `updateAgent`.' }),
      from: t.arg.string({ description: 'Events at or after this instant (RFC 3339).' }),
      to: t.arg.string({ description: 'Events before this instant (RFC 3339).' }),
    },
    resolve: (_root, args, context) => {
      const filter = parseOnce(context, auditEventFilter, () => ({
        resource_id: args.resourceId == null ? undefined : String(args.resourceId),
        key_id: args.keyId == null ? undefined : String(args.keyId),
        operation: args.operation ?? undefined,
        from: args.from ?? undefined,
        to: args.to ?? undefined,
      }));
      return modelConnection(args, context.db.auditEvent, {
        where: auditEventWhere(filter),
        orderBy: AUDIT_EVENT_ORDER,
      });
    },
  }),
}));
