// A batch's campaign settings as a request changes them: when it may call
// (calling_window), how fast (max_concurrency, calls_per_second), what it does
// after a call that did not reach anyone (retry), and when it stops itself
// (auto_pause); each object's schema is src/records/campaign-settings.ts. Used
// by the batch create's body, the settings PATCH and GraphQL's input types; the run engine
// reads them from the batch row.
import { z } from 'zod';
import { Prisma } from '../generated/prisma/client.ts';
import { autoPause, callingWindow, retryPolicy } from '../records/campaign-settings.ts';
import { int } from '../records/values.ts';
import { consentScopeName } from './consents.ts';

/** The members the batch create (POST /workflows/{workflow_id}/batches) accepts besides the prospects, and the settings PATCH changes. */
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
  require_consent: z.boolean().nullable().optional().meta({
    description:
      "Place a call only with a live consent of the callee's of `consent_scope` (docs/consent.md); none: the organization's require_consent.",
  }),
  consent_scope: consentScopeName.nullable().optional().meta({
    description: 'The consent scope its calls need ("renewals"); none: a consent of any scope.',
  }),
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
    ...(input.require_consent !== undefined ? { requireConsent: input.require_consent } : {}),
    ...(input.consent_scope !== undefined ? { consentScope: input.consent_scope } : {}),
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
