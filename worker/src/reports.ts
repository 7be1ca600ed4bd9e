// What the worker reports of its call to the gateway, each report retried with
// one Idempotency-Key (src/gateway.ts). A key names the call and the report
// (the run, the attempt, what is reported and its sequence number), never the
// process: a worker restarted mid-call sends the same keys again.
//
// The outcome goes to POST /org/{org}/runs/{run_id}/attempts/{attempt}/outcome
// (reportCallOutcome). The call record (detection, transcript turns, summary,
// disposition, evaluations, callback and transfer requests) goes to
// POST …/attempts/{attempt}/record once the gateway has that route: until
// then nothing calls `record` (worker/README.md).
import type { CallOutcomeName } from '../../src/records/campaign-settings.ts';
import type { GatewayClient } from './gateway.ts';

/** One part of the call's record, in the words of the record route. */
export type CallRecordPart =
  | { kind: 'detection'; result: 'human' | 'voicemail' | 'ivr' | 'unavailable' | 'uncertain'; transcript: string }
  | { kind: 'turn'; index: number; speaker: 'agent' | 'prospect'; text: string; started_at: string }
  | { kind: 'summary'; text: string }
  | { kind: 'disposition'; label: string; category: string }
  | { kind: 'evaluation'; evaluation_id: number; score: number; passed: boolean }
  | { kind: 'callback_request'; at: string | null; note: string }
  | { kind: 'transfer_request'; to: string; reason: string };

export interface CallReports {
  /** How the call ends (voicemail …); a later report replaces an earlier one. */
  outcome(outcome: CallOutcomeName): Promise<void>;
  /** One part of the call's record; `sequence` numbers the parts of one kind (transcript turns: their index). */
  record(part: CallRecordPart, sequence: number): Promise<void>;
}

export interface ReportedCall {
  run_id: string;
  attempt: number;
}

export class GatewayCallReports implements CallReports {
  private readonly attemptPath: string;

  constructor(
    private readonly gateway: GatewayClient,
    private readonly call: ReportedCall,
  ) {
    this.attemptPath = `/runs/${encodeURIComponent(call.run_id)}/attempts/${call.attempt}`;
  }

  async outcome(outcome: CallOutcomeName): Promise<void> {
    // The same outcome twice is one report; another outcome replaces it.
    await this.gateway.post(`${this.attemptPath}/outcome`, { outcome }, this.keyOf('outcome', outcome));
  }

  async record(part: CallRecordPart, sequence: number): Promise<void> {
    await this.gateway.post(`${this.attemptPath}/record`, part, this.keyOf(part.kind, sequence));
  }

  private keyOf(what: string, sequence: number | string) {
    return `${this.call.run_id}:${this.call.attempt}:${what}:${sequence}`;
  }
}
