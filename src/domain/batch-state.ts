// The batch state machine (DECISIONS.md). Clients may pause, resume and
// cancel; the service itself moves a batch to IN_PROGRESS, FINISHED or FAILED.
import { conflict } from './errors.ts';
import type { RunStatusName } from './runs.ts';

export const batchStatuses = ['PENDING', 'IN_PROGRESS', 'PAUSED', 'FINISHED', 'CANCELLED', 'FAILED'] as const;
type BatchStatusName = (typeof batchStatuses)[number];

export const clientBatchStatuses = ['PENDING', 'PAUSED', 'CANCELLED'] as const;
type ClientBatchStatus = (typeof clientBatchStatuses)[number];

/** What a client's move does to the batch's runs: runs in `from` statuses move to `to`. */
export interface RunMove {
  from: RunStatusName[];
  to: RunStatusName;
}

const allowedFrom: Record<ClientBatchStatus, BatchStatusName[]> = {
  PAUSED: ['PENDING', 'IN_PROGRESS'],
  PENDING: ['PAUSED'],
  CANCELLED: ['PENDING', 'IN_PROGRESS', 'PAUSED'],
};

const runMoves: Record<ClientBatchStatus, RunMove> = {
  PAUSED: { from: ['PENDING'], to: 'PAUSED' },
  PENDING: { from: ['PAUSED'], to: 'PENDING' },
  CANCELLED: { from: ['PENDING', 'PAUSED'], to: 'CANCELLED' },
};

/**
 * The runs a client's move from `current` to `requested` changes, or null for
 * a no-op (the batch already has that status). Refused moves throw a 409 that
 * names the current status.
 */
export function clientMove(current: BatchStatusName, requested: ClientBatchStatus): RunMove | null {
  if (current === requested) return null;
  if (!allowedFrom[requested].includes(current)) {
    throw conflict(`a ${current} batch cannot be set to ${requested}`, {
      current_status: current,
      requested_status: requested,
      allowed_from: allowedFrom[requested],
    });
  }
  return runMoves[requested];
}
