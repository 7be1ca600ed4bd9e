// How one claim shares its free places between the due batches: fairly
// between organizations first, then between an organization's batches. Each
// place goes to the organization with the fewest runs in progress (over every
// instance, counting those this claim has given it so far), within its
// max_concurrent_calls, and in it to the batch with the fewest runs in
// progress, within what the batch may take (its max_concurrency, its pacing).
// So a one-run batch of a quiet organization gets the next free place while
// another organization runs a 100,000-run campaign, and two campaigns of one
// organization advance side by side instead of one after the other.

/** A due batch, as the claim sees it. */
export interface DueBatch {
  id: string;
  organizationId: string;
  /** Its runs in progress now. */
  inProgress: number;
  /** Runs it may take in this claim at most (its max_concurrency and pacing). */
  room: number;
}

/** An organization with due batches: its runs in progress over every instance, and its bound (null: none). */
export interface OrganizationLoad {
  inProgress: number;
  bound: number | null;
}

/**
 * Places per batch (batches given none are absent). `rotation` breaks ties
 * between organizations equally loaded: the claim after starts with the next
 * one, so none is always served first.
 */
export function fairShares(
  batches: DueBatch[],
  organizations: ReadonlyMap<string, OrganizationLoad>,
  places: number,
  rotation = 0,
): Map<string, number> {
  const byOrganization = new Map<string, { load: number; bound: number; batches: DueBatch[] }>();
  for (const batch of batches) {
    if (batch.room <= 0) continue;
    let entry = byOrganization.get(batch.organizationId);
    if (!entry) {
      const load = organizations.get(batch.organizationId);
      entry = { load: load?.inProgress ?? 0, bound: load?.bound ?? Number.POSITIVE_INFINITY, batches: [] };
      byOrganization.set(batch.organizationId, entry);
    }
    entry.batches.push({ ...batch });
  }
  const entries = [...byOrganization.values()];
  const start = entries.length > 0 ? rotation % entries.length : 0;
  const ordered = [...entries.slice(start), ...entries.slice(0, start)];
  const shares = new Map<string, number>();
  for (let left = places; left > 0; left--) {
    let chosen: (typeof ordered)[number] | undefined;
    for (const entry of ordered) {
      if (entry.load >= entry.bound || entry.batches.length === 0) continue;
      if (!chosen || entry.load < chosen.load) chosen = entry;
    }
    if (!chosen) break;
    let batch = chosen.batches[0]!;
    for (const candidate of chosen.batches) if (candidate.inProgress < batch.inProgress) batch = candidate;
    shares.set(batch.id, (shares.get(batch.id) ?? 0) + 1);
    batch.inProgress++;
    chosen.load++;
    if (--batch.room === 0) chosen.batches.splice(chosen.batches.indexOf(batch), 1);
  }
  return shares;
}
