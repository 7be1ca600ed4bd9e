// What the worker reports of its call to the gateway, each report retried with
// one Idempotency-Key (src/gateway.ts). A key names the call and the report
// (the run, the attempt, what is reported and its sequence number), never the
// process: a worker restarted mid-call sends the same keys again.
//
// The outcome goes to POST /org/{org}/runs/{run_id}/attempts/{attempt}/outcome
// (reportCallOutcome); the call's record, in parts (src/call-record.ts), to
// POST …/attempts/{attempt}/record (reportCallRecord), each part named; a
// transfer to a person to POST …/attempts/{attempt}/transfer (transferCall).
import type { CallRecordReport } from '../../src/domain/call-records.ts';
import type { CallOutcomeName } from '../../src/records/campaign-settings.ts';
import type { GatewayClient } from './gateway.ts';

export interface CallReports {
  /** How the call ends (voicemail …); a later report replaces an earlier one. */
  outcome(outcome: CallOutcomeName): Promise<void>;
  /** One part of the call's record; `name` names it among the call's parts (its key's last word). */
  record(part: CallRecordReport, name: string): Promise<void>;
  /** Hands the callee to `to` (E.164 or sip:); throws the gateway's refusal (409 not in a call, 502 LiveKit's). */
  transfer(to: string): Promise<void>;
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

  async record(part: CallRecordReport, name: string): Promise<void> {
    await this.gateway.post(`${this.attemptPath}/record`, part, this.keyOf('record', name));
  }

  async transfer(to: string): Promise<void> {
    // LiveKit's refusal is final: the person did not take the call, asking again would ring them again.
    await this.gateway.post(`${this.attemptPath}/transfer`, { to, mode: 'cold' }, this.keyOf('transfer', to), [502]);
  }

  private keyOf(what: string, sequence: number | string) {
    return `${this.call.run_id}:${this.call.attempt}:${what}:${sequence}`;
  }
}
