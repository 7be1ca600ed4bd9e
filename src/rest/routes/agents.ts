// Agents and evaluations: E1-E3, E18-E19 and the agent extensions.
import { z } from 'zod';
import { agentConfigMembers, agentCreate, agentUpdate } from '../../domain/agent-config.ts';
import { evaluationCreate } from '../../domain/evaluations.ts';
import { wireNames } from '../../schema/json-schema-names.ts';
import {
  agentFragment,
  agentSchema,
  evaluationFragment,
  evaluationSchema,
  presentAgent,
  presentEvaluation,
} from '../resources/agents.ts';
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
    operation: `mutation($input: AgentCreateInput!) { createAgent(input: $input) { ...AgentRest } } ${agentFragment}`,
    body: agentCreate,
    jsonMembers: agentJsonMembers,
    status: 201,
    variables: ({ body }) => ({ input: AgentCreate.toInput(body) }),
    respond: (data) => presentAgent(data.createAgent),
    response: agentSchema,
  }),
  operationRoute({
    method: 'GET',
    path: '/agents',
    endpoint: null,
    summary: 'List agents, newest first',
    operation: `query($first: Int, $after: String) { agents(first: $first, after: $after) { totalCount nodes { ...AgentRest } } } ${agentFragment}`,
    query: pageSizeQuery,
    variables: ({ query }) => pageArgs(query.page, query.size),
    respond: (data, { query }) => metaEnvelope(data.agents, query.page, query.size, presentAgent),
    response: metaEnvelopeSchema(agentSchema),
  }),
  operationRoute({
    method: 'GET',
    path: '/agents/evals',
    endpoint: 'E19',
    summary: "List an agent's evaluations, newest first",
    operation: `query($agentId: ID!, $first: Int, $after: String) {
      evaluations(agentId: $agentId, first: $first, after: $after) { totalCount nodes { ...EvaluationRest } } } ${evaluationFragment}`,
    query: pageSizeQuery.extend({ agent_id: z.string().min(1) }),
    variables: ({ query }) => ({ agentId: query.agent_id, ...pageArgs(query.page, query.size) }),
    respond: (data, { query }) =>
      metaEnvelope(found(data.evaluations, 'agent'), query.page, query.size, presentEvaluation),
    response: metaEnvelopeSchema(evaluationSchema),
  }),
  operationRoute({
    method: 'POST',
    path: '/agents/evals',
    endpoint: 'E18',
    summary: 'Create an evaluation of an agent',
    operation: `mutation($input: EvaluationCreateInput!) { createEvaluation(input: $input) { ...EvaluationRest } } ${evaluationFragment}`,
    body: evaluationCreate,
    status: 201,
    variables: ({ body }) => ({ input: EvaluationCreate.toInput(body) }),
    respond: (data) => presentEvaluation(data.createEvaluation),
    response: evaluationSchema,
  }),
  operationRoute({
    method: 'GET',
    path: '/agents/:agent_id',
    endpoint: 'E2',
    summary: 'Get an agent',
    operation: `query($id: ID!) { agent(id: $id) { ...AgentRest } } ${agentFragment}`,
    variables: ({ params }) => ({ id: params.agent_id }),
    respond: (data) => presentAgent(found(data.agent, 'agent')),
    response: agentSchema,
  }),
  operationRoute({
    method: 'PATCH',
    path: '/agents/:agent_id',
    endpoint: 'E1',
    summary: 'Update an agent: members absent stay, a config object given replaces that object, null clears it',
    operation: `mutation($id: ID!, $input: AgentUpdateInput!) { updateAgent(id: $id, input: $input) { ...AgentRest } } ${agentFragment}`,
    body: agentUpdate,
    jsonMembers: agentJsonMembers,
    quota: 'agentUpdate',
    variables: ({ params, body }) => ({ id: params.agent_id, input: AgentUpdate.toInput(body) }),
    respond: (data) => presentAgent(data.updateAgent),
    response: agentSchema,
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
