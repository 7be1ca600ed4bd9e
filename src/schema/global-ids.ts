// Relay global ids are the resources' own prefixed ids (`agt_…`, `run_…`),
// already unique across types, so a REST client and a GraphQL client name
// the same object the same way. Evaluations, whose ids are integers, are
// `evl_<id>` in GraphQL.
import { BAD_INPUT, DomainError } from '../domain/errors.ts';
import { INT_MAX } from '../records/values.ts';

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
  rec: 'CallRecord',
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

/** The integer of `evl_<n>`; ids that are not one (`evl_x`, `evl_1e3`) match no row rather than failing the query. */
export const databaseIdOf = (id: string | number) => {
  const value = /^[1-9]\d{0,9}$/.test(String(id)) ? Number(id) : -1;
  return value <= INT_MAX ? value : -1;
};

/** The primary key a decoded global id names in its type's table. */
export const primaryKeyOf = (typename: string, id: string): string | number =>
  INTEGER_ID_PREFIX[typename] ? databaseIdOf(id) : id;
