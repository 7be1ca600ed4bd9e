// Insights and their generation from run outcomes (src/domain/insights.ts).
import { GraphQLError, Kind } from 'graphql';
import { rowKey } from '../db/tenant.ts';
import { generateInsight, insightFilter, insightPeriod, insightWhere, isoDateOf } from '../domain/insights.ts';
import { builder, type NodeRef } from './builder.ts';
import { modelConnection } from './pagination.ts';
import { parseOnce } from './parsed-input.ts';
import { tenantNodeId } from './tenant-nodes.ts';

type Types = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never;

const DATE = /^\d{4}-\d{2}-\d{2}$/;
function parseDate(value: unknown): string {
  // The round trip refuses dates that do not exist (2026-02-30).
  if (
    typeof value === 'string' &&
    DATE.test(value) &&
    !Number.isNaN(Date.parse(value)) &&
    isoDateOf(new Date(value)) === value
  ) {
    return value;
  }
  throw new GraphQLError('Date must be a calendar date, YYYY-MM-DD');
}

// The builder's scalar list (builder.ts) has no Date, so the ref's shapes are
// given here: a checked YYYY-MM-DD string in (the domain's own format), a
// Date at UTC midnight (a `@db.Date` column) out.
const scalarType = builder.scalarType.bind(builder) as unknown as (
  name: string,
  options: PothosSchemaTypes.ScalarTypeOptions<Types, string, Date>,
) => PothosSchemaTypes.ScalarRef<Types, Date, string>;

const DateScalar = scalarType('Date', {
  description: 'A calendar date, YYYY-MM-DD.',
  serialize: (value) => isoDateOf(value),
  parseValue: parseDate,
  parseLiteral: (node) => parseDate(node.kind === Kind.STRING ? node.value : undefined),
});

const Insight: NodeRef<'Insight'> = builder.prismaNode('Insight', {
  ...tenantNodeId,
  nullable: true,
  description: "A summary of the organization's calls over a period of days (E20).",
  fields: (t) => ({
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it was (last) generated.' }),
    periodStart: t.expose('periodStart', { type: DateScalar, description: 'First day of the period.' }),
    periodEnd: t.expose('periodEnd', { type: DateScalar, description: 'Last day of the period (included).' }),
    executiveSummary: t.exposeString('executiveSummary', {
      description:
        'The period in words, for people, written from the records: the top dispositions and issue labels with counts, detection shares, the weakest evaluations.',
    }),
    totalCalls: t.exposeInt('totalCalls', { description: 'Call attempts that ended in the period.' }),
    issuesIdentified: t.exposeInt('issuesIdentified', {
      description:
        "Those among them whose record's disposition category is `issue` or that failed an evaluation, or that ended `failed` (no answer, busy and voicemail are not issues).",
    }),
    issueRate: t.exposeFloat('issueRate', {
      description:
        'The share of calls with an issue, issuesIdentified / totalCalls (0 to 1); 0 when there were no calls.',
    }),
  }),
});

builder.queryFields((t) => ({
  insight: t.field({
    type: Insight,
    nullable: true,
    description: "An insight of the organization; null for an unknown id or another organization's.",
    args: { id: t.arg.id({ required: true, description: 'Its id (`ins_…`).' }) },
    resolve: (_root, args, context) =>
      context.db.insight.findUnique({ where: rowKey(context.viewer.organizationId, String(args.id)) }),
  }),
  insights: t.connection({
    type: Insight,
    description: 'Insights whose whole period lies between the dates given (either optional), newest first (E20).',
    args: {
      periodStart: t.arg({
        type: DateScalar,
        required: false,
        description: 'Only insights starting on or after this day.',
      }),
      periodEnd: t.arg({
        type: DateScalar,
        required: false,
        description: 'Only insights ending on or before this day.',
      }),
    },
    resolve: (_root, args, context) => {
      const where = insightWhere(
        parseOnce(context, insightFilter, () => ({
          period_start: args.periodStart ?? undefined,
          period_end: args.periodEnd ?? undefined,
        })),
      );
      return modelConnection(args, context.db.insight, { where, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }] });
    },
  }),
}));

builder.mutationFields((t) => ({
  generateInsight: t.field({
    type: Insight,
    description:
      "Computes the period's insight from the calls that ended in it and their records; generating a period again replaces its insight.",
    args: {
      periodStart: t.arg({ type: DateScalar, required: true, description: 'The first day of the period.' }),
      periodEnd: t.arg({
        type: DateScalar,
        required: true,
        description: 'The last day of the period (included); not before periodStart.',
      }),
    },
    resolve: (_root, args, context) =>
      generateInsight(
        context.db,
        context.viewer.organizationId,
        parseOnce(context, insightPeriod, () => ({ period_start: args.periodStart, period_end: args.periodEnd })),
      ),
  }),
}));
