// A workflow definition's steps: `{ "steps": [{ "id", "type", ... }] }`. The
// step types the service knows (call, webhook, wait) are checked when a
// version is published, references included (the call's agent, trunk and
// caller number must be the organization's), so a run never meets a step
// that was wrong from the start. Other types pass: handlers are pluggable.
import { z } from 'zod';
import { rowKey } from '../db/tenant.ts';
import { reservedHeaderProblems } from '../outbound/headers.ts';
import type { OutboundPolicy } from '../outbound/request.ts';
import { badInput, type FieldProblem } from './errors.ts';
import { outboundUrlProblems } from './outbound-urls.ts';
import type { Scope } from './scope.ts';
import { e164 } from './telephony.ts';
import { problemsOf } from './validation.ts';

const step = z.looseObject({ id: z.string().min(1), type: z.string().min(1) });
export type Step = z.infer<typeof step>;

export const definitionSteps = z.looseObject({ steps: z.array(step).default([]) });

export const callStep = z
  .looseObject({
    agent_id: z.string().min(1).meta({ description: 'The agent that speaks on the call (required).' }),
    trunk_id: z.string().min(1).optional().meta({ description: 'An outbound SIP trunk; its max_concurrency holds.' }),
    from_number: e164.optional().meta({ description: 'Caller id; without it, the trunk’s numbers in turn.' }),
    caller_id: z.enum(['local']).optional().meta({
      description:
        'local: the trunk’s number nearest the callee (same area code, else region, else country, else in turn); needs trunk_id.',
    }),
  })
  .refine((step) => step.caller_id === undefined || (step.trunk_id !== undefined && step.from_number === undefined), {
    path: ['caller_id'],
    message: 'caller_id "local" chooses among the numbers of trunk_id: it needs trunk_id and no from_number',
  });
export type CallStep = z.output<typeof callStep>;

export const webhookStep = z.looseObject({
  url: z.url(),
  method: z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']).default('POST'),
  headers: z.record(z.string(), z.string()).default({}),
  timeout_ms: z.number().int().min(1).max(60_000).default(10_000),
});

type WebhookStep = z.output<typeof webhookStep>;

export const waitStep = z.looseObject({ seconds: z.number().min(0).max(86_400) });

const knownSteps: Record<string, z.ZodType> = { call: callStep, webhook: webhookStep, wait: waitStep };

/**
 * Refuses a definition whose steps are malformed or name what the
 * organization does not have: a 400 naming each step and member.
 */
export async function checkDefinition(scope: Scope, definition: unknown, policy: OutboundPolicy) {
  const parsed = definitionSteps.safeParse(definition ?? {});
  if (!parsed.success) throw badInput(problemsOf(parsed.error, ['definition']));
  const problems: FieldProblem[] = [];
  const seen = new Set<string>();
  const calls: { index: number; step: CallStep & Step }[] = [];
  const webhooks: { index: number; step: WebhookStep & Step }[] = [];
  for (const [index, value] of parsed.data.steps.entries()) {
    const at = ['definition', 'steps', index];
    if (seen.has(value.id))
      problems.push({ path: `${at.join('.')}.id`, rule: 'unique', message: `step id ${value.id} is used twice` });
    seen.add(value.id);
    const schema = knownSteps[value.type];
    const checked = schema?.safeParse(value);
    if (checked && !checked.success) {
      problems.push(
        ...problemsOf(checked.error, at).map((problem) => ({
          ...problem,
          message: `step ${value.id}: ${problem.message}`,
        })),
      );
    } else if (value.type === 'call') calls.push({ index, step: checked!.data as CallStep & Step });
    else if (value.type === 'webhook') webhooks.push({ index, step: checked!.data as WebhookStep & Step });
  }
  for (const { index, step: webhook } of webhooks) {
    const at = `definition.steps.${index}`;
    problems.push(
      ...(await outboundUrlProblems(webhook.url, policy, { path: `${at}.url`, httpsOnly: false, mustResolve: false })),
      ...reservedHeaderProblems(webhook.headers, `${at}.headers`),
    );
  }
  for (const { index, step: call } of calls)
    problems.push(...(await missingReferences(scope, call, `definition.steps.${index}`)));
  if (problems.length > 0) throw badInput(problems);
}

/** The call step's agent, trunk and caller number that are not the organization's. */
async function missingReferences(scope: Scope, call: CallStep & Step, at: string): Promise<FieldProblem[]> {
  const problems: FieldProblem[] = [];
  const missing = (member: string, message: string) =>
    problems.push({ path: `${at}.${member}`, rule: 'exists', message: `step ${call.id}: ${message}` });
  // Through the tenant client: another organization's agent or trunk reads as missing.
  if (
    !(await scope.prisma.agent.findUnique({
      where: rowKey(scope.viewer.organizationId, call.agent_id),
      select: { id: true },
    }))
  ) {
    missing('agent_id', `agent ${call.agent_id} does not exist`);
  }
  if (call.trunk_id) {
    const trunk = await scope.prisma.sipTrunk.findUnique({
      where: rowKey(scope.viewer.organizationId, call.trunk_id),
      select: { direction: true },
    });
    if (trunk?.direction !== 'outbound')
      missing('trunk_id', `${call.trunk_id} is not an outbound SIP trunk of the organization`);
  }
  if (call.from_number) {
    const number = await scope.prisma.phoneNumber.findFirst({
      where: { number: call.from_number, ...(call.trunk_id ? { sipTrunkId: call.trunk_id } : {}) },
      select: { id: true },
    });
    if (!number) {
      missing(
        'from_number',
        `${call.from_number} is not a phone number of the organization${call.trunk_id ? ' on that trunk' : ''}`,
      );
    }
  }
  return problems;
}
