// What an organization shows of itself: its settings, and its signing secret as rotated.
import { z } from 'zod';
import { blackoutDates } from './blackout-dates.ts';
import { contactLimits, numberHealthSettings } from './contact-settings.ts';
import { jsonList, jsonObject, record, timestamp } from './record.ts';
import { integer } from './values.ts';

export const organizationSettings = record(
  { id: 'OrganizationSettings' },
  {
    max_concurrent_calls: integer().nullable(),
    redact_pii: z.boolean(),
    transcript_language: z.string(),
    retention_days: integer().nullable(),
    require_consent: z.boolean(),
    blackout_dates: jsonList(blackoutDates),
    contact_limits: jsonList(contactLimits),
    number_health: jsonObject(numberHealthSettings.nullable()),
  },
);

/** Shown once, as it is made. */
export const signingSecret = record({ id: 'SigningSecret' }, { secret: z.string(), rotated_at: timestamp() });
