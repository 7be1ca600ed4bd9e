// An agent worker's report of its call (DIALER=livekit; src/domain/call-reports.ts).
import { z } from 'zod';
import { attemptNumber, attemptNumberOf, callOutcomeReport } from '../../domain/call-reports.ts';
import { callOutcomes } from '../../records/campaign-settings.ts';
import { integer } from '../../records/values.ts';
import { operationRoute } from '../route.ts';

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
];
