// SPEC.md's agent (with its tools) and evaluation records.
import { z } from 'zod';
import { agentConfigMembers } from '../../domain/agent-config.ts';
import { camelCase } from '../../domain/names.ts';
import { unwrapJson, wire } from '../wire.ts';
import { int, json, timestamp } from './common.ts';

const configFields = Object.keys(agentConfigMembers).map(camelCase);

export const agentFragment = `fragment AgentRest on Agent {
  id name organizationId type promptTemplate publicQuota createdAt updatedAt allowedSipTrunks defaultFunctions plugins
  ${configFields.map((field) => `${field} { json }`).join(' ')}
  tools { toolId name description url method isEnabled configOverride parameters { name description type required } } }`;

export const presentAgent = (agent: Record<string, unknown>) => wire(unwrapJson(agent, configFields), ['tools']);

const toolSchema = z.strictObject({
  tool_id: z.string(),
  name: z.string(),
  description: z.string(),
  url: z.string(),
  method: z.string(),
  is_enabled: z.boolean(),
  config_override: json(),
  parameters: z.array(
    z.strictObject({ name: z.string(), description: z.string(), type: z.string(), required: z.boolean() }),
  ),
});

export const agentSchema = z
  .strictObject({
    id: z.string(),
    name: z.string(),
    organization_id: z.string(),
    type: z.string(),
    prompt_template: z.string(),
    public_quota: int(),
    created_at: timestamp(),
    updated_at: timestamp(),
    allowed_sip_trunks: z.array(z.string()),
    default_functions: z.array(z.string()),
    plugins: z.array(z.unknown()),
    ...Object.fromEntries(
      Object.entries(agentConfigMembers).map(([name, schema]) => [
        name,
        schema.nullable().meta({ description: 'The JSON value; null when unset' }),
      ]),
    ),
    tools: z.array(toolSchema),
  })
  .meta({ id: 'Agent' });

export const evaluationFragment = `fragment EvaluationRest on Evaluation {
  databaseId agentId orgId category title prompt score createdAt }`;
export const presentEvaluation = ({ databaseId, ...evaluation }: Record<string, unknown>) =>
  wire({ id: databaseId, ...evaluation });
export const evaluationSchema = z
  .strictObject({
    id: int(),
    agent_id: z.string(),
    org_id: z.string(),
    category: z.string(),
    title: z.string(),
    prompt: z.string(),
    score: int(),
    created_at: timestamp(),
  })
  .meta({ id: 'Evaluation' });
