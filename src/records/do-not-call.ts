// The do-not-call list's entries.
import { z } from 'zod';
import { record, timestamp } from './record.ts';

export const doNotCallNumber = record(
  { id: 'DoNotCallNumber' },
  { number: z.string(), reason: z.string().nullable(), created_at: timestamp() },
);
