// Erasing a person on request (DELETE /org/{org_id}/prospects/{prospect_id},
// GraphQL `eraseProspect`): in one transaction, the prospect's personal
// members are emptied, so are the copies of its number and pre-call variables
// on its runs' attempts and what its calls' records say (transcript, summary,
// data, recording, searched words), its consents' evidence, and the webhook
// events written about its runs (what a delivery or a replay sends), its tags and list memberships are
// removed, its calls counted against contact_limits deleted, and a `prospect.erased` event ({id, erased_at}) is written. The
// rows stay, with their outcomes, dispositions and counters, so batches and
// insights still add up; a do-not-call entry for the number stays too (it is
// the person's own request). A second erasure answers the same and writes
// no second event. docs/security.md#erasure.
import { eraseProspect as eraseProspectRow } from '../db/sql/erase-prospect.ts';
import { eraseProspectAttempts } from '../db/sql/erase-prospect-attempts.ts';
import { eraseProspectCallRecords } from '../db/sql/erase-prospect-call-records.ts';
import { eraseProspectConsents } from '../db/sql/erase-prospect-consents.ts';
import { eraseProspectContactAttempts } from '../db/sql/erase-prospect-contact-attempts.ts';
import { eraseProspectWebhookEvents } from '../db/sql/erase-prospect-webhook-events.ts';
import { notFound } from './errors.ts';
import type { Scope } from './scope.ts';
import { Outbox } from './webhook-events.ts';

/** Erases the organization's prospect `prospectId`; another organization's or an unknown one is a 404. */
export async function eraseProspect(scope: Scope, prospectId: string, now = new Date()) {
  const organizationId = scope.viewer.organizationId;
  await scope.prisma.$transaction(async (tx) => {
    const erased = await eraseProspectRow(tx, organizationId, prospectId, now);
    if (!erased) throw notFound('prospect');
    await eraseProspectAttempts(tx, organizationId, prospectId);
    await eraseProspectConsents(tx, organizationId, prospectId);
    await eraseProspectContactAttempts(tx, organizationId, prospectId);
    await eraseProspectCallRecords(tx, organizationId, prospectId, now);
    await eraseProspectWebhookEvents(tx, organizationId, prospectId);
    await tx.prospectTag.deleteMany({ where: { prospectId } });
    await tx.prospectListMember.deleteMany({ where: { prospectId } });
    if (erased.first) {
      await new Outbox()
        .add('prospect.erased', organizationId, { kind: 'erasedProspect', id: prospectId })
        .write(tx, now);
    }
  });
  return { id: prospectId };
}
