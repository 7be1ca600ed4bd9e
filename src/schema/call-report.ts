// An agent worker's report of its call (src/domain/call-reports.ts).
import { callOutcomeReport, reportCallOutcome } from '../domain/call-reports.ts';
import { builder } from './builder.ts';
import { scopeOf } from './context.ts';
import { CallOutcomeEnum } from './enums.ts';
import { parseOnce } from './parsed-input.ts';
import { RunAttempt } from './run.ts';

builder.mutationFields((t) => ({
  reportCallOutcome: t.field({
    type: RunAttempt,
    description:
      'The agent worker on a LiveKit call reports how it ends (`voicemail`); the attempt ends with it when LiveKit reports ' +
      'the call over (an attempt with no report ends `answered`). NOT_FOUND for an unknown run or attempt; CONFLICT once the ' +
      'attempt has ended (REST: `POST /runs/{run_id}/attempts/{attempt}/outcome`).',
    args: {
      runId: t.arg.id({ required: true, description: 'The run (`run_…`): `run_id` of the dispatch metadata.' }),
      attempt: t.arg.int({ required: true, description: 'The attempt number: `attempt` of the dispatch metadata.' }),
      outcome: t.arg({ type: CallOutcomeEnum, required: true, description: 'How the call ends.' }),
    },
    resolve: (_root, args, context) =>
      reportCallOutcome(
        scopeOf(context),
        String(args.runId),
        args.attempt,
        parseOnce(context, callOutcomeReport, () => ({ outcome: args.outcome })),
      ),
  }),
}));
