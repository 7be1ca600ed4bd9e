// The outbox. A change that webhooks report writes its events, and one
// delivery per enabled endpoint of the organization that subscribes to them,
// in the transaction that makes the change: a change rolled back sends
// nothing, a change committed is never lost (src/webhooks/webhook-worker.ts
// delivers them from any instance). The events of a transaction are written
// by one statement at its end, which writes nothing when no endpoint of the
// organization wants them: that statement is the check, there is no other.
//
// Event ids (`evt_…`, the deliveries' `webhook-id`) are 36 hex digits: 8 of
// a hash of the object's id, then the database's clock in microseconds when
// the statement ran (14), the event's place in the statement (6), and 8
// random ones. Every change to an object holds its row (a batch, a run, an
// agent …) until it commits, and its events are written after the row was
// taken, so the ids of one object's events share their first 12 characters
// and sort in the order of its changes: on the deliveries' unique key
// ("endpointId", "eventId"), an endpoint's deliveries about one object are one
// short range, which keeps the delivery order cheap (src/webhooks/webhook-store.ts).

import { type EventSubject, type SubjectKind, subjectKey, subjectSources } from '../db/parts/event-payloads.ts';
import { type EventRow, type SubjectSource, webhookEventWrites } from '../db/parts/webhook-event-writes.ts';
import { writeWebhookEvents } from '../db/sql/write-webhook-events.ts';
import type { SqlClient } from '../db/tx.ts';
import type { Prisma } from '../generated/prisma/client.ts';
import { ALL_EVENTS, type WebhookEventType } from '../records/webhooks.ts';

/** Hex digits of an event id's object hash: `evt_` and these are the same for every event of one object. */
const OBJECT_PREFIX_DIGITS = 8;
/** An event id's first characters, the same for every event of its object. */
export const OBJECT_PREFIX_LENGTH = 'evt_'.length + OBJECT_PREFIX_DIGITS;
const IDS = { allEvents: ALL_EVENTS, objectPrefixDigits: OBJECT_PREFIX_DIGITS };

interface PendingEvent {
  type: WebhookEventType;
  organizationId: string;
  subject: EventSubject;
}

/** The events of one transaction, in the order they happened; the same event of the same object once. */
export class Outbox {
  private readonly events = new Map<string, PendingEvent>();

  add(type: WebhookEventType, organizationId: string, subject: EventSubject): this {
    const { id, number } = subjectKey(subject);
    const key = `${type} ${subject.kind} ${id} ${number}`;
    if (!this.events.has(key)) this.events.set(key, { type, organizationId, subject });
    return this;
  }

  /** A run's status move: `run.status_changed`, and `run.finished` / `run.failed` when it ended so. */
  runMoved(organizationId: string, runId: string, status: string): this {
    this.add('run.status_changed', organizationId, { kind: 'run', id: runId });
    if (status === 'FINISHED') this.add('run.finished', organizationId, { kind: 'run', id: runId });
    if (status === 'FAILED') this.add('run.failed', organizationId, { kind: 'run', id: runId });
    return this;
  }

  /** A batch's status move: `batch.status_changed`, and `batch.finished` when every run ended (FINISHED or FAILED). */
  batchMoved(organizationId: string, batchId: string, status: string): this {
    this.add('batch.status_changed', organizationId, { kind: 'batch', id: batchId });
    if (status === 'FINISHED' || status === 'FAILED')
      this.add('batch.finished', organizationId, { kind: 'batch', id: batchId });
    return this;
  }

  /**
   * Writes the events some enabled endpoint of their organization subscribes
   * to, with their deliveries, in one statement (none when nothing was
   * added). `at` is the events' `timestamp`.
   */
  async write(tx: SqlClient, at: Date): Promise<void> {
    if (this.events.size === 0) return;
    await writeWebhookEvents(tx, ...this.rows(), IDS, at);
  }

  /**
   * The same writes as part of a statement that writes the events' subjects
   * itself (a WITH list: src/db/parts/webhook-event-writes.ts): `written`
   * says how a kind reaches the rows that statement wrote (its join and object
   * id), which its other parts cannot read from the table.
   */
  writes(at: Date, written: Partial<Record<SubjectKind, Pick<SubjectSource, 'join' | 'objectId'>>>): Prisma.Sql {
    const [events, sources] = this.rows();
    return webhookEventWrites(
      events,
      sources.map((source) => ({ ...source, ...written[source.kind as SubjectKind] })),
      IDS,
      at,
    );
  }

  private rows(): [EventRow[], SubjectSource[]] {
    const pending = [...this.events.values()];
    const kinds = [...new Set(pending.map((event) => event.subject.kind))] as SubjectKind[];
    const events = pending.map(({ type, organizationId, subject }) => ({
      type,
      organizationId,
      kind: subject.kind,
      ...subjectKey(subject),
    }));
    return [events, kinds.map((kind) => ({ kind, ...subjectSources[kind] }))];
  }
}
