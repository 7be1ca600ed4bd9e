import {
  agentCreate,
  agentTool,
  agentToolsSet,
  agentUpdate,
  createAgent,
  deleteAgent,
  MAX_TOOLS,
  setAgentTools,
  updateAgent,
} from '../domain/agents.ts';
import type { Agent as AgentRow } from '../generated/prisma/client.ts';
import { agentConfigMembers } from '../records/agent-config.ts';
import { camelCase } from '../records/names.ts';
import { builder, type NodeRef } from './builder.ts';
import { scopeOf } from './context.ts';
import { AgentTypeEnum } from './enums.ts';
import { entityById } from './federation.ts';
import { typesFromSchema } from './json-schema-types.ts';
import { modelConnection } from './pagination.ts';
import { parseOnce } from './parsed-input.ts';
import { tenantNodeId } from './tenant-nodes.ts';

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
    name: t.exposeString('name', { description: 'Its name; not empty.' }),
    description: t.string({
      description: 'What it is, for the model; empty when none was given.',
      resolve: (parameter) => parameter.description ?? '',
    }),
    type: t.string({
      description: 'The JSON type of the value, e.g. `string` (the default).',
      resolve: (parameter) => parameter.type ?? 'string',
    }),
    required: t.boolean({
      description: 'Whether a call must give it (default false).',
      resolve: (parameter) => parameter.required ?? false,
    }),
  }),
});

const AgentTool: NodeRef<'AgentTool'> = builder.prismaNode('AgentTool', {
  ...tenantNodeId,
  nullable: true,
  description: "A tool the agent may call: an HTTP request with parameters (an item of REST's agent `tools`).",
  fields: (t) => ({
    toolId: t.exposeID('id', { description: "The same as `id` (SPEC.md's `tool_id`)." }),
    name: t.exposeString('name', { description: 'Its name; not empty.' }),
    description: t.exposeString('description', {
      description: 'What it does, for the model; empty when none was given.',
    }),
    url: t.exposeString('url', { description: 'The URL it requests; empty when none was given.' }),
    method: t.exposeString('method', {
      description: 'The HTTP method: `GET`, `POST` (the default), `PUT`, `PATCH` or `DELETE`.',
    }),
    isEnabled: t.exposeBoolean('isEnabled', { description: 'Whether the agent may call it (default true).' }),
    configOverride: t.expose('configOverride', {
      type: 'JSON',
      description: "A JSON object of settings overriding the agent's for this tool (default `{}`).",
    }),
    parameters: t.field({
      type: [ToolParameter],
      description: 'What a call gives it, in order.',
      resolve: (tool) => (tool.parameters ?? []) as unknown as StoredParameter[],
    }),
  }),
});

// One GraphQL object type per configuration object, resolving the stored JSON.
const configFields = Object.entries(agentConfigMembers).map(([member, schema]) => {
  const types = typesFromSchema(schema as never);
  return { field: camelCase(member) as keyof AgentRow, type: types.output(), description: types.description };
});

export const Agent: NodeRef<'Agent'> = builder.prismaNode('Agent', {
  ...tenantNodeId,
  nullable: true,
  description:
    'A voice, chat or video agent with its configuration objects and tools. REST: `/agents/{id}` (E1, E2, E3).',
  fields: (t) => ({
    name: t.exposeString('name', { description: 'Its name; not empty.' }),
    organizationId: t.exposeID('organizationId', { description: 'The id of its organization (`org_…`).' }),
    type: t.expose('type', { type: AgentTypeEnum, description: 'Voice, chat or video (default `voice`).' }),
    promptTemplate: t.exposeString('promptTemplate', {
      description: 'The prompt template; empty when none was given.',
    }),
    publicQuota: t.exposeInt('publicQuota', {
      description: "SPEC.md's `public_quota`: 0 unless set outside this API.",
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it was created.' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime', description: 'When it last changed.' }),
    allowedSipTrunks: t.exposeStringList('allowedSipTrunks', {
      description: "SPEC.md's `allowed_sip_trunks`: trunk ids; empty unless set outside this API.",
    }),
    defaultFunctions: t.exposeStringList('defaultFunctions', {
      description: 'Names of the functions it has by default; empty when none.',
    }),
    plugins: t.expose('plugins', {
      type: 'JSON',
      description: 'A JSON array of free-form plugin entries; empty when none.',
    }),
    ...Object.fromEntries(
      configFields.map(({ field, type, description }) => [
        field,
        t.field({
          type,
          nullable: true,
          description: [description, 'Null when unset.'].filter(Boolean).join(' '),
          resolve: (agent) => agent[field] as Record<string, unknown> | null,
        }),
      ]),
    ),
    tools: t.field({
      type: [AgentTool],
      description: 'Its tools, in the order `setAgentTools` gave them.',
      resolve: (agent, _args, context) => context.loaders.toolsOfAgent.load(agent.id),
    }),
  }),
});

