// SPEC.md's prospect, prospect list and tag records.
import { z } from 'zod';
import { list, record, timestamp, value } from './record.ts';
import { integer } from './values.ts';

export const tag = record({ id: 'Tag' }, { id: value(z.string()), name: value(z.string()) });

export const prospect = record(
  { id: 'Prospect' },
  {
    id: value(z.string()),
    first_name: value(z.string()),
    last_name: value(z.string()),
    email: value(z.string()),
    phone: value(z.string()),
    timezone: value(z.string().nullable()),
    created_at: timestamp(),
    updated_at: timestamp(),
    tags: list(tag),
  },
);

export const prospectList = record(
  { id: 'ProspectList' },
  { id: value(z.string()), name: value(z.string()), prospect_count: value(integer()) },
);
