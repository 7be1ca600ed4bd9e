// What the worker knows of a call in flight, kept on disk (WORKER_STATE_DIR)
// as it changes: the turns said so far, how many of them were reported, and
// the reports the gateway has not acknowledged yet. A worker restarted
// mid-call (the process killed, the job dispatched again) reads it back,
// sends the unacknowledged reports again with their Idempotency-Keys (the
// gateway answers a report it already has as it did the first time) and goes
// on numbering the turns where the first left off: nothing said is lost,
// nothing is counted twice.
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { CallRecordReport } from '../../src/domain/call-records.ts';

export type Turn = NonNullable<CallRecordReport['transcript']>[number];

/** A report to send, by its name among the call's (its Idempotency-Key's last word). */
export interface PendingPart {
  name: string;
  part: CallRecordReport;
}

export interface CallState {
  /** The call's start (ms since 1970): turns' times count from it. */
  startedAt: number;
  /** Every turn said, in order. */
  turns: Turn[];
  /** How many of `turns` are in a part already. */
  reported: number;
  /** Parts not acknowledged by the gateway yet, in the order they were made. */
  unsent: PendingPart[];
}

export interface CallJournal {
  load(): Promise<CallState | null>;
  save(state: CallState): Promise<void>;
  /** The call is reported in full: its journal goes. */
  clear(): Promise<void>;
}

/** A journal file per call attempt in `directory`. */
export class CallJournals {
  constructor(private readonly directory: string) {}

  of(runId: string, attempt: number): CallJournal {
    const file = path.join(this.directory, `${runId.replace(/[^A-Za-z0-9_-]/g, '_')}-${attempt}.json`);
    const directory = this.directory;
    return {
      async load() {
        try {
          return JSON.parse(await readFile(file, 'utf8')) as CallState;
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
          throw error;
        }
      },
      async save(state) {
        // Written aside, then renamed over: a process killed mid-write leaves the last whole state.
        await mkdir(directory, { recursive: true });
        await writeFile(`${file}.next`, JSON.stringify(state));
        await rename(`${file}.next`, file);
      },
      clear: () => rm(file, { force: true }),
    };
  }
}
