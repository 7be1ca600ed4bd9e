// The values of the organization's contact settings (GET/PATCH /settings):
// how often one number may be called over all its batches (contact_limits),
// and when a caller id is rested (number_health); and what a number's health
// shows (GET /phone-numbers/{id}).
import { z } from 'zod';
import { fraction, instant, int, integer } from './values.ts';

/** Windows in contact_limits at most. */
const MAX_CONTACT_LIMITS = 5;
/** The longest window a limit may count over, in hours (90 days). */
const MAX_CONTACT_WINDOW_HOURS = 2160;
/** The longest rest, in hours (30 days). */
const MAX_REST_HOURS = 720;
/** The most attempts a number's health is taken over. */
const MAX_HEALTH_ATTEMPTS = 1000;

export const contactLimit = z
  .strictObject({
    max_calls: int(1, 1000).meta({ description: 'Calls to one number, answered or not, at most in the window;' }),
    per_hours: int(1, MAX_CONTACT_WINDOW_HOURS).meta({ description: 'The window, in hours, ending now;' }),
  })
  .meta({
    id: 'ContactLimit',
    description:
      "At most `max_calls` calls to one number in any `per_hours` hours, over all the organization's batches.",
  });
export type ContactLimit = z.output<typeof contactLimit>;

export const contactLimits = z.array(contactLimit).max(MAX_CONTACT_LIMITS).meta({
  description:
    "Calls to one number over all the organization's batches, at most, in each window (e.g. 3 in 24 hours, 7 in 168); a run over one waits until it allows; default none",
});

export const numberHealthSettings = z
  .strictObject({
    min_attempts: int(1, MAX_HEALTH_ATTEMPTS)
      .default(20)
      .meta({ description: 'Ended attempts a number needs before it is judged; default 20;' }),
    window: int(10, MAX_HEALTH_ATTEMPTS)
      .default(100)
      .meta({ description: "How many of the number's latest attempts the rates are taken over; default 100;" }),
    min_answer_rate: fraction()
      .optional()
      .meta({ description: 'Rested when fewer of its ended attempts than this were answered (0 to 1);' }),
    max_short_call_rate: fraction()
      .optional()
      .meta({ description: 'Rested when more of its answered calls than this lasted under 10 seconds (0 to 1);' }),
    max_voicemail_share: fraction()
      .optional()
      .meta({ description: 'Rested when more of its ended attempts than this reached voicemail (0 to 1);' }),
    max_attempts_per_day: int(1, 1_000_000)
      .optional()
      .meta({ description: 'Rested when it placed more attempts than this in the last 24 hours;' }),
    rest_hours: int(1, MAX_REST_HOURS).default(24).meta({ description: 'How long a number is rested; default 24;' }),
  })
  .meta({
    id: 'NumberHealthSettings',
    description:
      'When a caller id is rested automatically: thresholds on its latest attempts, and for how long. Null: never.',
  });
export type NumberHealthSettings = z.output<typeof numberHealthSettings>;
/** A caller id's figures (GET /phone-numbers/{id} `health`, GraphQL `PhoneNumber.health`). */
export const phoneNumberHealth = z
  .strictObject({
    answer_rate: z.number().nullable().meta({ description: 'Share of its latest ended attempts answered;' }),
    short_call_rate: z
      .number()
      .nullable()
      .meta({ description: 'Share of its latest answered calls that lasted under 10 seconds;' }),
    voicemail_share: z
      .number()
      .nullable()
      .meta({ description: 'Share of its latest ended attempts that reached voicemail;' }),
    attempts: integer().meta({ description: 'The ended attempts the shares are taken over;' }),
    attempts_today: integer().meta({ description: 'Attempts it placed in the last 24 hours;' }),
    rested_until: instant()
      .nullable()
      .meta({ description: 'Until when it is not used for new calls while its trunk has other numbers;' }),
    rested_reason: z
      .string()
      .nullable()
      .meta({ description: 'Why: the threshold of `number_health` it crossed, or `manual`;' }),
  })
  .meta({
    id: 'PhoneNumberHealth',
    description:
      'How a caller id fares, over its latest attempts since it was last restored or its last rest ended (null shares: no attempts yet).',
  });
export type PhoneNumberHealth = z.output<typeof phoneNumberHealth>;
