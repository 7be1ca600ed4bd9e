// Sizes of bulk inputs (DECISIONS.md): the domain's schemas are built with
// them when they load, so they are read then, from the environment through
// src/config.ts (which stops the process on a value that is not a positive integer).
import { loadBulkLimits } from '../config.ts';

export const limits = loadBulkLimits();

/** Call-backs a run is granted at most: a callee (or a worker gone wrong) cannot keep a run calling forever. */
export const MAX_CALLBACKS_PER_RUN = 5;
/** The longest `retention_days` an organization may set (ten years); null keeps data until erased. */
export const MAX_RETENTION_DAYS = 3650;
/** How far ahead a call-back may be asked for. */
export const MAX_CALLBACK_DAYS = 14;

/** Audit events the retention job deletes per transaction: a large backlog goes in short steps, never one long lock. */
export const AUDIT_RETENTION_BATCH = 1_000;
/** Characters of a User-Agent an audit event keeps. */
export const MAX_AUDIT_USER_AGENT = 500;
