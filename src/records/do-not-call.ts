// The do-not-call list's entries.
import { z } from 'zod';
import { record, timestamp, value } from './record.ts';

export const doNotCallNumber = record(
  { id: 'DoNotCallNumber' },
  { number: value(z.string()), reason: value(z.string().nullable()), created_at: timestamp() },
);
