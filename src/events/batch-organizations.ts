// The organization of a batch, by its id. On a Redis Cluster what a batch's
// change invalidates (live queries, cached answers) goes to its
// organization's slot (src/events/live-invalidations.ts,
// src/events/response-cache-store.ts), while the run engine announces batches
// by id alone. A batch never changes organization, so each is read once and
// remembered (the last BATCHES_REMEMBERED read).
import { BoundedMap } from '../bounded-map.ts';
import type { Database } from '../db/database.ts';

/** A campaign's batches at a time are far fewer: the engine announces only batches with runs under way. */
const BATCHES_REMEMBERED = 10_000;

/** The batch's organization, or null when there is no such batch (or the database does not answer: not remembered). */
export function batchOrganizations(db: Database): (batchId: string) => Promise<string | null> {
  const known = new BoundedMap<string, Promise<string | null>>(BATCHES_REMEMBERED);
  return (batchId) => {
    const remembered = known.get(batchId);
    if (remembered) return remembered;
    const read = db.prisma.batch.findFirst({ where: { id: batchId }, select: { organizationId: true } }).then(
      (batch) => batch?.organizationId ?? null,
      () => null,
    );
    known.set(batchId, read);
    void read.then((organizationId) => {
      if (organizationId === null) known.delete(batchId);
    });
    return read;
  };
}
