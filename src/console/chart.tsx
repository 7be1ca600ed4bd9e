// Charts (Chart.js, only the parts used). A chart is an image to a screen
// reader: its canvas carries a label that says what it shows in numbers.
import {
  BarController,
  BarElement,
  CategoryScale,
  Chart,
  type ChartDataset,
  Legend,
  LinearScale,
  LineController,
  LineElement,
  PointElement,
  Tooltip,
} from 'chart.js';
import { useEffect, useRef } from 'preact/hooks';

Chart.register(
  BarController,
  BarElement,
  LineController,
  LineElement,
  PointElement,
  CategoryScale,
  LinearScale,
  Tooltip,
  Legend,
);
Chart.defaults.font.family = getComputedStyle(document.documentElement).fontFamily || 'system-ui, sans-serif';
Chart.defaults.color = '#5c6370';

export const OUTCOME_COLORS = {
  answered: '#2f9e44',
  noAnswer: '#f08c00',
  busy: '#d9480f',
  voicemail: '#7048e8',
  ivr: '#1971c2',
  callScreening: '#0c8599',
  failed: '#e03131',
  inFlight: '#adb5bd',
} as const;

/** A disposition's bar by its category. */
export const CATEGORY_COLORS: Record<string, string> = {
  success: OUTCOME_COLORS.answered,
  neutral: '#868e96',
  issue: OUTCOME_COLORS.failed,
};

/** A detection's bar: the colour of the outcome it leads to. */
export const DETECTION_COLORS: Record<string, string> = {
  human: OUTCOME_COLORS.answered,
  voicemail: OUTCOME_COLORS.voicemail,
  ivr: OUTCOME_COLORS.ivr,
  call_screening: OUTCOME_COLORS.callScreening,
  unavailable: OUTCOME_COLORS.inFlight,
};

export interface ChartProps {
  labels: string[];
  datasets: ChartDataset<'bar' | 'line', number[]>[];
  /** What the chart shows, for screen readers. */
  label: string;
  height: number;
  stacked?: boolean;
  /** A small chart: no axes titles, no legend, few ticks. */
  compact?: boolean;
  /** A second y axis on the right (for a line of another unit), with its tick format. */
  rightAxis?: (value: number) => string;
}

export function BarChart({ labels, datasets, label, height, stacked = false, compact = false, rightAxis }: ChartProps) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const chart = useRef<Chart<'bar' | 'line', number[], string> | null>(null);

  useEffect(() => {
    chart.current = new Chart(canvas.current!, {
      type: 'bar',
      data: { labels: [], datasets: [] },
      options: {
        responsive: true,
        maintainAspectRatio: false,
        animation: false,
        interaction: { mode: 'index', intersect: false },
        plugins: {
          legend: { display: !compact, position: 'bottom', labels: { boxWidth: 10, boxHeight: 10, padding: 14 } },
          tooltip: { enabled: true },
        },
        scales: {
          x: {
            stacked,
            grid: { display: false },
            ticks: {
              maxRotation: 0,
              autoSkip: true,
              maxTicksLimit: compact ? 4 : 8,
              font: { size: compact ? 10 : 11 },
            },
          },
          y: {
            stacked,
            beginAtZero: true,
            grid: { color: '#eef0f3' },
            border: { display: false },
            ticks: { precision: 0, maxTicksLimit: compact ? 3 : 6, font: { size: compact ? 10 : 11 } },
          },
          ...(rightAxis
            ? {
                y1: {
                  position: 'right',
                  beginAtZero: true,
                  grid: { display: false },
                  border: { display: false },
                  ticks: { callback: (value) => rightAxis(Number(value)), maxTicksLimit: 6, font: { size: 11 } },
                },
              }
            : {}),
        },
      },
    });
    return () => chart.current?.destroy();
  }, [stacked, compact, rightAxis]);

  useEffect(() => {
    if (!chart.current) return;
    chart.current.data = { labels, datasets };
    chart.current.update();
  }, [labels, datasets]);

  return (
    <div class="chart" style={{ height: `${height}px` }}>
      <canvas ref={canvas} role="img" aria-label={label} />
    </div>
  );
}
