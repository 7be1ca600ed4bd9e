// A batch's call records counted by disposition and by detection (what the
// console's batch page charts), read through a loader: one statement for
// every batch of a page (src/db/sql/record-breakdown-of-batches.ts).
import type { RecordGroup } from '../db/sql/record-breakdown-of-batches.ts';
import { Batch } from './batch.ts';
import { builder } from './builder.ts';

interface Breakdown {
  records: number;
  dispositions: { label: string; category: string; count: number }[];
  detections: { result: string; count: number }[];
}

const DispositionCount = builder.objectRef<Breakdown['dispositions'][number]>('DispositionCount').implement({
  description: 'The call records of one disposition.',
  fields: (t) => ({
    label: t.exposeString('label', { description: 'The disposition, as the agent worker labelled it.' }),
    category: t.exposeString('category', { description: 'Its category: `success`, `neutral` or `issue`.' }),
    count: t.exposeInt('count', { description: 'How many records have it.' }),
  }),
});

const DetectionCount = builder.objectRef<Breakdown['detections'][number]>('DetectionCount').implement({
  description: 'The call records of one detection result.',
  fields: (t) => ({
    result: t.exposeString('result', {
      description: 'What answered: `human`, `voicemail`, `ivr`, `call_screening`, `unavailable`.',
    }),
    count: t.exposeInt('count', { description: 'How many records have it.' }),
  }),
});

const RecordBreakdown = builder.objectRef<Breakdown>('RecordBreakdown').implement({
  description: "A batch's call records by disposition and by detection, most frequent first.",
  fields: (t) => ({
    records: t.exposeInt('records', { description: 'Call records of the batch, with or without either.' }),
    dispositions: t.field({
      type: [DispositionCount],
      description: 'By disposition (label and category); records with none are left out.',
      resolve: (breakdown) => breakdown.dispositions,
    }),
    detections: t.field({
      type: [DetectionCount],
      description: 'By detection result; records with none are left out.',
      resolve: (breakdown) => breakdown.detections,
    }),
  }),
});

function breakdownOf(groups: RecordGroup[]): Breakdown {
  return {
    records: groups.find((group) => group.kind === 'all')?.count ?? 0,
    dispositions: groups.flatMap((group) =>
      group.kind === 'disposition' && group.label
        ? [{ label: group.label, category: group.category ?? '', count: group.count }]
        : [],
    ),
    detections: groups.flatMap((group) =>
      group.kind === 'detection' && group.detection ? [{ result: group.detection, count: group.count }] : [],
    ),
  };
}

builder.objectField(Batch, 'recordBreakdown', (t) =>
  t.field({
    type: RecordBreakdown,
    description:
      "Its call records by disposition and by detection, for charts (the console's batch page); one statement for every batch of a page.",
    resolve: async (batch, _args, context) => breakdownOf(await context.loaders.recordBreakdownOfBatch.load(batch.id)),
  }),
);
