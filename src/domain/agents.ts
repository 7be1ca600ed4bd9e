// Agents: create, partial update (PATCH /agents/{agent_id}), delete (DELETE /agents/{agent_id}) and their tools. The
// configuration objects are validated by the schemas of src/records/agent-config.ts and
// stored as their JSON value, under the wire (snake_case) names.
import { z } from 'zod';
import { Prisma } from '../generated/prisma/client.ts';
import { reservedHeaderProblems } from '../outbound/headers.ts';
import type { OutboundPolicy } from '../outbound/request.ts';
import { agentConfigMembers, agentTypes } from '../records/agent-config.ts';
import { camelCase } from '../records/names.ts';
import { badInput, notFound } from './errors.ts';
import { outboundUrlProblems } from './outbound-urls.ts';
import type { Scope } from './scope.ts';
import { Outbox } from './webhook-events.ts';

export const MAX_TOOLS = 100;

const toolParameter = z
  .strictObject({
    name: z.string().min(1).meta({ description: 'Its name' }),
    description: z.string().default('').meta({ description: 'What it is, for the model' }),
    type: z.string().min(1).default('string').meta({ description: 'The JSON type of the value, e.g. `string`' }),
    required: z.boolean().default(false).meta({ description: 'Whether a call must give it' }),
  })
  .meta({ id: 'ToolParameter', description: 'A parameter of a tool.' });

// Its GraphQL input is `AgentToolInput`; the output type is the AgentTool node.
export const agentTool = z
  .strictObject({
    name: z.string().min(1).meta({ description: 'Its name' }),
    description: z.string().default('').meta({ description: 'What it does, for the model' }),
    url: z.string().default('').meta({ description: 'The URL it requests' }),
    method: z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']).default('POST').meta({ description: 'The HTTP method' }),
    is_enabled: z.boolean().default(true).meta({ description: 'Whether the agent may call it' }),
    config_override: z
      .record(z.string(), z.unknown())
      .default({})
      .meta({ description: "Settings overriding the agent's for this tool, a JSON object" }),
    parameters: z
      .array(toolParameter)
      .max(MAX_TOOLS)
      .default([])
      .meta({ description: 'What a call gives it, in order' }),
  })
  .meta({ id: 'AgentTool', description: 'A tool the agent may call.' });

/** Replaces an agent's tools: the list given, in its order. */
export const agentToolsSet = z.strictObject({ tools: z.array(agentTool).max(MAX_TOOLS) }).meta({ id: 'AgentToolsSet' });
type AgentToolsSet = z.output<typeof agentToolsSet>;

/**
 * SPEC.md's agent update request. Every member is optional (PATCH /agents/{agent_id} is a partial
 * update); a config member given replaces that config object whole, and null
 * clears it. Agent creation uses the same shape with `name` required.
 */
export const agentUpdate = z
  .strictObject({
    name: z.string().min(1).optional().meta({ description: 'Its name' }),
    type: z
      .enum(agentTypes)
      .optional()
      .meta({ description: 'What kind of agent it is (created as `voice` unless given)' }),
    prompt_template: z.string().optional().meta({ description: 'The prompt template' }),
    default_functions: z.array(z.string()).optional().meta({ description: 'Names of the functions it has by default' }),
    plugins: z.array(z.unknown()).optional().meta({ description: 'Free-form plugin entries' }),
    ...Object.fromEntries(
      Object.entries(agentConfigMembers).map(([name, schema]) => [name, schema.nullable().optional()]),
    ),
  })
  .meta({
    id: 'AgentUpdate',
    description:
      'Members to change: those absent stay, a configuration object given replaces it whole, null clears it.',
  }) as z.ZodType<AgentUpdate>;

export type AgentUpdate = {
  name?: string;
  type?: (typeof agentTypes)[number];
  prompt_template?: string;
  default_functions?: string[];
  plugins?: unknown[];
} & { [K in keyof typeof agentConfigMembers]?: z.output<(typeof agentConfigMembers)[K]> | null };

export const agentCreate = (agentUpdate as unknown as z.ZodObject).extend({ name: z.string().min(1) }).meta({
  id: 'AgentCreate',
  description: 'A new agent: the members of an update, `name` required.',
}) as unknown as z.ZodType<AgentCreate>;
type AgentCreate = AgentUpdate & { name: string };

