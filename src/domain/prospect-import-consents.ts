// A CSV import's consent columns (POST /prospects/import): `consent_scope`,
// `consent_source`, `consent_captured_at`, `consent_evidence`. A row that
// fills any of them adds a consent to its prospect's history (consents.ts);
// its scope, capture time and evidence are then required, its source is
// `import` when empty. Rows that write nothing (a duplicate skipped) add none.
import type { Tx } from '../db/tx.ts';
import { type ConsentAdd, consentAdd, consentColumns } from './consents.ts';
import type { Scope } from './scope.ts';

export const CONSENT_CELLS = ['consent_scope', 'consent_source', 'consent_captured_at', 'consent_evidence'] as const;
type ConsentCell = (typeof CONSENT_CELLS)[number];

const isConsentCell = (key: string): key is ConsentCell => (CONSENT_CELLS as readonly string[]).includes(key);

/** The header's consent columns, taken out of its attribute columns (by their snake_case key). */
export function consentColumnsOf(attributes: [key: string, index: number][]) {
  const cells = new Map<ConsentCell, number>();
  for (const [key, index] of attributes) if (isConsentCell(key)) cells.set(key, index);
  return { cells, rest: attributes.filter(([key]) => !isConsentCell(key)) };
}

/**
 * A row's consent, or null when its consent cells are empty; `fail` names
 * the column of each problem (the member of consentAdd it fills).
 */
export function rowConsent(
  cells: Map<ConsentCell, number>,
  row: string[],
  fail: (index: number, rule: string, message: string) => void,
): ConsentAdd | null {
  const value = (cell: ConsentCell) => {
    const index = cells.get(cell);
    return index === undefined ? '' : row[index]!;
  };
  if (CONSENT_CELLS.every((cell) => value(cell) === '')) return null;
  const parsed = consentAdd.safeParse({
    scope: value('consent_scope'),
    source: value('consent_source') || 'import',
    captured_at: value('consent_captured_at'),
    evidence: value('consent_evidence'),
  });
  if (parsed.success) return parsed.data;
  for (const issue of parsed.error.issues) {
    const cell = `consent_${String(issue.path[0])}` as ConsentCell;
    const index = cells.get(cell);
    // A missing column is named by the first consent column the header has.
    fail(index ?? [...cells.values()][0]!, 'consent', `${cell}: ${index === undefined ? 'missing' : issue.message}`);
  }
  return null;
}

/** Adds the rows' consents to the prospects their phones belong to (written in the same transaction). */
export async function writeImportedConsents(
  tx: Tx<Scope['prisma']>,
  organizationId: string,
  consents: { phone: string; consent: ConsentAdd }[],
  prospectOfPhone: Map<string, string>,
) {
  const data = consents.flatMap(({ phone, consent }) => {
    const prospectId = prospectOfPhone.get(phone);
    return prospectId ? [{ organizationId, prospectId, ...consentColumns(consent) }] : [];
  });
  if (data.length > 0) await tx.consent.createMany({ data });
}
