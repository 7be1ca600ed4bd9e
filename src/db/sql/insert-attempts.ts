import type { SqlClient } from '../tx.ts';

/** An attempt written open (no outcome yet). */
export interface OpenAttempt {
  organizationId: string;
  runId: string;
  batchId: string;
  number: number;
  stepId: string;
  startedAt: Date;
  fromNumber: string | null;
  toNumber: string;
  dynamicVariables: unknown;
  consentId: string | null;
}

/**
 * Writes attempts open, many in one statement (one array per column, not a
 * parameter per value: a group of 500 is 10 parameters).
 * Index: "RunAttempt_runId_number_organizationId_key" (unique: attempt n of a run is written once).
 */
export function insertAttempts(tx: SqlClient, attempts: OpenAttempt[]) {
  const column = <T>(value: (attempt: OpenAttempt) => T) => attempts.map(value);
  return tx.$executeRaw`
    INSERT INTO "RunAttempt" ("organizationId", "runId", "batchId", number, "stepId", "startedAt", "fromNumber", "toNumber", "dynamicVariables", "consentId")
    SELECT * FROM unnest(${column((a) => a.organizationId)}::text[], ${column((a) => a.runId)}::text[],
      ${column((a) => a.batchId)}::text[], ${column((a) => a.number)}::int[], ${column((a) => a.stepId)}::text[],
      ${column((a) => a.startedAt)}::timestamptz[], ${column((a) => a.fromNumber)}::text[], ${column((a) => a.toNumber)}::text[],
      ${column((a) => (a.dynamicVariables === null || a.dynamicVariables === undefined ? null : JSON.stringify(a.dynamicVariables)))}::jsonb[],
      ${column((a) => a.consentId)}::text[])`;
}
