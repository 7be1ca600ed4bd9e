// What an agent worker reports of the call it is on (DIALER=livekit): that a
// voice mail answered, most often. It is kept on the attempt (its
// `reportedOutcome`) while the call is in flight, and the LiveKit dialer ends
// the attempt with it when LiveKit reports the call's end; an attempt with no
// report ends `answered`.
import { z } from 'zod';
import { callOutcomes } from '../records/campaign-settings.ts';
import { conflict, notFound } from './errors.ts';
import type { Scope } from './scope.ts';

export const callOutcomeReport = z
  .strictObject({
    outcome: z.enum(callOutcomes).meta({
      description:
        'how the call ends: `voicemail` when a voice mail answered (a later report replaces an earlier one);',
    }),
  })
  .meta({ id: 'CallOutcomeReport', description: 'The outcome an agent worker reports for the call it is on.' });
type CallOutcomeReport = z.output<typeof callOutcomeReport>;

/** An attempt number as a path names it: 1, 2, …; anything else names no attempt. */
export const attemptNumber = z
  .string()
  .regex(/^[1-9][0-9]{0,8}$/)
  .meta({ description: 'The attempt number: 1 for the first' });

export const attemptNumberOf = (text: string) => (attemptNumber.safeParse(text).success ? Number(text) : 0);

/** Keeps the outcome on the run's attempt; NOT_FOUND for another organization's run, CONFLICT once the attempt has ended. */
export async function reportCallOutcome(
  scope: Scope,
  runId: string,
  attemptNumber: number,
  { outcome }: CallOutcomeReport,
) {
  // Through the tenant client: another organization's run reads as one that never existed.
  const attempt = await scope.prisma.runAttempt.findFirst({ where: { runId, number: attemptNumber } });
  if (!attempt) throw notFound('call attempt');
  // Only while open: the dialer reads the report when the call ends, and an ended attempt keeps its outcome.
  const { count } = await scope.prisma.runAttempt.updateMany({
    where: { id: attempt.id, endedAt: null },
    data: { reportedOutcome: outcome },
  });
  if (count === 0)
    throw conflict(
      `attempt ${attemptNumber} of run ${runId} has ended: an outcome is reported while its call is in flight`,
    );
  return { ...attempt, reportedOutcome: outcome };
}
