// A prospect's consent history (src/domain/consents.ts).
import { z } from 'zod';
import { consentAdd, consentRevoke } from '../../domain/consents.ts';
import { consent } from '../../records/consents.ts';
import { wireNames } from '../../schema/json-schema-names.ts';
import { found, operationRoute } from '../route.ts';

const ConsentAdd = wireNames(consentAdd);
const ConsentRevoke = wireNames(consentRevoke);

const history = z.strictObject({ data: z.array(consent.schema) });
const historyOf = (prospect: { consents: Record<string, unknown>[] } | null) => ({
  data: found(prospect, 'prospect').consents.map(consent.present),
});

export const consentRoutes = [
  operationRoute({
    method: 'POST',
    path: '/prospects/:prospect_id/consents',
    endpoint: null,
    summary: "Add a consent to a prospect's history",
    operation: `mutation($id: ID!, $input: ConsentAddInput!) { addConsent(prospectId: $id, input: $input) { ${consent.selection} } }`,
    body: consentAdd,
    status: 201,
    variables: ({ params, body }) => ({ id: params.prospect_id, input: ConsentAdd.toInput(body) }),
    respond: (data) => consent.present(data.addConsent),
    response: consent.schema,
  }),
  operationRoute({
    method: 'GET',
    path: '/prospects/:prospect_id/consents',
    endpoint: null,
    summary:
      "A prospect's consent history, newest entry first (the newest 1,000): consents, and revocations (`revoked_at` set)",
    operation: `query($id: ID!) { prospect(id: $id) { consents { ${consent.selection} } } }`,
    variables: ({ params }) => ({ id: params.prospect_id }),
    respond: (data) => historyOf(data.prospect),
    response: history,
  }),
  operationRoute({
    method: 'POST',
    path: '/prospects/:prospect_id/consents/revoke',
    endpoint: null,
    summary:
      "Revoke a prospect's consents of a scope from now on: a revocation entry is appended (none when the scope's newest entry is one already); answers the history",
    operation: `mutation($id: ID!, $input: ConsentRevokeInput!) { revokeConsent(prospectId: $id, input: $input) { consents { ${consent.selection} } } }`,
    body: consentRevoke,
    variables: ({ params, body }) => ({ id: params.prospect_id, input: ConsentRevoke.toInput(body) }),
    respond: (data) => historyOf(data.revokeConsent),
    response: history,
  }),
];
