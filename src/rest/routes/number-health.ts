// A phone number with its health, and resting or restoring it by hand.
import { phoneNumberRest } from '../../domain/number-health.ts';
import { phoneNumberDetail } from '../../records/telephony.ts';
import { wireNames } from '../../schema/json-schema-names.ts';
import { found, idParameter, operationRoute } from '../route.ts';

const PhoneNumberRest = wireNames(phoneNumberRest);
const numberParameters = { id: idParameter('num') };

export const numberHealthRoutes = [
  operationRoute({
    method: 'GET',
    path: '/phone-numbers/:id',
    params: numberParameters,
    endpoint: null,
    summary: 'Get a phone number with its health: answer rate, short calls, voicemail, attempts today, rest',
    operation: `query($id: ID!) { phoneNumber(id: $id) { ${phoneNumberDetail.selection} } }`,
    variables: ({ params }) => ({ id: params.id }),
    respond: (data) => phoneNumberDetail.present(found(data.phoneNumber, 'phone number')),
    response: phoneNumberDetail.schema,
  }),
  operationRoute({
    method: 'POST',
    path: '/phone-numbers/:id/rest',
    params: numberParameters,
    endpoint: null,
    summary:
      'Rest a phone number for `hours`: not used for new calls while its trunk has other numbers; sends phone_number.rested',
    operation: `mutation($id: ID!, $input: PhoneNumberRestInput!) { restPhoneNumber(id: $id, input: $input) { ${phoneNumberDetail.selection} } }`,
    body: phoneNumberRest,
    variables: ({ params, body }) => ({ id: params.id, input: PhoneNumberRest.toInput(body) }),
    respond: (data) => phoneNumberDetail.present(data.restPhoneNumber),
    response: phoneNumberDetail.schema,
  }),
  operationRoute({
    method: 'POST',
    path: '/phone-numbers/:id/restore',
    params: numberParameters,
    endpoint: null,
    summary: "End a phone number's rest now; its health starts afresh",
    operation: `mutation($id: ID!) { restorePhoneNumber(id: $id) { ${phoneNumberDetail.selection} } }`,
    variables: ({ params }) => ({ id: params.id }),
    respond: (data) => phoneNumberDetail.present(data.restorePhoneNumber),
    response: phoneNumberDetail.schema,
  }),
];
