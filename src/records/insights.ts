// SPEC.md's insight record.
import { z } from 'zod';
import { record, timestamp } from './record.ts';
import { integer } from './values.ts';

const date = () => z.string().meta({ format: 'date' });

export const insight = record(
  { id: 'Insight' },
  {
    id: z.string(),
    created_at: timestamp(),
    period_start: date(),
    period_end: date(),
    executive_summary: z.string(),
    total_calls: integer(),
    issues_identified: integer(),
    issue_rate: z.number(),
  },
);