/** The columns an update request sets: members absent stay, a config given replaces it, null clears it. */
function columnsOf(data: AgentUpdate) {
  const configs = Object.fromEntries(
    Object.keys(agentConfigMembers)
      .filter((member) => data[member as keyof AgentUpdate] !== undefined)
      .map((member) => {
        const value = data[member as keyof AgentUpdate];
        return [camelCase(member), value === null ? Prisma.DbNull : (value as Prisma.InputJsonValue)];
      }),
  );
  return {
    name: data.name,
    type: data.type,
    promptTemplate: data.prompt_template,
    defaultFunctions: data.default_functions,
    plugins: data.plugins as Prisma.InputJsonValue[] | undefined,
    ...configs,
  } satisfies Prisma.AgentUpdateManyMutationInput;
}

/**
 * The pre-call webhook's URL and headers, checked as they are saved: the URL
 * may not lead into the service's own network (src/domain/outbound-urls.ts),
 * no header may be one the gateway sets itself.
 */
async function checkPrecallWebhook(data: AgentUpdate, policy: OutboundPolicy) {
  const webhook = data.precall_webhook;
  if (!webhook) return;
  const problems = [
    ...(await outboundUrlProblems(webhook.url, policy, {
      path: 'precall_webhook.url',
      httpsOnly: false,
      mustResolve: false,
    })),
    ...reservedHeaderProblems(webhook.headers, 'precall_webhook.headers'),
  ];
  if (problems.length > 0) throw badInput(problems);
}

export async function createAgent(scope: Scope, data: AgentCreate, policy: OutboundPolicy) {
  await checkPrecallWebhook(data, policy);
  return scope.prisma.agent.create({
    data: { ...columnsOf(data), name: data.name, organizationId: scope.viewer.organizationId },
  });
}

/** The webhook event of a changed agent, in the transaction that changed it. */
const agentUpdated = (scope: Scope, agentId: string) =>
  new Outbox().add('agent.updated', scope.viewer.organizationId, { kind: 'agent', id: agentId });

/**
 * PATCH /agents/{agent_id}: a partial update, in one statement (a concurrent update of other
 * members is not lost), with its `agent.updated` event.
 */
export async function updateAgent(scope: Scope, agentId: string, data: AgentUpdate, policy: OutboundPolicy) {
  await checkPrecallWebhook(data, policy);
  return scope.prisma.$transaction(async (tx) => {
    const [agent] = await tx.agent.updateManyAndReturn({ where: { id: agentId }, data: columnsOf(data) });
    if (!agent) throw notFound('agent');
    await agentUpdated(scope, agentId).write(tx, agent.updatedAt);
    return agent;
  });
}

/** DELETE /agents/{agent_id}: the agent, its tools and its evaluations go (the foreign keys cascade). */
export async function deleteAgent(scope: Scope, agentId: string) {
  const { count } = await scope.prisma.agent.deleteMany({ where: { id: agentId } });
  if (count === 0) throw notFound('agent');
  return { id: agentId };
}

/** Replaces the agent's tools with the given list, in order (an `agent.updated` event); returns the agent. */
export async function setAgentTools(scope: Scope, agentId: string, { tools }: AgentToolsSet) {
  return scope.prisma.$transaction(async (tx) => {
    // Touching the agent locks its row: concurrent replacements run one after the other.
    const [agent] = await tx.agent.updateManyAndReturn({ where: { id: agentId }, data: { updatedAt: new Date() } });
    if (!agent) throw notFound('agent');
    await tx.agentTool.deleteMany({ where: { agentId } });
    await tx.agentTool.createMany({
      data: tools.map((tool, position) => ({
        organizationId: scope.viewer.organizationId,
        agentId,
        position,
        name: tool.name,
        description: tool.description,
        url: tool.url,
        method: tool.method,
        isEnabled: tool.is_enabled,
        configOverride: tool.config_override as Prisma.InputJsonValue,
        parameters: tool.parameters,
      })),
    });
    await agentUpdated(scope, agentId).write(tx, agent.updatedAt);
    return agent;
  });
}
