// A batch's campaign settings: when it may call (calling_window), how fast
// (max_concurrency, calls_per_second), what it does after a call that did not
// reach anyone (retry), and when it stops itself (auto_pause). One schema each,
// used by E4's body, the settings PATCH, GraphQL's input types and the OpenAPI
// document; the run engine reads them from the batch row.
import { z } from 'zod';
import { Prisma } from '../generated/prisma/client.ts';
import { callingWindow } from './calling-window.ts';
import { fraction, int } from './validation.ts';

/** How a call attempt ended. */
export const callOutcomes = ['answered', 'no_answer', 'busy', 'voicemail', 'failed'] as const;
export type CallOutcomeName = (typeof callOutcomes)[number];

export const retryPolicy = z
  .strictObject({
    max_attempts: int(1, 10).default(1).meta({ description: 'Attempts per call step, the first included; default 1.' }),
    on: z
      .array(z.enum(callOutcomes))
      .max(callOutcomes.length)
      .default(['no_answer', 'busy'])
      .meta({ description: 'Outcomes that are tried again while attempts are left; default `no_answer`, `busy`.' }),
    delay_seconds: int(0, 30 * 86_400)
      .default(600)
      .meta({ description: 'Seconds between an attempt and the next one; default 600.' }),
  })
  .meta({ id: 'RetryPolicy', description: 'What the batch does after an attempt that reached nobody.' });
export type RetryPolicy = z.output<typeof retryPolicy>;

export const autoPause = z
  .strictObject({
    failure_rate: fraction().meta({ description: 'Share of `failed` attempts (0 to 1) that pauses the batch.' }),
    window: int(10, 10_000).meta({
      description: 'How many of the batch’s latest attempts the share is taken over (>= 10).',
    }),
  })
  .meta({
    id: 'AutoPause',
    description: 'The circuit breaker: the batch pauses itself when its latest attempts fail this often.',
  });

/** The members E4 accepts besides the prospects, and the settings PATCH changes. */
export const batchSettingsShape = {
  calling_window: callingWindow.nullable().optional(),
  max_concurrency: int(1, 10_000)
    .nullable()
    .optional()
    .meta({ description: 'Runs of the batch in progress at once, over every instance; none: unbounded.' }),
  calls_per_second: z
    .number()
    .gt(0)
    .max(1000)
    .nullable()
    .optional()
    .meta({ description: 'Attempts started per second, over every instance; none: unpaced.' }),
  retry: retryPolicy.optional(),
  auto_pause: autoPause.nullable().optional(),
};

export const batchSettingsUpdate = z
  .strictObject(batchSettingsShape)
  .meta({ id: 'BatchSettingsUpdate', description: 'Members given replace the batch’s; `null` removes a setting.' });
export type BatchSettingsInput = z.output<typeof batchSettingsUpdate>;

/** The batch columns a settings input writes; members not given are left as they are. */
export function settingsColumns(input: BatchSettingsInput): Prisma.BatchUpdateInput {
  const json = <T extends object>(value: T | null | undefined) => (value === null ? Prisma.DbNull : value);
  return {
    ...(input.calling_window !== undefined ? { callingWindow: json(input.calling_window) } : {}),
    ...(input.max_concurrency !== undefined ? { maxConcurrency: input.max_concurrency } : {}),
    ...(input.calls_per_second !== undefined ? { callsPerSecond: input.calls_per_second } : {}),
    ...(input.retry !== undefined ? { retry: input.retry } : {}),
    ...(input.auto_pause !== undefined ? { autoPause: json(input.auto_pause) } : {}),
  };
}

/** The settings as stored on a batch row, parsed (rows written before a setting existed read as its default). */
export function settingsOf(batch: { callingWindow: unknown; retry: unknown; autoPause: unknown }) {
  return {
    callingWindow: batch.callingWindow ? callingWindow.parse(batch.callingWindow) : null,
    retry: retryPolicy.parse(batch.retry ?? {}),
    autoPause: batch.autoPause ? autoPause.parse(batch.autoPause) : null,
  };
}
