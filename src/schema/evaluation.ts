import type { DefaultConnectionArguments } from '@pothos/plugin-relay';
import { newestFirst } from '../db/parts/child-orders.ts';
import type { EvaluationResults } from '../db/sql/evaluation-results.ts';
import { rowKey } from '../db/tenant.ts';
import { createEvaluation, evaluationCreate, evaluationPeriod } from '../domain/evaluations.ts';
import { Agent } from './agent.ts';
import { builder, type NodeRef } from './builder.ts';
import { type GraphQLContext, scopeOf } from './context.ts';
import { databaseIdOf } from './global-ids.ts';
import { typesFromSchema } from './json-schema-types.ts';
import { childConnection } from './pagination.ts';

/** A page of the agent's evaluations, newest first: Agent.evaluations and the root `evaluations`. */
const evaluationsOf = (agentId: string, args: DefaultConnectionArguments, context: GraphQLContext) =>
  childConnection(args, context.loaders, { list: 'evaluationsOfAgent', parentId: agentId, orderBy: newestFirst });

const EvaluationResultsRef = builder.objectRef<EvaluationResults>('EvaluationResults').implement({
  description: 'How calls did on an evaluation over a period.',
  fields: (t) => ({
    count: t.exposeInt('count', { description: 'How many call records scored it.' }),
    passRate: t.exposeFloat('passRate', {
      nullable: true,
      description: 'The share of them that passed it, 0 to 1; null when none scored it.',
    }),
    meanScore: t.exposeFloat('meanScore', {
      nullable: true,
      description: 'Their mean score, 0 to 100; null when none scored it.',
    }),
  }),
});

// Its integer id is SPEC's `id` (`databaseId` here); the global id is `evl_<n>`.
const Evaluation: NodeRef<'Evaluation'> = builder.prismaNode('Evaluation', {
  id: { resolve: (row) => row.id },
  nullable: true,
  findUnique: (id, context) => rowKey(context.viewer.organizationId, databaseIdOf(id)),
  description:
    "A score given to one of the organization's agents (E18, E19). Its global id is `evl_` and its integer id.",
  fields: (t) => ({
    databaseId: t.exposeInt('id', { description: 'The integer id REST uses.' }),
    agentId: t.exposeID('agentId', { description: 'The id of the agent evaluated (`agt_…`).' }),
    orgId: t.exposeID('organizationId', { description: 'The id of its organization (`org_…`).' }),
    category: t.exposeString('category', { description: 'Free text; empty when none was given.' }),
    title: t.exposeString('title', { description: 'Free text; empty when none was given.' }),
    prompt: t.exposeString('prompt', { description: 'The prompt evaluated; empty when none was given.' }),
    score: t.exposeInt('score', { description: 'The score, 0 to 100.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it was recorded.' }),
    results: t.field({
      type: EvaluationResultsRef,
      description:
        "How calls did on it: the records made in the period that score it (their agent worker's `evaluations`). " +
        'BAD_INPUT when `to` is before `from`.',
      args: {
        from: t.arg({
          type: 'DateTime',
          description: 'Records made at or after this instant; since the first when absent.',
        }),
        to: t.arg({ type: 'DateTime', description: 'Records made before this instant; until now when absent.' }),
      },
      resolve: (evaluation, args, context) => {
        const { from, to } = evaluationPeriod(args.from, args.to);
        return context.loaders.resultsOfEvaluation.load({ evaluationId: evaluation.id, from, to });
      },
    }),
    agent: t.field({
      type: Agent,
      description: 'The agent evaluated.',
      resolve: async (evaluation, _args, context) => (await context.loaders.agent.load(evaluation.agentId))!,
    }),
  }),
});

const EvaluationCreate = typesFromSchema(evaluationCreate);

builder.queryFields((t) => ({
  evaluations: t.connection({
    type: Evaluation,
    nullable: true,
    description: "The agent's evaluations, newest first (E19); null when the agent is not the caller's.",
    args: { agentId: t.arg.id({ required: true, description: 'The agent (`agt_…`).' }) },
    resolve: async (_root, args, context) => {
      const agent = await context.loaders.agent.load(String(args.agentId));
      return agent ? evaluationsOf(agent.id, args, context) : null;
    },
  }),
}));

builder.mutationFields((t) => ({
  createEvaluation: t.field({
    type: Evaluation,
    description: "Records an evaluation of one of the organization's agents (E18).",
    args: { input: t.arg({ type: EvaluationCreate.input(), required: true, description: 'The evaluation.' }) },
    resolve: (_root, args, context) => createEvaluation(scopeOf(context), EvaluationCreate.parse(context, args.input)),
  }),
}));

// Declared beside Evaluation, so that agent.ts need not import this file (no import cycle).
builder.prismaObjectField(Agent, 'evaluations', (t) =>
  t.connection({
    type: Evaluation,
    description: 'Its evaluations, newest first (E19 lists the same).',
    resolve: (agent, args, context) => evaluationsOf(agent.id, args, context),
  }),
);
