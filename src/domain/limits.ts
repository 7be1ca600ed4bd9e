// Sizes of bulk inputs (DECISIONS.md), configurable through the environment.
const fromEnv = (name: string, fallback: number) => {
  const value = Number.parseInt(process.env[name] ?? '', 10);
  return Number.isInteger(value) && value > 0 ? value : fallback;
};

export const limits = {
  /** numbers, phone_numbers, tag_ids, prospects, a list's prospect_ids */
  bulkItems: fromEnv('BULK_ITEMS_MAX', 10_000),
  /** a batch's prospect_ids */
  batchProspects: fromEnv('BATCH_PROSPECTS_MAX', 100_000),
  /** rows of a CSV prospect import (src/domain/prospect-import.ts) */
  importRows: fromEnv('PROSPECT_IMPORT_MAX_ROWS', 100_000),
  /** bytes of a CSV prospect import */
  importBytes: fromEnv('PROSPECT_IMPORT_MAX_BYTES', 32 * 1024 * 1024),
};
