// A prospect's consent history (GET /prospects/{prospect_id}/consents): each
// entry a consent, or a revocation (`revoked_at` set) of the consents of its
// scope captured before it. The engine records the consent in force on each
// attempt it places (`call_attempts[i].consent`).
import { z } from 'zod';
import { record, timestamp } from './record.ts';

export const consentChannels = ['voice'] as const;

export const consent = record(
  {
    id: 'Consent',
    description:
      'An entry of a prospect’s consent history: a consent, or (with `revoked_at`) a revocation of the consents of its scope captured before it. Entries are never changed.',
  },
  {
    id: z.string(),
    channel: z.enum(consentChannels),
    scope: z.string(),
    source: z.string(),
    captured_at: timestamp(),
    evidence: z.string().nullable().meta({ description: 'text or an https address; null once the person was erased' }),
    expires_at: timestamp().nullable(),
    revoked_at: timestamp().nullable(),
    created_at: timestamp(),
  },
);
