// A call record: what was said and decided on one call attempt, as its agent
// worker reports it (POST /runs/{run_id}/attempts/{attempt}/record). Each
// object member is one zod schema, the report's and the record's alike; the
// record is what GET /runs/{run_id} (`call_attempts[i].record`), GET
// /call-records and the `call.record.completed` event show.
import { z } from 'zod';
import { jsonList, jsonObject, record, timestamp, value } from './record.ts';
import { fraction, int, integer, jsonValue } from './values.ts';

/** What one record may hold at most: past these, a report is refused naming the member. */
export const CALL_RECORD_BOUNDS = {
  /** Turns of a transcript, over every part reported. */
  turns: 2_000,
  /** Characters of one turn's text. */
  turnText: 10_000,
  /** Characters of the summary. */
  summary: 20_000,
  /** Bytes of `data` as JSON. */
  dataBytes: 64 * 1024,
  /** Characters of a label, a reason, an address. */
  label: 200,
  reason: 2_000,
  url: 2_048,
  /** Evaluations scored by one record. */
  evaluations: 100,
} as const;

const milliseconds = () => int(0, 86_400_000);

const turnRoles = ['agent', 'callee', 'system'] as const;

export const transcriptTurn = z
  .strictObject({
    role: z.enum(turnRoles).meta({ description: 'who spoke' }),
    text: z.string().max(CALL_RECORD_BOUNDS.turnText).meta({ description: 'what was said' }),
    started_ms: milliseconds().meta({ description: "when the turn started, in ms from the call's start" }),
    ended_ms: milliseconds().meta({ description: "when it ended, in ms from the call's start" }),
  })
  .refine((turn) => turn.ended_ms >= turn.started_ms, { path: ['ended_ms'], message: 'must not be before started_ms' })
  .meta({ id: 'TranscriptTurn', description: 'One turn of the conversation.' });
export type TranscriptTurn = z.output<typeof transcriptTurn>;

/** What answered: a person, or a machine of some kind. */
const detectionResults = ['human', 'voicemail', 'ivr', 'call_screening', 'unavailable'] as const;

export const callDetection = z
  .strictObject({
    result: z.enum(detectionResults).meta({ description: 'what answered the call' }),
    confidence: fraction().meta({ description: 'how sure the detector is, 0 to 1' }),
    detected_ms: milliseconds().meta({ description: "when it was decided, in ms from the call's start" }),
  })
  .meta({
    id: 'CallDetection',
    description:
      'What answered. Reported while the call is in flight, `voicemail`, `ivr` and `call_screening` end the attempt with that outcome.',
  });

const dispositionCategories = ['success', 'neutral', 'issue'] as const;

export const callDisposition = z
  .strictObject({
    label: z.string().min(1).max(CALL_RECORD_BOUNDS.label).meta({ description: 'what the call achieved, in words' }),
    category: z.enum(dispositionCategories).meta({ description: 'its kind: an `issue` counts in insights' }),
  })
  .meta({ id: 'CallDisposition', description: 'What the call achieved.' });

export const agentLatency = z
  .strictObject({
    p50_ms: milliseconds().meta({ description: "the median of the agent's response time, ms" }),
    p95_ms: milliseconds().meta({ description: 'its 95th percentile, ms' }),
  })
  .meta({ id: 'AgentLatency', description: "The agent's response time over the call." });

export const evaluationResult = z
  .strictObject({
    evaluation_id: int(1).meta({ description: "one of the agent's evaluations (GET /agents/{agent_id}/evaluations)" }),
    score: int(0, 100).meta({ description: 'the score, 0 to 100' }),
    passed: z.boolean().meta({ description: 'whether the call passed it' }),
    reason: z.string().max(CALL_RECORD_BOUNDS.reason).default('').meta({ description: 'why, in words' }),
  })
  .meta({ id: 'EvaluationResult', description: "How the call did on one of its agent's evaluations." });

export const endedByValues = ['agent', 'callee', 'system'] as const;

const transferModes = ['cold'] as const;

export const callTransfer = z
  .strictObject({
    to: z.string().meta({ description: 'who took the call: an E.164 number or a sip: URI' }),
    mode: z.enum(transferModes).meta({ description: '`cold`: the callee is handed over, the agent leaves' }),
    at: z.string().meta({ format: 'date-time', description: 'when the transfer was made' }),
    status: z.enum(['transferred', 'failed']).meta({ description: 'whether the person took the call' }),
    reason: z.string().nullable().meta({ description: 'why it failed; null when it did not' }),
  })
  .meta({ id: 'CallTransfer', description: 'The call handed to a person.' });

/** An item of `call_attempts[i].record`, GET /call-records, the `call.record.completed` event. */
export const callRecord = record(
  { id: 'CallRecord' },
  {
    id: z.string(),
    run_id: z.string(),
    attempt: value(integer(), { field: 'attemptNumber', sql: (c) => `${c}."attemptNumber"` }),
    agent_id: z.string(),
    batch_id: z.string(),
    transcript: jsonList(z.array(transcriptTurn)),
    detection: jsonObject(callDetection.nullable()),
    summary: z.string().nullable(),
    disposition: jsonObject(callDisposition.nullable()),
    data: jsonValue().nullable(),
    sentiment: z.number().nullable(),
    ended_by: z.enum(endedByValues).nullable(),
    recording_url: z.string().nullable(),
    latency: jsonObject(agentLatency.nullable()),
    callback_at: timestamp().nullable(),
    evaluations: jsonList(z.array(evaluationResult)),
    transfer: jsonObject(callTransfer.nullable()),
    created_at: timestamp(),
    updated_at: timestamp(),
  },
);
