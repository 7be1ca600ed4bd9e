import { Prisma } from '../../generated/prisma/client.ts';

/** An event to write: its type, organization, and the row it is about (a kind, an id, a number for attempts). */
export interface EventRow {
  type: string;
  organizationId: string;
  kind: string;
  id: string;
  number: number;
}

/** How the events of one kind of subject reach their row (`join` on `wanted w`) and build their `data`. */
export interface SubjectSource {
  kind: string;
  join: string;
  objectId: string;
  data: string;
}

/**
 * The writes of the events some enabled endpoint of their organization
 * subscribes to (`allEvents`: the subscription to every type), with one
 * delivery per such endpoint, as a WITH list ending in `deliveries` (its
 * names: stamp, wanted, subjects, events, deliveries): the whole of
 * src/db/sql/write-webhook-events.ts, and the events of a statement that
 * writes their subject itself (src/db/sql/report-call-record.ts, whose source
 * joins the row it wrote). Nothing is written when no endpoint wants them.
 * Event ids: src/domain/webhook-events.ts.
 * Index: the endpoints on "WebhookEndpoint_organizationId_createdAt_idx" (an
 * organization's few rows); the subjects on their primary keys.
 */
export function webhookEventWrites(
  events: EventRow[],
  sources: SubjectSource[],
  ids: { allEvents: string; objectPrefixDigits: number },
  at: Date,
): Prisma.Sql {
  // `wanted`: the events in order, each with what its kind joins on; then one SELECT per kind present.
  const subjects = sources.map(
    (source) => `SELECT w.position, w.type, w.org, ${source.objectId} AS object_id, ${source.data} AS data
        FROM wanted w ${source.join} WHERE w.kind = '${source.kind}' AND w.subscribed`,
  );
  return Prisma.sql`
    stamp AS MATERIALIZED (SELECT clock_timestamp() AS at),
    wanted AS (
      SELECT given.*, EXISTS (
        SELECT 1 FROM "WebhookEndpoint" e
        WHERE e."organizationId" = given.org AND e.enabled AND e.events && ARRAY[given.type, ${ids.allEvents}]) AS subscribed
      FROM unnest(${events.map((event) => event.type)}::text[], ${events.map((event) => event.organizationId)}::text[],
        ${events.map((event) => event.kind)}::text[], ${events.map((event) => event.id)}::text[],
        ${events.map((event) => event.number)}::int[])
        WITH ORDINALITY AS given(type, org, kind, id, number, position)
    ),
    subjects AS (${Prisma.raw(subjects.join(' UNION ALL '))}),
    events AS (
      INSERT INTO "WebhookEvent" (id, "organizationId", type, "objectId", payload, "createdAt")
      SELECT 'evt_' || left(md5(s.object_id), ${ids.objectPrefixDigits}) || lpad(to_hex((extract(epoch FROM stamp.at) * 1000000)::bigint), 14, '0')
          || lpad(to_hex(s.position), 6, '0') || left(replace(gen_random_uuid()::text, '-', ''), 8),
        s.org, s.type, s.object_id, jsonb_build_object('type', s.type, 'timestamp', ${at.toISOString()}::text, 'data', s.data), stamp.at
      FROM subjects s CROSS JOIN stamp
      RETURNING id, "organizationId", type, "createdAt"
    ),
    deliveries AS (
      INSERT INTO "WebhookDelivery" ("organizationId", "endpointId", "eventId", "nextAttemptAt", "createdAt")
      SELECT ev."organizationId", e.id, ev.id, ev."createdAt", ev."createdAt"
      FROM events ev JOIN "WebhookEndpoint" e
        ON e."organizationId" = ev."organizationId" AND e.enabled AND e.events && ARRAY[ev.type, ${ids.allEvents}]
      RETURNING 1
    )`;
}
