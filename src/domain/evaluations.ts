// Evaluations of an agent (POST and GET /agents/evals): they belong to an agent of the caller's
// organization and go when it is deleted.
import { z } from 'zod';
import { isForeignKeyViolation } from '../db/prisma-errors.ts';
import { rowKey } from '../db/tenant.ts';
import { int } from '../records/values.ts';
import { badInput, notFound } from './errors.ts';
import type { Scope } from './scope.ts';

export const evaluationCreate = z
  .strictObject({
    agent_id: z.string().min(1).meta({ description: "The agent evaluated: one of the organization's (`agt_…`)" }),
    category: z.string().default('').meta({ description: 'Free text' }),
    title: z.string().default('').meta({ description: 'Free text' }),
    prompt: z.string().default('').meta({ description: 'The prompt evaluated' }),
    score: int(0, 100).meta({ description: 'The score' }),
  })
  .meta({ id: 'EvaluationCreate', description: 'An evaluation of one of the organization’s agents (E18).' });
type EvaluationCreate = z.output<typeof evaluationCreate>;

export async function createEvaluation(scope: Scope, data: EvaluationCreate) {
  const agent = await scope.prisma.agent.findUnique({
    where: rowKey(scope.viewer.organizationId, data.agent_id),
    select: { id: true },
  });
  if (!agent) throw notFound('agent');
  try {
    return await scope.prisma.evaluation.create({
      data: {
        organizationId: scope.viewer.organizationId,
        agentId: data.agent_id,
        category: data.category,
        title: data.title,
        prompt: data.prompt,
        score: data.score,
      },
    });
  } catch (error) {
    // The agent was deleted between the check and the insert.
    if (isForeignKeyViolation(error)) throw notFound('agent');
    throw error;
  }
}

/** The latest instant a period reaches when it names no end. */
const END_OF_TIME = new Date(8.64e15);

/**
 * The period `Evaluation.results` reads, [from, to): from the first record,
 * until the last, when a bound is absent. BAD_INPUT when `to` is before `from`.
 */
export function evaluationPeriod(from: Date | null | undefined, to: Date | null | undefined) {
  if (from && to && to < from) throw badInput([{ path: 'to', rule: 'order', message: 'must not be before from' }]);
  return { from: from ?? new Date(0), to: to ?? END_OF_TIME };
}
