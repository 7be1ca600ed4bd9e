// SPEC.md's prospect, prospect list and tag records.
import { z } from 'zod';
import { list, record, timestamp } from './record.ts';
import { integer } from './values.ts';

export const tag = record({ id: 'Tag' }, { id: z.string(), name: z.string() });

export const prospect = record(
  { id: 'Prospect' },
  {
    id: z.string(),
    first_name: z.string(),
    last_name: z.string(),
    email: z.string(),
    phone: z.string(),
    timezone: z.string().nullable(),
    created_at: timestamp(),
    updated_at: timestamp(),
    tags: list(tag),
  },
);

export const prospectList = record(
  { id: 'ProspectList' },
  { id: z.string(), name: z.string(), prospect_count: integer() },
);
