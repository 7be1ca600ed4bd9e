// Workflows and their versions. A workflow's `version` is its latest version
// number and its definition is that version's; publishing a definition makes
// version N+1, updating name, description, trigger type or active flag never does.
import { z } from 'zod';
import { rowKey } from '../db/tenant.ts';
import type { OutboundPolicy } from '../outbound/request.ts';
import { notFound } from './errors.ts';
import { actorOf, type Scope } from './scope.ts';
import { checkDefinition } from './workflow-definition.ts';

/** A workflow's steps (workflow-definition.ts checks the ones the service knows); the run engine reads it. */
const workflowDefinition = z.record(z.string(), z.unknown()).meta({
  description: 'The workflow definition: a JSON object (its steps)',
});

export const workflowCreate = z
  .strictObject({
    name: z.string().min(1).meta({ description: 'Its name' }),
    description: z.string().optional().meta({ description: 'Free text (empty unless given)' }),
    trigger_type: z
      .string()
      .min(1)
      .optional()
      .meta({ description: 'What starts it, free text (`manual` unless given)' }),
    is_active: z.boolean().optional().meta({ description: 'The active flag (true unless given)' }),
    definition: workflowDefinition.optional(),
  })
  .meta({ id: 'WorkflowCreate', description: 'A new workflow; its definition becomes version 1.' });
export type WorkflowCreate = z.output<typeof workflowCreate>;

export const workflowUpdate = z
  .strictObject({
    name: z.string().min(1).optional().meta({ description: 'Its name' }),
    description: z.string().optional().meta({ description: 'Free text' }),
    is_active: z.boolean().optional().meta({ description: 'The active flag' }),
    trigger_type: z.string().min(1).optional().meta({ description: 'What starts it, free text' }),
  })
  .meta({ id: 'WorkflowUpdate', description: 'Members to change (E5); those absent stay. It never makes a version.' });
export type WorkflowUpdate = z.output<typeof workflowUpdate>;

export const workflowVersionCreate = z
  .strictObject({ definition: workflowDefinition })
  .meta({ id: 'WorkflowVersionCreate', description: 'A definition to publish as the next version.' });
export type WorkflowVersionCreate = z.output<typeof workflowVersionCreate>;

export async function createWorkflow(scope: Scope, data: WorkflowCreate, policy: OutboundPolicy) {
  await checkDefinition(scope, data.definition, policy);
  const now = new Date();
  return scope.prisma.$transaction(async (tx) => {
    const workflow = await tx.workflow.create({
      data: {
        organizationId: scope.viewer.organizationId,
        name: data.name,
        description: data.description ?? '',
        triggerType: data.trigger_type ?? 'manual',
        isActive: data.is_active ?? true,
        version: 1,
        // Version 1 is published as the workflow is created: one instant for both.
        createdAt: now,
        publishedAt: now,
      },
    });
    await tx.workflowVersion.create({
      data: {
        organizationId: scope.viewer.organizationId,
        workflowId: workflow.id,
        version: 1,
        definition: (data.definition ?? {}) as object,
        createdBy: actorOf(scope),
      },
    });
    return workflow;
  });
}

export async function updateWorkflow(scope: Scope, workflowId: string, data: WorkflowUpdate) {
  const result = await scope.prisma.workflow.updateMany({
    where: { id: workflowId },
    data: {
      name: data.name,
      description: data.description,
      isActive: data.is_active,
      triggerType: data.trigger_type,
    },
  });
  if (result.count === 0) throw notFound('workflow');
  return scope.prisma.workflow.findUniqueOrThrow({ where: rowKey(scope.viewer.organizationId, workflowId) });
}

/** Publishes a new definition as version N+1; concurrent publishes get consecutive numbers. */
export async function publishWorkflowVersion(
  scope: Scope,
  workflowId: string,
  data: WorkflowVersionCreate,
  policy: OutboundPolicy,
) {
  await checkDefinition(scope, data.definition, policy);
  return scope.prisma.$transaction(async (tx) => {
    // The increment locks the workflow row until commit, serializing publishers.
    const bumped = await tx.workflow.updateMany({
      where: { id: workflowId },
      data: { version: { increment: 1 }, publishedAt: new Date() },
    });
    if (bumped.count === 0) throw notFound('workflow');
    const workflow = await tx.workflow.findUniqueOrThrow({ where: rowKey(scope.viewer.organizationId, workflowId) });
    await tx.workflowVersion.create({
      data: {
        organizationId: scope.viewer.organizationId,
        workflowId,
        version: workflow.version,
        definition: data.definition as object,
        createdBy: actorOf(scope),
      },
    });
    return workflow;
  });
}
