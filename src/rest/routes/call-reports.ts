// An agent worker's report of its call (DIALER=livekit; src/domain/call-reports.ts).
import { z } from 'zod';
import { callRecordReport } from '../../domain/call-records.ts';
import { attemptNumber, attemptNumberOf, callOutcomeReport } from '../../domain/call-reports.ts';
import { callTransferRequest } from '../../domain/call-transfers.ts';
import { callRecord } from '../../records/call-records.ts';
import { callOutcomes } from '../../records/campaign-settings.ts';
import { integer } from '../../records/values.ts';
import { wireNames } from '../../schema/json-schema-names.ts';
import { operationRoute } from '../route.ts';

const Transfer = wireNames(callTransferRequest);

export const callReportRoutes = [
  operationRoute({
    method: 'POST',
    path: '/runs/:run_id/attempts/:attempt/outcome',
    endpoint: null,
    summary:
      "Report how the agent's call ends (voicemail): the attempt ends with it when LiveKit reports the call over",
    operation: `mutation($runId: ID!, $attempt: Int!, $outcome: CallOutcome!) {
    reportCallOutcome(runId: $runId, attempt: $attempt, outcome: $outcome) { number reportedOutcome } }`,
    body: callOutcomeReport,
    params: { attempt: attemptNumber },
    answers: { 409: 'the attempt has ended: an outcome is reported while its call is in flight' },
    variables: ({ params, body }) => ({
      runId: params.run_id,
      attempt: attemptNumberOf(params.attempt!),
      outcome: body.outcome,
    }),
    respond: (data, { params }) => ({
      run_id: params.run_id,
      attempt: data.reportCallOutcome.number,
      reported_outcome: data.reportCallOutcome.reportedOutcome,
    }),
    response: z
      .strictObject({ run_id: z.string(), attempt: integer(), reported_outcome: z.enum(callOutcomes) })
      .meta({ id: 'ReportedCallOutcome' }),
  }),
  operationRoute({
    method: 'POST',
    path: '/runs/:run_id/attempts/:attempt/record',
    endpoint: null,
    summary:
      "Report a part of the call's record (transcript, detection, summary, disposition, data, evaluations …), during " +
      'the call or after it; answers the whole record. The same part twice changes nothing',
    operation: `mutation($runId: ID!, $attempt: Int!, $input: CallRecordReportInput!) {
    reportCallRecord(runId: $runId, attempt: $attempt, input: $input) { ${callRecord.selection} } }`,
    body: callRecordReport,
    params: { attempt: attemptNumber },
    // The mutation takes the body this route parsed (src/schema/parsed-input.ts): a 40-turn record is not
    // renamed, coerced by GraphQL and walked for unstorable members a second time.
    variables: ({ params }) => ({ runId: params.run_id, attempt: attemptNumberOf(params.attempt!), input: {} }),
    respond: (data) => callRecord.present(data.reportCallRecord),
    response: callRecord.schema,
  }),
  operationRoute({
    method: 'POST',
    path: '/runs/:run_id/attempts/:attempt/transfer',
    endpoint: null,
    summary:
      "Hand the attempt's call to a person while it is in flight (cold: the agent leaves), through LiveKit's SIP transfer; " +
      'answers the record with the transfer',
    operation: `mutation($runId: ID!, $attempt: Int!, $input: CallTransferRequestInput!) {
    transferCall(runId: $runId, attempt: $attempt, input: $input) { ${callRecord.selection} } }`,
    body: callTransferRequest,
    params: { attempt: attemptNumber },
    answers: {
      409: 'the attempt is not in a call: only a call in flight is transferred',
      502: 'LiveKit did not transfer the call (the failed transfer is recorded)',
    },
    variables: ({ params, body }) => ({
      runId: params.run_id,
      attempt: attemptNumberOf(params.attempt!),
      input: Transfer.toInput(body),
    }),
    respond: (data) => callRecord.present(data.transferCall),
    response: callRecord.schema,
  }),
];
