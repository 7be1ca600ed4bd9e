// The `data` of each webhook event: the record of its object as GET answers
// it, built by the database from the rows in the same statement that writes
// the event (write-webhook-events.ts), from the records' own declarations
// (src/records/): the SQL pieces of that statement, one per kind of object.
// Each reads its object's row by primary key, and its children by their
// parent's key (Run by batch, RunAttempt by run, AgentTool by agent).
import { z } from 'zod';
import { agent } from '../../records/agents.ts';
import { callRecord } from '../../records/call-records.ts';
import { connectedIntegration } from '../../records/integrations.ts';
import { type Members, nested, type RecordShape, record, timestamp, value } from '../../records/record.ts';
import { integer } from '../../records/values.ts';
import { webhookEndpoint } from '../../records/webhooks.ts';
import { batch, callAttempt, run } from '../../records/workflows.ts';

/** A call attempt's event carries its run, batch and prospect (`r`: its run, joined below). */
const attemptEvent = callAttempt.extend(
  {},
  {
    run_id: value(z.string(), { sql: (a) => `${a}."runId"` }),
    batch_id: value(z.string(), { sql: (a) => `${a}."batchId"` }),
    prospect_id: value(z.string(), { sql: () => 'r."prospectId"' }),
  },
);

/** A call record's event: its run, its attempt's number, and the record. */
const recordEvent = record(
  {},
  {
    run_id: value(z.string(), { sql: (c) => `${c}."runId"` }),
    attempt: value(integer(), { sql: (c) => `${c}."attemptNumber"` }),
    record: nested(callRecord),
  },
);

/**
 * A `prospect.erased` event: the prospect's id and when it was erased, never
 * anything of the person (DELETE /org/{org_id}/prospects/{prospect_id}).
 */
const prospectErasedEvent = record(
  {},
  {
    id: z.string(),
    erased_at: timestamp(),
  },
);

/** A `phone_number.rested` event: the number, until when it rests, and why (number health, or `manual`). */
const restedNumberEvent = record(
  {},
  {
    id: z.string(),
    number: z.string(),
    sip_trunk_id: z.string(),
    rested_until: timestamp().nullable(),
    rested_reason: z.string().nullable(),
  },
);

/** The record of the row `row` as jsonb. */
const dataOf = <M extends Members>(shape: RecordShape<M>, row: string) => `to_jsonb(${shape.sqlRow(row)})`;

/** What an event is about: the row its data is read from. */
export type EventSubject =
  | { kind: 'batch'; id: string }
  | { kind: 'run'; id: string }
  | { kind: 'attempt'; runId: string; number: number }
  | { kind: 'record'; runId: string; number: number }
  | { kind: 'agent'; id: string }
  | { kind: 'integration'; id: string }
  | { kind: 'endpoint'; id: string }
  | { kind: 'erasedProspect'; id: string }
  | { kind: 'restedNumber'; id: string };

export type SubjectKind = EventSubject['kind'];

/**
 * Per kind: the rows of `wanted` (its columns: id, number, and what the
 * caller carries along) joined to their object's row, the object id events
 * are ordered by, and the event's data.
 */
export const subjectSources: Record<SubjectKind, { join: string; objectId: string; data: string }> = {
  batch: { join: 'JOIN "Batch" b ON b.id = w.id', objectId: 'b.id', data: dataOf(batch, 'b') },
  run: { join: 'JOIN "Run" r ON r.id = w.id', objectId: 'r.id', data: dataOf(run, 'r') },
  // A call attempt's events are ordered with its run's.
  attempt: {
    join: 'JOIN "RunAttempt" a ON a."runId" = w.id AND a.number = w.number JOIN "Run" r ON r.id = a."runId"',
    objectId: 'r.id',
    data: dataOf(attemptEvent, 'a'),
  },
  // A call record's events too.
  record: {
    join: 'JOIN "RunAttempt" a ON a."runId" = w.id AND a.number = w.number JOIN "CallRecord" c ON c."attemptId" = a.id',
    objectId: 'a."runId"',
    data: dataOf(recordEvent, 'c'),
  },
  agent: { join: 'JOIN "Agent" g ON g.id = w.id', objectId: 'g.id', data: dataOf(agent, 'g') },
  integration: {
    join: 'JOIN "OrganizationIntegration" c ON c.id = w.id',
    objectId: 'c.id',
    data: dataOf(connectedIntegration, 'c'),
  },
  endpoint: {
    join: 'JOIN "WebhookEndpoint" e ON e.id = w.id',
    objectId: 'e.id',
    data: dataOf(webhookEndpoint, 'e'),
  },
  erasedProspect: {
    join: 'JOIN "Prospect" p ON p.id = w.id',
    objectId: 'p.id',
    data: dataOf(prospectErasedEvent, 'p'),
  },
  restedNumber: {
    join: 'JOIN "PhoneNumber" n ON n.id = w.id',
    objectId: 'n.id',
    data: dataOf(restedNumberEvent, 'n'),
  },
};

/** The row id a subject's kind joins on, and the attempt number (0 for other kinds). */
export const subjectKey = (subject: EventSubject): { id: string; number: number } =>
  subject.kind === 'attempt' || subject.kind === 'record'
    ? { id: subject.runId, number: subject.number }
    : { id: subject.id, number: 0 };
