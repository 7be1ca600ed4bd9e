// SPEC.md's agent (with its tools) and evaluation records.
import { z } from 'zod';
import { agentConfigMembers, agentTypes } from './agent-config.ts';
import { jsonObject, list, type Member, record, timestamp, value } from './record.ts';
import { integer, jsonValue } from './values.ts';

const toolParameter = record(
  {},
  {
    name: value(z.string()),
    description: value(z.string()),
    type: value(z.string()),
    required: value(z.boolean()),
  },
);

const tool = record(
  {},
  {
    tool_id: value(z.string(), { sql: (t) => `${t}.id` }),
    name: value(z.string()),
    description: value(z.string()),
    url: value(z.string()),
    method: value(z.string()),
    is_enabled: value(z.boolean()),
    config_override: value(jsonValue()),
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
    id: value(z.string()),
    name: value(z.string()),
    organization_id: value(z.string()),
    type: value(z.enum(agentTypes)),
    prompt_template: value(z.string()),
    public_quota: value(integer()),
    created_at: timestamp(),
    updated_at: timestamp(),
    allowed_sip_trunks: value(z.array(z.string())),
    default_functions: value(z.array(z.string())),
    plugins: value(z.array(z.unknown())),
    ...configMembers,
    tools: list(tool, {
      table: 'AgentTool',
      alias: 't',
      where: (g) => `t."agentId" = ${g}.id AND t."organizationId" = ${g}."organizationId"`,
      orderBy: 't.position',
    }),
  },
);

/** E18, E19: its integer id is GraphQL's `databaseId`. */
export const evaluation = record(
  { id: 'Evaluation' },
  {
    id: value(integer(), { field: 'databaseId' }),
    agent_id: value(z.string()),
    org_id: value(z.string()),
    category: value(z.string()),
    title: value(z.string()),
    prompt: value(z.string()),
    score: value(integer()),
    created_at: timestamp(),
  },
);
