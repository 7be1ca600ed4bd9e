import { type CallRecord, Prisma } from '../../generated/prisma/client.ts';
import type { SqlQueryable } from '../database.ts';
import { callRecordColumns } from '../parts/call-record-columns.ts';
import { lockedCallRecordTarget } from '../parts/call-record-target.ts';
import { selectRows } from '../select-rows.ts';
import type { SqlClient } from '../tx.ts';

/**
 * Text as said and as masked: the statement keeps the one the organization's
 * `redact_pii` asks for. `masked` null: nothing was masked (sent once).
 */
interface Said<T> {
  said: T;
  masked: T | null;
}

/** A part of a record as reported, its lists already one item per key; null: the member was not given. */
export interface CallRecordPart {
  /** Turns ordered by start, one per role and start. */
  transcript: Said<unknown[]> | null;
  summary: Said<string> | null;
  detection: { result: string } | null;
  disposition: { label: string; category: string } | null;
  /** Given: `{value}` (null included). */
  data: { value: unknown } | null;
  sentiment: number | null;
  endedBy: string | null;
  recordingUrl: string | null;
  latency: unknown;
  callbackAt: Date | null;
  /** One per evaluation id. */
  evaluations: { evaluation_id: number }[] | null;
}

/** The audit event the statement appends with the record (src/domain/audit-log.ts). */
export interface AuditRow {
  keyId: string | null;
  keyName: string | null;
  sourceIp: string | null;
  userAgent: string | null;
  operation: string;
  resourceType: string | null;
  resourceId: string | null;
}

export interface ReportedCallRecord {
  /** 0: no such attempt of the organization's run. */
  found: number;
  /** The agent of the attempt's call step (empty when it names none). */
  stepAgentId: string | null;
  /** Evaluation ids of the part that are not that agent's: nothing was written. */
  foreignEvaluations: number[];
  /** Whether the attempt's call was in flight. */
  inFlight: boolean;
  /** The record as written; null when nothing was (an evaluation or the turns' bound refused). */
  record: CallRecord | null;
  /** Whether the part changed the record (a new one did). */
  changed: boolean;
}

/**
 * How events about the record (`call.record.completed`) reach the record this
 * statement wrote, once the call has ended and only when the part changed it:
 * the other parts of a statement see the table as it was before it.
 */
export const REPORTED_RECORD = {
  join: 'JOIN reported c ON c."runId" = w.id AND c."attemptNumber" = w.number',
  objectId: 'c."runId"',
};

const json = (value: unknown) => (value === null || value === undefined ? null : JSON.stringify(value));

/** The turns and summary's words, in the organization's text search configuration (GET /call-records?q=). */
const wordsOf = (turns: string, summary: string, language: string) =>
  Prisma.raw(`to_tsvector(${language}::regconfig, concat_ws(' ', ${summary},
    (SELECT string_agg(turn->>'text', ' ') FROM jsonb_array_elements(${turns}) AS turn)))`);

/** `kept` and `given`'s items by `key` (a later one in place of an earlier, where the first was), ordered by `order`. */
const mergedBy = (kept: string, given: string, key: string, order: string) =>
  Prisma.raw(`(SELECT coalesce(jsonb_agg(merged.item ORDER BY ${order}), '[]'::jsonb) FROM (
      SELECT (array_agg(items.item ORDER BY items.place DESC))[1] AS item, min(items.place) AS place
      FROM (SELECT item, place FROM jsonb_array_elements(${kept}) WITH ORDINALITY AS kept(item, place)
        UNION ALL SELECT item, 1000000 + place FROM jsonb_array_elements(${given}) WITH ORDINALITY AS given(item, place)) AS items
      GROUP BY ${key}) AS merged)`);

const TURN_KEY = `items.item->>'role', items.item->>'started_ms'`;
const mergedTurns = mergedBy(
  'c.transcript',
  'excluded.transcript',
  TURN_KEY,
  `(merged.item->>'started_ms')::numeric, merged.place`,
);
const mergedEvaluations = mergedBy(
  'c.evaluations',
  'excluded.evaluations',
  `items.item->>'evaluation_id'`,
  'merged.place',
);

