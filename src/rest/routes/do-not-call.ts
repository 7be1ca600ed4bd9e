// The organization's do-not-call list.
import { z } from 'zod';
import { doNotCallAdd } from '../../domain/do-not-call.ts';
import { e164 } from '../../domain/telephony.ts';
import { doNotCallNumber } from '../../records/do-not-call.ts';
import { integer } from '../../records/values.ts';
import { wireNames } from '../../schema/json-schema-names.ts';
import { operationRoute, pageArgs, pageLimitQuery, paginationEnvelope, paginationEnvelopeSchema } from '../route.ts';

const DoNotCallAdd = wireNames(doNotCallAdd);

export const doNotCallRoutes = [
  operationRoute({
    method: 'POST',
    path: '/do-not-call',
    endpoint: null,
    summary:
      'Add numbers to the do-not-call list (idempotent: a listed number stays once, its reason replaced when one is given)',
    operation: `mutation($input: DoNotCallAddInput!) { addDoNotCallNumbers(input: $input) { count } }`,
    body: doNotCallAdd,
    status: 201,
    variables: ({ body }) => ({ input: DoNotCallAdd.toInput(body) }),
    respond: (data) => ({ count: data.addDoNotCallNumbers.count }),
    response: z.strictObject({ count: integer() }),
  }),
  operationRoute({
    method: 'GET',
    path: '/do-not-call',
    endpoint: null,
    summary: 'List the do-not-call list, most recently listed first',
    operation: `query($first: Int, $after: String) {
      doNotCallNumbers(first: $first, after: $after) { totalCount nodes { ${doNotCallNumber.selection} } } }`,
    query: pageLimitQuery,
    variables: ({ query }) => pageArgs(query.page, query.limit),
    respond: (data, { query }) =>
      paginationEnvelope(data.doNotCallNumbers, query.page, query.limit, doNotCallNumber.present),
    response: paginationEnvelopeSchema(doNotCallNumber.schema),
  }),
  operationRoute({
    method: 'DELETE',
    path: '/do-not-call/:number',
    endpoint: null,
    summary: 'Take a number (E.164) off the do-not-call list',
    operation: `mutation($number: String!) { removeDoNotCallNumber(number: $number) { number } }`,
    params: { number: e164 },
    variables: ({ params }) => ({ number: params.number }),
    respond: () => ({}),
    response: z.strictObject({}),
  }),
];
