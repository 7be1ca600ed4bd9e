// A batch's campaign settings as they are stored and shown: when it may call
// (calling_window), what it does after a call that reached nobody (retry),
// and when it stops itself (auto_pause); and how a call attempt ends. One
// schema each, used by the batch record, the batch create's body, the settings PATCH,
// GraphQL's types and the OpenAPI document; the run engine reads them from
// the batch row (src/domain/batch-settings.ts, src/domain/calling-window.ts).
import { z } from 'zod';
import { ianaTimezone } from './time-zones.ts';
import { fraction, int } from './values.ts';

/** How a call attempt ended. */
export const callOutcomes = ['answered', 'no_answer', 'busy', 'voicemail', 'failed', 'ivr', 'call_screening'] as const;
/** Outcomes of a call a machine answered (a call record's `detection`): the call went on, to nobody. */
export const machineOutcomes = ['voicemail', 'ivr', 'call_screening'] as const;
export type CallOutcomeName = (typeof callOutcomes)[number];

export const weekdays = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
export type Weekday = (typeof weekdays)[number];

const HH_MM = /^([01][0-9]|2[0-3]):[0-5][0-9]$/;
/** Minutes since midnight of an HH:MM time. */
export const minutesOf = (time: string) => Number(time.slice(0, 2)) * 60 + Number(time.slice(3, 5));

export const callingWindow = z
  .strictObject({
    days: z
      .array(z.enum(weekdays))
      .min(1)
      .max(weekdays.length)
      .refine((days) => new Set(days).size === days.length, { message: 'must not name a day twice' })
      .meta({ description: 'the days calls may start, in the local time of the prospect', uniqueItems: true }),
    start: z
      .string()
      .regex(HH_MM, { message: 'must be a 24-hour time, HH:MM' })
      .meta({ description: 'HH:MM, 24-hour: the window opens at start (included)' }),
    end: z
      .string()
      .regex(/^(([01][0-9]|2[0-3]):[0-5][0-9]|24:00)$/, {
        message: 'must be a 24-hour time, HH:MM (24:00 for midnight)',
      })
      .meta({ description: 'HH:MM, 24-hour, after start: the window closes at end (excluded); 24:00 is midnight' }),
    timezone: ianaTimezone.meta({
      description:
        "IANA zone of prospects that have no timezone of their own and whose number's country spans several zones",
    }),
  })
  .refine((window) => minutesOf(window.start) < minutesOf(window.end), {
    path: ['end'],
    message: 'must be after start',
    when: (payload) => payload.issues.length === 0, // a malformed time is reported by its own member
  })
  .meta({
    id: 'CallingWindow',
    description:
      "When attempts may start: on `days`, in [start, end) local time of the prospect's zone (its timezone, else its " +
      "number's country's when that country keeps one time, else the window's timezone). Runs outside it wait.",
  });

export type CallingWindow = z.output<typeof callingWindow>;

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
    count_callbacks: z.boolean().optional().meta({
      description:
        "Whether an attempt a callee asked for (a call record's `callback_at`) counts against `max_attempts`; default false.",
    }),
    delays: z
      .partialRecord(z.enum(callOutcomes), int(0, 30 * 86_400))
      .optional()
      .meta({
        description:
          'Seconds before the next attempt after an outcome, when it is not `delay_seconds` (e.g. `{"voicemail": 7200}`).',
      }),
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
