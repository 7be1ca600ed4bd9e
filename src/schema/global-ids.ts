// Relay global ids are the resources' own prefixed ids (`agt_…`, `run_…`),
// already unique across types, so a REST client and a GraphQL client name
// the same object the same way. Evaluations, whose ids are integers, are
// `evl_<id>` in GraphQL.
import { BAD_INPUT, DomainError } from '../domain/errors.ts';

const typeByPrefix: Record<string, string> = {
  org: 'Organization',
  key: 'ApiKey',
  agt: 'Agent',
  tool: 'AgentTool',
  wf: 'Workflow',
  wfv: 'WorkflowVersion',
  bat: 'Batch',
  run: 'Run',
  prs: 'Prospect',
  pl: 'ProspectList',
  tag: 'Tag',
  int: 'Integration',
  oint: 'ConnectedIntegration',
  trk: 'SipTrunk',
  num: 'PhoneNumber',
  evl: 'Evaluation',
  ins: 'Insight',
  whe: 'WebhookEndpoint',
  dlv: 'WebhookDelivery',
};

const INTEGER_ID_PREFIX: Record<string, string> = { Evaluation: 'evl' };

export function encodeGlobalID(typename: string, id: string | number | bigint): string {
  const prefix = INTEGER_ID_PREFIX[typename];
  return prefix ? `${prefix}_${id}` : String(id);
}

export function decodeGlobalID(globalID: string): { typename: string; id: string } {
  const separator = globalID.indexOf('_');
  const typename = separator > 0 ? typeByPrefix[globalID.slice(0, separator)] : undefined;
  if (!typename) {
    throw new DomainError(BAD_INPUT, `"${globalID}" is not an id of this API`, [
      { path: 'id', rule: 'format', message: 'is not an id of this API' },
    ]);
  }
  return { typename, id: INTEGER_ID_PREFIX[typename] ? globalID.slice(separator + 1) : globalID };
}