const AgentCreate = typesFromSchema(agentCreate);
const AgentUpdate = typesFromSchema(agentUpdate);
const AgentToolInput = typesFromSchema(agentTool);

const DeleteAgentPayload = builder.objectRef<{ id: string }>('DeleteAgentPayload').implement({
  description: 'What `deleteAgent` answers.',
  fields: (t) => ({
    // Not named `id`: clients that normalize by id would mistake it for the agent.
    deletedAgentId: t.exposeID('id', { description: 'The id of the agent deleted; remove it from client caches.' }),
  }),
});

builder.queryFields((t) => ({
  agent: t.field({
    type: Agent,
    nullable: true,
    description: "An agent of the organization; null for an unknown id or another organization's (E2).",
    args: { id: t.arg.id({ required: true, description: 'Its id (`agt_…`).' }) },
    resolve: (_root, args, context) => context.loaders.agent.load(String(args.id)),
  }),
  agents: t.connection({
    type: Agent,
    description: "The organization's agents, newest first (`GET /agents`).",
    resolve: (_root, args, context) =>
      modelConnection(args, context.db.agent, {
        orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
        // Primed, so `evaluations { agent }` below costs no statement.
        loaded: (agent) => context.loaders.agent.prime(agent.id, agent),
      }),
  }),
}));

builder.mutationFields((t) => ({
  createAgent: t.field({
    type: Agent,
    description: 'Creates an agent from the update shape, `name` required (`POST /agents`).',
    args: { input: t.arg({ type: AgentCreate.input(), required: true, description: 'The agent; `name` required.' }) },
    resolve: (_root, args, context) =>
      createAgent(scopeOf(context), AgentCreate.parse(context, args.input), context.outbound),
  }),
  updateAgent: t.field({
    type: Agent,
    description:
      'Partial update (E1): members absent stay, a configuration object given replaces that object whole, null clears it.',
    args: {
      id: t.arg.id({ required: true, description: 'The agent (`agt_…`).' }),
      input: t.arg({ type: AgentUpdate.input(), required: true, description: 'The members to change.' }),
    },
    resolve: (_root, args, context) =>
      updateAgent(scopeOf(context), String(args.id), AgentUpdate.parse(context, args.input), context.outbound),
  }),
  deleteAgent: t.field({
    type: DeleteAgentPayload,
    description: 'Deletes the agent with its tools and evaluations (E3).',
    args: { id: t.arg.id({ required: true, description: 'The agent (`agt_…`).' }) },
    resolve: (_root, args, context) => deleteAgent(scopeOf(context), String(args.id)),
  }),
  setAgentTools: t.field({
    type: Agent,
    description: "Replaces the agent's tools with the given list, in its order.",
    args: {
      agentId: t.arg.id({ required: true, description: 'The agent (`agt_…`).' }),
      tools: t.arg({
        type: [AgentToolInput.input()],
        required: true,
        description: `Its new tools, at most ${MAX_TOOLS}: the old ones are replaced.`,
        // Its own bound, which parsing it enforces (src/graphql/operation-cost.ts leaves it to it).
        extensions: { maxItems: MAX_TOOLS },
      }),
    },
    resolve: (_root, args, context) =>
      setAgentTools(
        scopeOf(context),
        String(args.agentId),
        parseOnce(context, agentToolsSet, () => ({ tools: args.tools.map((tool) => AgentToolInput.toStored(tool)) })),
      ),
  }),
}));

// A federation entity: other subgraphs may resolve it by id (federation.ts).
entityById(Agent, 'agent');