/**
 * Adds `part` to the record of attempt `attemptNumber` of the organization's
 * run `runId`, in one statement (its own transaction when `tx` is none): the
 * attempt locked (lockedCallRecordTarget: reports of one attempt one after
 * the other), the evaluations checked to be the step's agent's, the part
 * merged into the record as it is when the attempt is held (INSERT … ON
 * CONFLICT DO UPDATE reads the row's latest version, not the statement's
 * snapshot: a part committed while this one waited is kept), turns kept by
 * role and start, evaluations by id, other members given replacing theirs.
 * Past `maxTurns` in all, or with an evaluation of another agent, nothing is
 * written. With the record: the attempt's reported outcome (`reportedOutcome`,
 * only while its call is in flight), the audit event (`audit`), and `events`
 * (a WITH list; REPORTED_RECORD reaches the record, which only a part
 * after the call that changed it gives). The searched words are made again
 * only when the turns or the summary changed.
 * Index: see lockedCallRecordTarget; "Evaluation_pkey"; "CallRecord_attemptId_runId_organizationId_key", the upsert's conflict target.
 */
export async function reportCallRecord(
  client: SqlQueryable | SqlClient,
  where: { organizationId: string; runId: string; attemptNumber: number },
  part: CallRecordPart,
  effects: { reportedOutcome: string | null; audit: AuditRow | null; events: Prisma.Sql },
  maxTurns: number,
  now: Date,
): Promise<ReportedCallRecord> {
  const { organizationId, runId, attemptNumber } = where;
  const { audit, reportedOutcome } = effects;
  const statement = Prisma.sql`
    WITH target AS MATERIALIZED (${lockedCallRecordTarget(organizationId, runId, attemptNumber)}),
    foreign_evaluations AS (
      SELECT coalesce(array_agg(given.id ORDER BY given.id), '{}'::int[]) AS ids
      FROM unnest(${(part.evaluations ?? []).map((item) => item.evaluation_id)}::int[]) AS given(id)
      WHERE NOT EXISTS (SELECT 1 FROM "Evaluation" AS e JOIN target AS t ON e."agentId" = t."agentId"
        WHERE e.id = given.id AND e."organizationId" = ${organizationId})
    ),
    part AS (
      SELECT t.*,
        coalesce(CASE WHEN t."redactPii" THEN ${json(part.transcript?.masked)}::jsonb END,
          ${json(part.transcript?.said ?? [])}::jsonb) AS turns,
        coalesce(CASE WHEN t."redactPii" THEN ${part.summary?.masked ?? null}::text END, ${part.summary?.said ?? null}::text) AS said
      FROM target AS t
      WHERE cardinality((SELECT ids FROM foreign_evaluations)) = 0
    ),
    upserted AS (
      INSERT INTO "CallRecord" AS c ("organizationId", "attemptId", "runId", "attemptNumber", "batchId", "agentId",
        transcript, detection, "detectionResult", summary, disposition, "dispositionLabel", "dispositionCategory", data,
        sentiment, "endedBy", "recordingUrl", latency, "callbackAt", evaluations, "searchVector", "createdAt", "updatedAt")
      SELECT ${organizationId}, p."attemptId", p."runId", ${attemptNumber}, p."batchId", p."agentId", p.turns,
        ${json(part.detection)}::jsonb, ${part.detection?.result ?? null}, p.said, ${json(part.disposition)}::jsonb,
        ${part.disposition?.label ?? null}, ${part.disposition?.category ?? null}, ${json(part.data?.value)}::jsonb,
        ${part.sentiment}::float8, ${part.endedBy}, ${part.recordingUrl}, ${json(part.latency)}::jsonb,
        ${part.callbackAt}::timestamptz, ${json(part.evaluations ?? [])}::jsonb,
        ${wordsOf('p.turns', 'p.said', 'p."transcriptLanguage"')}, ${now}, ${now}
      FROM part AS p
      ON CONFLICT ("attemptId", "runId", "organizationId") DO UPDATE SET (transcript, detection, "detectionResult", summary, disposition,
        "dispositionLabel", "dispositionCategory", data, sentiment, "endedBy", "recordingUrl", latency, "callbackAt",
        evaluations, "searchVector", "updatedAt") = (
        SELECT m.transcript, m.detection, m.detection->>'result', m.summary, m.disposition, m.disposition->>'label',
          m.disposition->>'category', m.data, m.sentiment, m."endedBy", m."recordingUrl", m.latency, m."callbackAt",
          m.evaluations,
          CASE WHEN m.transcript = c.transcript AND m.summary IS NOT DISTINCT FROM c.summary THEN c."searchVector"
            ELSE ${wordsOf('m.transcript', 'm.summary', '(SELECT t."transcriptLanguage" FROM target AS t)')} END,
          CASE WHEN (m.transcript, m.detection, m.summary, m.disposition, m.data, m.sentiment, m."endedBy",
              m."recordingUrl", m.latency, m."callbackAt", m.evaluations)
            IS DISTINCT FROM (c.transcript, c.detection, c.summary, c.disposition, c.data, c.sentiment, c."endedBy",
              c."recordingUrl", c.latency, c."callbackAt", c.evaluations)
            THEN ${now}::timestamptz ELSE c."updatedAt" END
        FROM (SELECT
          CASE WHEN jsonb_array_length(excluded.transcript) = 0 THEN c.transcript ELSE ${mergedTurns} END AS transcript,
          coalesce(excluded.detection, c.detection) AS detection, coalesce(excluded.summary, c.summary) AS summary,
          coalesce(excluded.disposition, c.disposition) AS disposition,
          CASE WHEN ${part.data !== null} THEN excluded.data ELSE c.data END AS data,
          coalesce(excluded.sentiment, c.sentiment) AS sentiment, coalesce(excluded."endedBy", c."endedBy") AS "endedBy",
          coalesce(excluded."recordingUrl", c."recordingUrl") AS "recordingUrl",
          coalesce(excluded.latency, c.latency) AS latency, coalesce(excluded."callbackAt", c."callbackAt") AS "callbackAt",
          CASE WHEN jsonb_array_length(excluded.evaluations) = 0 THEN c.evaluations ELSE ${mergedEvaluations} END
            AS evaluations) AS m)
      WHERE jsonb_array_length(excluded.transcript) = 0 OR (SELECT count(DISTINCT (${Prisma.raw(TURN_KEY)})) FROM (
        SELECT item FROM jsonb_array_elements(c.transcript) AS kept(item)
        UNION ALL SELECT item FROM jsonb_array_elements(excluded.transcript) AS given(item)) AS items) <= ${maxTurns}
      RETURNING ${callRecordColumns}, c."updatedAt" = ${now}::timestamptz AS changed
    ),
    ${
      reportedOutcome
        ? Prisma.sql`outcome AS (
      UPDATE "RunAttempt" AS a SET "reportedOutcome" = ${reportedOutcome}::"CallOutcome"
      FROM target AS t WHERE a.id = t."attemptId" AND a."runId" = t."runId" AND t."endedAt" IS NULL AND EXISTS (SELECT 1 FROM upserted)
      RETURNING 1
    ),`
        : Prisma.empty
    }
    ${
      audit
        ? Prisma.sql`audit AS (
      INSERT INTO "AuditEvent" ("organizationId", "keyId", "keyName", "sourceIp", "userAgent", operation,
        "resourceType", "resourceId")
      SELECT ${organizationId}, ${audit.keyId}, ${audit.keyName}, ${audit.sourceIp}, ${audit.userAgent},
        ${audit.operation}, ${audit.resourceType}, ${audit.resourceId}
      FROM upserted
      RETURNING 1
    ),`
        : Prisma.empty
    }
    reported AS (SELECT u.* FROM upserted AS u, target AS t WHERE u.changed AND t."endedAt" IS NOT NULL),
    ${effects.events}
    SELECT (SELECT count(*) FROM target)::int AS found, (SELECT ids FROM foreign_evaluations) AS "foreignEvaluations",
      (SELECT t."agentId" FROM target AS t) AS "stepAgentId", (SELECT t."endedAt" IS NULL FROM target AS t) AS "inFlight",
      u.*
    FROM (SELECT 1) AS one LEFT JOIN upserted AS u ON true`;
  type Row = CallRecord & Omit<ReportedCallRecord, 'record'>;
  // Prepared: its text is one of four (with or without the outcome and the audit event), and planning it cost
  // about as much as running it (BENCHMARKS.md (l)).
  const [answer] =
    'query' in client
      ? await selectRows<Row>(client, statement, { prepared: 'fixed' })
      : await client.$queryRaw<Row[]>(statement);
  const { found, stepAgentId, foreignEvaluations, inFlight, changed, ...record } = answer!;
  return {
    found,
    stepAgentId,
    foreignEvaluations,
    inFlight: inFlight ?? false,
    changed: changed ?? false,
    record: record.id ? (record as CallRecord) : null,
  };
}
