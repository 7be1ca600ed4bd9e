import type { CallRecord } from '../../generated/prisma/client.ts';
import { callRecordColumns } from '../parts/call-record-columns.ts';
import type { SqlClient } from '../tx.ts';

/** A call record's members as its row keeps them; objects as their JSON (wire names). */
export interface CallRecordColumns {
  organizationId: string;
  attemptId: string;
  runId: string;
  attemptNumber: number;
  batchId: string;
  agentId: string;
  transcript: unknown[];
  detection: { result: string } | null;
  summary: string | null;
  disposition: { label: string; category: string } | null;
  data: unknown;
  sentiment: number | null;
  endedBy: string | null;
  recordingUrl: string | null;
  latency: unknown;
  callbackAt: Date | null;
  evaluations: unknown[];
  transfer: unknown;
}

const json = (value: unknown) => (value === null || value === undefined ? null : JSON.stringify(value));

/**
 * Writes an attempt's whole record (the report merged with what was there),
 * its searched words made in the organization's text search configuration
 * `language` (its transcript's turns and its summary, GET /call-records?q=);
 * answers the record as written (the report's answer, without reading it again).
 * Index: "CallRecord_attemptId_runId_organizationId_key", the upsert's conflict target.
 */
export async function writeCallRecord(
  tx: SqlClient,
  record: CallRecordColumns,
  language: string,
  now: Date,
): Promise<CallRecord> {
  const [written] = await tx.$queryRaw<CallRecord[]>`
    INSERT INTO "CallRecord" AS c ("organizationId", "attemptId", "runId", "attemptNumber", "batchId", "agentId",
      transcript, detection, "detectionResult", summary, disposition, "dispositionLabel", "dispositionCategory", data,
      sentiment, "endedBy", "recordingUrl", latency, "callbackAt", evaluations, transfer, "searchVector", "createdAt", "updatedAt")
    SELECT ${record.organizationId}, ${record.attemptId}, ${record.runId}, ${record.attemptNumber}, ${record.batchId},
      ${record.agentId}, given.transcript, ${json(record.detection)}::jsonb, ${record.detection?.result ?? null},
      given.summary, ${json(record.disposition)}::jsonb, ${record.disposition?.label ?? null},
      ${record.disposition?.category ?? null}, ${json(record.data)}::jsonb, ${record.sentiment}, ${record.endedBy},
      ${record.recordingUrl}, ${json(record.latency)}::jsonb, ${record.callbackAt}, ${json(record.evaluations)}::jsonb,
      ${json(record.transfer)}::jsonb,
      to_tsvector(${language}::regconfig, concat_ws(' ', given.summary,
        (SELECT string_agg(turn->>'text', ' ') FROM jsonb_array_elements(given.transcript) AS turn))),
      ${now}, ${now}
    FROM (SELECT ${json(record.transcript)}::jsonb AS transcript, ${record.summary}::text AS summary) AS given
    ON CONFLICT ("attemptId", "runId", "organizationId") DO UPDATE SET transcript = excluded.transcript, detection = excluded.detection,
      "detectionResult" = excluded."detectionResult", summary = excluded.summary, disposition = excluded.disposition,
      "dispositionLabel" = excluded."dispositionLabel", "dispositionCategory" = excluded."dispositionCategory",
      data = excluded.data, sentiment = excluded.sentiment, "endedBy" = excluded."endedBy",
      "recordingUrl" = excluded."recordingUrl", latency = excluded.latency, "callbackAt" = excluded."callbackAt",
      evaluations = excluded.evaluations, transfer = excluded.transfer, "searchVector" = excluded."searchVector",
      "updatedAt" = excluded."updatedAt"
    RETURNING ${callRecordColumns}`;
  return written!;
}
