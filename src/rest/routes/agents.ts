// Agents, their evaluations and the agent extensions.
import { z } from 'zod';
import { agentCreate, agentUpdate } from '../../domain/agents.ts';
import { evaluationCreate } from '../../domain/evaluations.ts';
import { agentConfigMembers } from '../../records/agent-config.ts';
import { agent, evaluation } from '../../records/agents.ts';
import { wireNames } from '../../schema/json-schema-names.ts';
import { found, metaEnvelope, metaEnvelopeSchema, operationRoute, pageArgs, pageSizeQuery } from '../route.ts';

const AgentCreate = wireNames(agentCreate);
const AgentUpdate = wireNames(agentUpdate);
const EvaluationCreate = wireNames(evaluationCreate);

/** Config members (objects) and plugins (a list) may come as UTF-8 JSON bytes. */
const agentJsonMembers = { objects: Object.keys(agentConfigMembers), lists: ['plugins'] };

export const agentRoutes = [
  operationRoute({
    method: 'POST',
    path: '/agents',
    endpoint: null,
    summary: 'Create an agent (the update shape, name required)',
    operation: `mutation($input: AgentCreateInput!) { createAgent(input: $input) { ${agent.selection} } }`,
    body: agentCreate,
    jsonMembers: agentJsonMembers,
    status: 201,
    variables: ({ body }) => ({ input: AgentCreate.toInput(body) }),
    respond: (data) => agent.present(data.createAgent),
    response: agent.schema,
  }),
  operationRoute({
    method: 'GET',
    path: '/agents',
    endpoint: null,
    summary: 'List agents, newest first',
    operation: `query($first: Int, $after: String) { agents(first: $first, after: $after) { totalCount nodes { ${agent.selection} } } }`,
    query: pageSizeQuery,
    variables: ({ query }) => pageArgs(query.page, query.size),
    respond: (data, { query }) => metaEnvelope(data.agents, query.page, query.size, agent.present),
    response: metaEnvelopeSchema(agent.schema),
  }),
  operationRoute({
    method: 'GET',
    path: '/agents/evals',
    endpoint: 'E19',
    summary: "List an agent's evaluations, newest first",
    operation: `query($agentId: ID!, $first: Int, $after: String) {
      evaluations(agentId: $agentId, first: $first, after: $after) { totalCount nodes { ${evaluation.selection} } } }`,
    query: pageSizeQuery.extend({ agent_id: z.string().min(1) }),
    variables: ({ query }) => ({ agentId: query.agent_id, ...pageArgs(query.page, query.size) }),
    respond: (data, { query }) =>
      metaEnvelope(found(data.evaluations, 'agent'), query.page, query.size, evaluation.present),
    response: metaEnvelopeSchema(evaluation.schema),
  }),
  operationRoute({
    method: 'POST',
    path: '/agents/evals',
    endpoint: 'E18',
    summary: 'Create an evaluation of an agent',
    operation: `mutation($input: EvaluationCreateInput!) { createEvaluation(input: $input) { ${evaluation.selection} } }`,
    body: evaluationCreate,
    status: 201,
    variables: ({ body }) => ({ input: EvaluationCreate.toInput(body) }),
    respond: (data) => evaluation.present(data.createEvaluation),
    response: evaluation.schema,
  }),
  operationRoute({
    method: 'GET',
    path: '/agents/:agent_id',
    endpoint: 'E2',
    summary: 'Get an agent',
    operation: `query($id: ID!) { agent(id: $id) { ${agent.selection} } }`,
    variables: ({ params }) => ({ id: params.agent_id }),
    respond: (data) => agent.present(found(data.agent, 'agent')),
    response: agent.schema,
  }),
  operationRoute({
    method: 'PATCH',
    path: '/agents/:agent_id',
    endpoint: 'E1',
    summary: 'Update an agent: members absent stay, a config object given replaces that object, null clears it',
    operation: `mutation($id: ID!, $input: AgentUpdateInput!) { updateAgent(id: $id, input: $input) { ${agent.selection} } }`,
    body: agentUpdate,
    jsonMembers: agentJsonMembers,
    quota: 'agentUpdate',
    variables: ({ params, body }) => ({ id: params.agent_id, input: AgentUpdate.toInput(body) }),
    respond: (data) => agent.present(data.updateAgent),
    response: agent.schema,
  }),
  operationRoute({
    method: 'DELETE',
    path: '/agents/:agent_id',
    endpoint: 'E3',
    summary: 'Delete an agent with its tools and evaluations',
    operation: `mutation($id: ID!) { deleteAgent(id: $id) { deletedAgentId } }`,
    variables: ({ params }) => ({ id: params.agent_id }),
    respond: () => ({}),
    response: z.strictObject({}),
  }),
];
