// What a person's data becomes when it is erased (DELETE
// /org/{org_id}/prospects/{prospect_id}) or outlives its organization's
// `retention_days` (src/engine/retention-job.ts): the same members emptied
// either way, the rows and what is counted on them kept, so batches and
// insights still add up. Numbers become '', pre-call variables null, a call
// record's words (transcript, summary, extracted data, recording, searched
// words) empty, and its evaluations' reasons '' (they may quote the call); its
// scores, detection, disposition, sentiment and times stay.
import { Prisma } from '../../generated/prisma/client.ts';

/** The SET list of a scrubbed "RunAttempt" row. */
export const scrubbedAttempt = Prisma.sql`"toNumber" = '', "dynamicVariables" = NULL`;

/** Whether attempt `a` still holds something to scrub (a second pass writes nothing). */
export const attemptHoldsData = (a: string) =>
  Prisma.raw(`(${a}."toNumber" <> '' OR ${a}."dynamicVariables" IS NOT NULL)`);

/** The evaluations of a call record (jsonb list) with their reasons emptied. */
const withoutReasons = (evaluations: string) =>
  `COALESCE((SELECT jsonb_agg(e || jsonb_build_object('reason', '') ORDER BY i)
    FROM jsonb_array_elements(CASE jsonb_typeof(${evaluations}) WHEN 'array' THEN ${evaluations} ELSE '[]'::jsonb END)
    WITH ORDINALITY AS x(e, i)), '[]'::jsonb)`;

/** The SET list of scrubbed "CallRecord" row `c`, updated at `now`. */
export const scrubbedCallRecord = (c: string, now: Date) =>
  Prisma.sql`transcript = '[]'::jsonb, summary = NULL, data = NULL, "recordingUrl" = NULL, "searchVector" = NULL,
    "updatedAt" = ${now}, evaluations = ${Prisma.raw(withoutReasons(`${c}.evaluations`))}`;

/** A call record as the wire writes it (a webhook event's `record`), scrubbed. */
const scrubbedRecordJson = (record: string) =>
  `CASE WHEN jsonb_typeof(${record}) = 'object' THEN ${record} || jsonb_build_object('transcript', '[]'::jsonb,
    'summary', NULL, 'data', NULL, 'recording_url', NULL, 'evaluations', ${withoutReasons(`${record}->'evaluations'`)})
    ELSE ${record} END`;

/** A call attempt as the wire writes it (a `call.*` event's data, a run's `call_attempts` item), scrubbed. */
const scrubbedAttemptJson = (attempt: string) =>
  `(${attempt} || CASE WHEN ${attempt} ? 'to_number' THEN jsonb_build_object('to_number', '', 'dynamic_variables', NULL)
    ELSE '{}'::jsonb END || CASE WHEN ${attempt} ? 'record' THEN jsonb_build_object('record', ${scrubbedRecordJson(`${attempt}->'record'`)})
    ELSE '{}'::jsonb END)`;

/**
 * A webhook event's payload (`{type, timestamp, data}`) with the person's data
 * in its `data` scrubbed, whatever the event's kind: a run's prospect (names,
 * e-mail, number ''), its attempts, an attempt, a call record. What else the
 * event says (ids, statuses, outcomes, times) stays, so a replay sends the
 * same event without the person.
 */
export const scrubbedEventPayload = (payload: string) => {
  const data = `${payload}->'data'`;
  const attempts = `${data}->'call_attempts'`;
  return Prisma.raw(`CASE WHEN jsonb_typeof(${data}) = 'object' THEN jsonb_set(${payload}, '{data}', ${scrubbedAttemptJson(data)}
    || CASE WHEN ${data} ? 'prospect' THEN jsonb_build_object('prospect', jsonb_build_object('first_name', '', 'last_name', '',
      'email', '', 'phone', '')) ELSE '{}'::jsonb END
    || CASE WHEN jsonb_typeof(${attempts}) = 'array' THEN jsonb_build_object('call_attempts', COALESCE((SELECT jsonb_agg(
      ${scrubbedAttemptJson('ca')} ORDER BY ci) FROM jsonb_array_elements(${attempts}) WITH ORDINALITY AS y(ca, ci)), '[]'::jsonb))
      ELSE '{}'::jsonb END) ELSE ${payload} END`);
};
