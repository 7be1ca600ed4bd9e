import { type RunSort, runSorts } from '../domain/runs.ts';
import { AgentType, BatchStatus, CallOutcome, RunStatus } from '../generated/prisma/enums.ts';
import { builder } from './builder.ts';

export const RunStatusEnum = builder.enumType(RunStatus, {
  name: 'RunStatus',
  description:
    "Where a run is in its lifecycle (E6's `status`): PENDING → IN_PROGRESS → FINISHED | FAILED, PENDING ⇄ PAUSED, " +
    'PENDING | PAUSED → CANCELLED; a run tried again goes back to PENDING. FINISHED and CANCELLED are final, FAILED too ' +
    'unless `retryFailedRuns` tries it again.',
  values: {
    PENDING: {
      description:
        'Waiting for an engine instance to claim it: for `scheduledAt`, its calling window, a pacing slot or a retry delay (`nextAttemptAt`).',
    },
    IN_PROGRESS: {
      description:
        'Claimed by an engine instance, which executes its steps; `startedAt` is set on the first such move.',
    },
    PAUSED: { description: 'Held while its batch is paused; PENDING again when the batch resumes.' },
    FINISHED: { description: 'Final: every step of its workflow version is done.' },
    CANCELLED: {
      description:
        'Final: its batch was cancelled, or it ended without a call (`reason`: `do_not_call`, `precall_skip`).',
    },
    FAILED: {
      description:
        'Ended: a step failed, a call attempt ended in an outcome not tried again, or the number is not E.164 (`error` and `reason` say why). ' +
        '`retryFailedRuns` makes it PENDING again.',
    },
  },
});

export const BatchStatusEnum = builder.enumType(BatchStatus, {
  name: 'BatchStatus',
  description:
    'Where a batch is in its lifecycle. A client sets PAUSED, PENDING (resume) or CANCELLED (E9, `updateBatchStatus`); ' +
    'the service sets IN_PROGRESS, FINISHED and FAILED. CANCELLED is final; a FINISHED or FAILED batch with failed runs is ' +
    'PENDING again after `retryFailedRuns`.',
  values: {
    PENDING: {
      description: 'No run started yet, resumed from PAUSED, or retried (`retryFailedRuns`): its runs may be claimed.',
    },
    IN_PROGRESS: { description: 'Set by the service when its first run starts.' },
    PAUSED: {
      description:
        'Paused by a client, or by the circuit breaker (then `pausedReason` says why): no run starts; runs in progress finish.',
    },
    FINISHED: { description: 'Every run ended (FINISHED, CANCELLED or FAILED), and not every one failed.' },
    CANCELLED: { description: 'Final: cancelled by a client; its pending and paused runs were cancelled with it.' },
    FAILED: { description: 'Every run failed.' },
  },
});

export const AgentTypeEnum = builder.enumType(AgentType, {
  name: 'AgentType',
  description: "What kind of agent it is (SPEC.md's `type`); the values are the REST wire values.",
  values: {
    voice: { description: 'A voice agent (the default).' },
    chat: { description: 'A chat agent.' },
    video: { description: 'A video agent.' },
  },
});

export const CallOutcomeEnum = builder.enumType(CallOutcome, {
  name: 'CallOutcome',
  description:
    "How a call attempt ended; the values are the wire values REST and a batch's `retry.on` use. An outcome in `retry.on` " +
    'with attempts left is tried again; otherwise `answered` and `voicemail` go on with the next step, and the others fail the run.',
  values: {
    answered: { description: 'Someone answered.' },
    no_answer: { description: 'Nobody answered (tried again by the default `retry.on`).' },
    busy: { description: 'The line was busy (tried again by the default `retry.on`).' },
    voicemail: { description: 'A voice mail answered.' },
    failed: {
      description:
        'The call failed, was never placed (the pre-call webhook failed) or ended unknown (its instance died or stopped); `reason` says which. ' +
        'Counts toward `autoPause`.',
    },
    ivr: { description: "A phone menu (IVR) answered, as the call record's `detection` reported." },
    call_screening: { description: "A call screening service answered, as the call record's `detection` reported." },
  },
});

const runOrderDescriptions: Record<RunSort, string> = {
  started_asc: 'Earliest `startedAt` first; runs not started yet last.',
  started_desc: 'Latest `startedAt` first; runs not started yet first (the default).',
  status_asc:
    'Lifecycle order (PENDING, IN_PROGRESS, PAUSED, FINISHED, CANCELLED, FAILED), latest start first within a status.',
  status_desc: 'Reverse lifecycle order (FAILED first), latest start first within a status.',
};

export const RunOrderEnum = builder.enumType('RunOrder', {
  description: "How runs are sorted (E6's `sort`, default STARTED_DESC). The id breaks ties, so pages never overlap.",
  values: Object.fromEntries(
    runSorts.map((sort) => [sort.toUpperCase(), { value: sort, description: runOrderDescriptions[sort] }]),
  ) as Record<Uppercase<RunSort>, { value: RunSort; description: string }>,
});
