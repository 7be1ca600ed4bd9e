// A batch's call records by disposition and by detection: a bar chart each
// (src/console/chart.tsx), and the same counts as a list that a screen reader
// and a test read.
import type { RecordBreakdown } from '../console-operations/console-operations.ts';
import { BarChart, CATEGORY_COLORS, DETECTION_COLORS } from './chart.tsx';
import { count, plural } from './format.ts';
import { Empty } from './ui.tsx';

interface Bar {
  key: string;
  label: string;
  count: number;
  color: string;
}

const OTHER = '#adb5bd';

/** "call_screening" → "call screening", "ivr" → "IVR". */
const detectionLabel = (result: string) => (result === 'ivr' ? 'IVR' : result.replace('_', ' '));

export function RecordBreakdownCharts({ breakdown, batchName }: { breakdown: RecordBreakdown; batchName: string }) {
  if (breakdown.records === 0) return <Empty>No call record reported yet.</Empty>;
  const dispositions: Bar[] = breakdown.dispositions.map((disposition) => ({
    key: `${disposition.label} ${disposition.category}`,
    label: disposition.label,
    count: disposition.count,
    color: CATEGORY_COLORS[disposition.category] ?? OTHER,
  }));
  const detections: Bar[] = breakdown.detections.map((detection) => ({
    key: detection.result,
    label: detectionLabel(detection.result),
    count: detection.count,
    color: DETECTION_COLORS[detection.result] ?? OTHER,
  }));
  return (
    <div class="record-breakdown">
      <Bars name="dispositions" title="Dispositions" bars={dispositions} of={`${batchName}'s call records`} />
      <Bars name="detections" title="Detection" bars={detections} of={`${batchName}'s call records`} />
    </div>
  );
}

function Bars({ name, title, bars, of }: { name: string; title: string; bars: Bar[]; of: string }) {
  const total = bars.reduce((sum, bar) => sum + bar.count, 0);
  return (
    <section class={`breakdown ${name}`} aria-label={title}>
      <h3>{title}</h3>
      {bars.length === 0 ? (
        <p class="muted">None reported.</p>
      ) : (
        <>
          <BarChart
            labels={bars.map((bar) => bar.label)}
            datasets={[
              {
                label: title,
                data: bars.map((bar) => bar.count),
                backgroundColor: bars.map((bar) => bar.color),
                borderRadius: 2,
              },
            ]}
            compact
            height={160}
            label={`${title} of ${of}, ${plural(total, 'record')}: ${bars.map((bar) => `${bar.label} ${bar.count}`).join(', ')}`}
          />
          <ul class="legend breakdown-legend">
            {bars.map((bar) => (
              <li key={bar.key}>
                <i style={{ background: bar.color }} aria-hidden="true" />
                <span class="count">{count(bar.count)}</span> <span class="label">{bar.label}</span>
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}
