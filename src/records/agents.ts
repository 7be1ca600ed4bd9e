// SPEC.md's agent (with its tools) and evaluation records.
import { z } from 'zod';
import { agentConfigMembers, agentTypes } from './agent-config.ts';
import { jsonObject, list, type Member, record, timestamp, value } from './record.ts';
import { integer, jsonValue } from './values.ts';

const toolParameter = record(
  {},
  {
    name: z.string(),
    description: z.string(),
    type: z.string(),
    required: z.boolean(),
  },
);

const tool = record(
  {},
  {
    tool_id: value(z.string(), { sql: (t) => `${t}."id"` }),
    name: z.string(),
    description: z.string(),
    url: z.string(),
    method: z.string(),
    is_enabled: z.boolean(),
    config_override: jsonValue(),
    // Its column holds the list as JSON, wire names.
    parameters: list(toolParameter),
  },
);

/** Each configuration object: its JSON value, or null. */
const configMembers: Record<string, Member> = Object.fromEntries(
  Object.entries(agentConfigMembers).map(([name, schema]) => [
    name,
    jsonObject(schema.nullable().meta({ description: 'The JSON value; null when unset' })),
  ]),
);

/** GET /agents/{id}; an `agent.updated` event's data. */
export const agent = record(
  { id: 'Agent' },
  {
    id: z.string(),
    name: z.string(),
    organization_id: z.string(),
    type: z.enum(agentTypes),
    prompt_template: z.string(),
    public_quota: integer(),
    created_at: timestamp(),
    updated_at: timestamp(),
    allowed_sip_trunks: z.array(z.string()),
    default_functions: z.array(z.string()),
    plugins: z.array(z.unknown()),
    ...configMembers,
    tools: list(tool, {
      table: 'AgentTool',
      alias: 't',
      where: (g) => `t."agentId" = ${g}."id" AND t."organizationId" = ${g}."organizationId"`,
      orderBy: 't.position',
    }),
  },
);

/** POST and GET /agents/evals: its integer id is GraphQL's `databaseId`. */
export const evaluation = record(
  { id: 'Evaluation' },
  {
    id: value(integer(), { field: 'databaseId' }),
    agent_id: z.string(),
    org_id: z.string(),
    category: z.string(),
    title: z.string(),
    prompt: z.string(),
    score: integer(),
    created_at: timestamp(),
  },
);
