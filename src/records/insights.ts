// SPEC.md's insight record (E20).
import { z } from 'zod';
import { record, timestamp, value } from './record.ts';
import { integer } from './values.ts';

const date = () => z.string().meta({ format: 'date' });

export const insight = record(
  { id: 'Insight' },
  {
    id: value(z.string()),
    created_at: timestamp(),
    period_start: value(date()),
    period_end: value(date()),
    executive_summary: value(z.string()),
    total_calls: value(integer()),
    issues_identified: value(integer()),
    issue_rate: value(z.number()),
  },
);
