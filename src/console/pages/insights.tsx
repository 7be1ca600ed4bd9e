// Insights: call volume and issue rate per period (a chart), and each
// period's executive summary, newest first.
import { useQuery } from '@urql/preact';
import { ConsoleInsights, type InsightRow } from '../../console-operations/console-operations.ts';
import { BarChart } from '../chart.tsx';
import { documentOf } from '../client.ts';
import { count, dateTime, day, percent, plural } from '../format.ts';
import { Empty, ErrorNote, Loading } from '../ui.tsx';

const period = (insight: InsightRow) =>
  insight.periodStart === insight.periodEnd
    ? day(insight.periodStart)
    : `${day(insight.periodStart)} – ${day(insight.periodEnd)}`;

const asPercent = (value: number) => `${Math.round(value)}%`;

export function InsightsPage() {
  const [result, reexecute] = useQuery({ query: documentOf(ConsoleInsights) });
  const insights = result.data?.insights;
  const chronological = [...(insights?.nodes ?? [])].sort(
    (a, b) => a.periodStart.localeCompare(b.periodStart) || a.periodEnd.localeCompare(b.periodEnd),
  );
  const calls = chronological.reduce((sum, insight) => sum + insight.totalCalls, 0);
  return (
    <section class="page insights-page" aria-labelledby="insights-title">
      <header class="page-header">
        <div>
          <h1 id="insights-title">Insights</h1>
          <p class="subtitle">
            {insights ? `${plural(insights.totalCount, 'period')} · regenerated hourly for today and yesterday` : ' '}
          </p>
        </div>
      </header>
      {result.error && !insights ? (
        <ErrorNote
          error={result.error}
          what="the insights"
          retry={() => reexecute({ requestPolicy: 'network-only' })}
        />
      ) : !insights ? (
        <Loading what="insights" />
      ) : insights.nodes.length === 0 ? (
        <Empty>No insights yet: they are generated once runs end (or with the generateInsight mutation).</Empty>
      ) : (
        <>
          <div class="card">
            <h2>Call volume and issue rate</h2>
            <BarChart
              height={240}
              labels={chronological.map(period)}
              label={`Calls and issue rate over ${plural(chronological.length, 'period')}: ${count(calls)} calls in all`}
              rightAxis={asPercent}
              datasets={[
                {
                  type: 'bar',
                  label: 'Calls',
                  data: chronological.map((insight) => insight.totalCalls),
                  backgroundColor: '#4263eb',
                  borderRadius: 3,
                  yAxisID: 'y',
                  order: 2,
                },
                {
                  type: 'line',
                  label: 'Issue rate',
                  data: chronological.map((insight) => insight.issueRate * 100),
                  borderColor: '#e03131',
                  backgroundColor: '#e03131',
                  pointRadius: 3,
                  tension: 0.25,
                  yAxisID: 'y1',
                  order: 1,
                },
              ]}
            />
          </div>
          <ol class="insight-list">
            {[...chronological].reverse().map((insight) => (
              <li key={insight.id} class="card insight" data-insight-id={insight.id}>
                <header class="card-title spread">
                  <h2>{period(insight)}</h2>
                  <span class="muted">generated {dateTime(insight.createdAt)}</span>
                </header>
                <dl class="metrics inline">
                  <div class="metric">
                    <dt>Calls</dt>
                    <dd class="value">{count(insight.totalCalls)}</dd>
                  </div>
                  <div class="metric">
                    <dt>Issues</dt>
                    <dd class="value">{count(insight.issuesIdentified)}</dd>
                  </div>
                  <div class="metric">
                    <dt>Issue rate</dt>
                    <dd class="value">{percent(insight.issueRate)}</dd>
                  </div>
                </dl>
                <p class="summary">{insight.executiveSummary}</p>
              </li>
            ))}
          </ol>
        </>
      )}
    </section>
  );
}
