import { agentConfigMembers, agentCreate, agentUpdate } from '../domain/agent-config.ts';
import { agentTool, createAgent, deleteAgent, setAgentTools, updateAgent } from '../domain/agents.ts';
import { camelCase } from '../domain/names.ts';
import type { Agent as AgentRow } from '../generated/prisma/client.ts';
import { builder, type NodeRef } from './builder.ts';
import { AgentTypeEnum } from './enums.ts';
// Agent <-> Evaluation reference each other; refs are only read inside field thunks.
import { Evaluation, evaluationsOf } from './evaluation.ts';
import { typesFromSchema } from './json-schema-types.ts';
import { offsetConnection } from './pagination.ts';

interface StoredParameter {
  name: string;
  description?: string;
  type?: string;
  required?: boolean;
}

// Written by hand rather than generated, so that its members are non-null:
// the domain fills every default before storing a tool.
const ToolParameter = builder.objectRef<StoredParameter>('ToolParameter').implement({
  description: 'A parameter of a tool.',
  fields: (t) => ({
    name: t.exposeString('name'),
    description: t.string({ resolve: (parameter) => parameter.description ?? '' }),
    type: t.string({ resolve: (parameter) => parameter.type ?? 'string' }),
    required: t.boolean({ resolve: (parameter) => parameter.required ?? false }),
  }),
});

export const AgentTool: NodeRef<'AgentTool'> = builder.prismaNode('AgentTool', {
  id: { field: 'id' },
  nullable: true,
  fields: (t) => ({
    toolId: t.exposeID('id', { description: 'The same as `id`.' }),
    name: t.exposeString('name'),
    description: t.exposeString('description'),
    url: t.exposeString('url'),
    method: t.exposeString('method'),
    isEnabled: t.exposeBoolean('isEnabled'),
    configOverride: t.expose('configOverride', { type: 'JSON' }),
    parameters: t.field({
      type: [ToolParameter],
      resolve: (tool) => (tool.parameters ?? []) as unknown as StoredParameter[],
    }),
  }),
});

// One GraphQL object type per configuration object, resolving the stored JSON.
const configFields = Object.entries(agentConfigMembers).map(([member, schema]) => ({
  field: camelCase(member) as keyof AgentRow,
  type: typesFromSchema(schema as never).output(),
}));

export const Agent: NodeRef<'Agent'> = builder.prismaNode('Agent', {
  id: { field: 'id' },
  nullable: true,
  fields: (t) => ({
    name: t.exposeString('name'),
    organizationId: t.exposeID('organizationId'),
    type: t.expose('type', { type: AgentTypeEnum }),
    promptTemplate: t.exposeString('promptTemplate'),
    publicQuota: t.exposeInt('publicQuota'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    allowedSipTrunks: t.exposeStringList('allowedSipTrunks'),
    defaultFunctions: t.exposeStringList('defaultFunctions'),
    plugins: t.expose('plugins', { type: 'JSON' }),
    ...Object.fromEntries(
      configFields.map(({ field, type }) => [
        field,
        t.field({
          type,
          nullable: true,
          resolve: (agent) => agent[field] as Record<string, unknown> | null,
        }),
      ]),
    ),
    tools: t.field({
      type: [AgentTool],
      description: 'In the order they were set.',
      resolve: (agent, _args, context) => context.loaders.toolsOfAgent.load(agent.id),
    }),
    evaluations: t.connection({
      type: Evaluation,
      description: 'Newest first.',
      resolve: (agent, args, context) => evaluationsOf(agent.id, args, context),
    }),
  }),
});

const AgentCreate = typesFromSchema(agentCreate);
const AgentUpdate = typesFromSchema(agentUpdate);
const AgentToolInput = typesFromSchema(agentTool);

const DeleteAgentPayload = builder.objectRef<{ id: string }>('DeleteAgentPayload').implement({
  fields: (t) => ({
    // Not named `id`: clients that normalize by id would mistake it for the agent.
    deletedAgentId: t.exposeID('id'),
  }),
});

builder.queryFields((t) => ({
  agent: t.field({
    type: Agent,
    nullable: true,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, context) => context.loaders.agent.load(String(args.id)),
  }),
  agents: t.connection({
    type: Agent,
    description: "The organization's agents, newest first.",
    resolve: (_root, args, context) =>
      offsetConnection(
        args,
        async ({ offset, limit }) => {
          const agents = await context.prisma.agent.findMany({ orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], skip: offset, take: limit });
          // Primed, so `evaluations { agent }` below costs no statement.
          for (const agent of agents) context.loaders.agent.prime(agent.id, agent);
          return agents;
        },
        () => context.prisma.agent.count(),
      ),
  }),
}));

builder.mutationFields((t) => ({
  createAgent: t.field({
    type: Agent,
    description: 'Creates an agent from the update shape, `name` required.',
    args: { input: t.arg({ type: AgentCreate.input(), required: true }) },
    resolve: (_root, args, context) => createAgent(context, AgentCreate.toStored(args.input)),
  }),
  updateAgent: t.field({
    type: Agent,
    description:
      'Partial update (E1): members absent stay, a configuration object given replaces that object whole, null clears it.',
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: AgentUpdate.input(), required: true }) },
    resolve: (_root, args, context) => updateAgent(context, String(args.id), AgentUpdate.toStored(args.input)),
  }),
  deleteAgent: t.field({
    type: DeleteAgentPayload,
    description: 'Deletes the agent with its tools and evaluations (E3).',
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, context) => deleteAgent(context, String(args.id)),
  }),
  setAgentTools: t.field({
    type: Agent,
    description: "Replaces the agent's tools with the given list, in its order.",
    args: {
      agentId: t.arg.id({ required: true }),
      tools: t.arg({ type: [AgentToolInput.input()], required: true }),
    },
    resolve: (_root, args, context) =>
      setAgentTools(context, String(args.agentId), { tools: args.tools.map((tool) => AgentToolInput.toStored(tool)) }),
  }),
}));
