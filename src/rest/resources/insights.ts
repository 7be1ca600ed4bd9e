// SPEC.md's insight record (E20).
import { z } from 'zod';
import { wire } from '../wire.ts';
import { int, timestamp } from './common.ts';

export const insightFragment = `fragment InsightRest on Insight {
  id createdAt periodStart periodEnd executiveSummary totalCalls issuesIdentified issueRate }`;
export const insightSchema = z
  .strictObject({
    id: z.string(),
    created_at: timestamp(),
    period_start: z.string().meta({ format: 'date' }),
    period_end: z.string().meta({ format: 'date' }),
    executive_summary: z.string(),
    total_calls: int(),
    issues_identified: int(),
    issue_rate: z.number(),
  })
  .meta({ id: 'Insight' });

export const presentInsight = (insight: Record<string, unknown>) => wire(insight);
