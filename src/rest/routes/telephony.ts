// SIP trunks and phone numbers, insights, and the list extensions.
import { z } from 'zod';
import { insightFilter } from '../../domain/insights.ts';
import { phoneNumberCreate, phoneNumbersCreate, sipTrunkCreate } from '../../domain/telephony.ts';
import { insight } from '../../records/insights.ts';
import { phoneNumber, sipTrunk } from '../../records/telephony.ts';
import { integer } from '../../records/values.ts';
import { wireNames } from '../../schema/json-schema-names.ts';
import { cursorBefore, MAX_PAGE_SIZE } from '../../schema/pagination.ts';
import { operationRoute, pageArgs, pageLimitQuery } from '../route.ts';

const SipTrunkCreate = wireNames(sipTrunkCreate);
const PhoneNumberCreate = wireNames(phoneNumberCreate);
const PhoneNumbersCreate = wireNames(phoneNumbersCreate);

/** The lists return `{ data }` (DECISIONS.md); `page` and `limit` select which part, 100 at most. */
const listQuery = pageLimitQuery.extend({ limit: pageLimitQuery.shape.limit.unwrap().default(MAX_PAGE_SIZE) });

/** GET /analytics/insights: the period bounds (their order is checked by the domain), items per page 1 to 100, items to skip >= 0. */
const insightsQuery = z.object({
  ...insightFilter.shape,
  limit: z.coerce.number().int().min(1).max(MAX_PAGE_SIZE).default(20),
  offset: z.coerce.number().int().min(0).max(100_000_000).default(0),
});

export const telephonyRoutes = [
  operationRoute({
    method: 'POST',
    path: '/sip-trunks',
    endpoint: 'E15',
    summary: 'Create a SIP trunk pair (inbound and outbound) with its phone numbers',
    operation: `mutation($input: SipTrunkCreateInput!) { createSipTrunk(input: $input) {
      inboundTrunk { ${sipTrunk.selection} } outboundTrunk { ${sipTrunk.selection} } phoneNumbers { ${phoneNumber.selection} } } }`,
    body: sipTrunkCreate,
    answers: {
      409: 'a phone number exists already, or is given twice',
      502: 'LiveKit refused or did not answer (DIALER=livekit): nothing was written',
    },
    status: 201,
    variables: ({ body }) => ({ input: SipTrunkCreate.toInput(body) }),
    respond: ({ createSipTrunk: created }) => ({
      inbound_trunk: sipTrunk.present(created.inboundTrunk),
      outbound_trunk: sipTrunk.present(created.outboundTrunk),
      phone_numbers: created.phoneNumbers.map(phoneNumber.present),
    }),
    response: z.strictObject({
      inbound_trunk: sipTrunk.schema,
      outbound_trunk: sipTrunk.schema,
      phone_numbers: z.array(phoneNumber.schema),
    }),
  }),
  operationRoute({
    method: 'GET',
    path: '/sip-trunks',
    endpoint: null,
    summary: 'List SIP trunks, newest first',
    operation: `query($first: Int, $after: String) { sipTrunks(first: $first, after: $after) { nodes { ${sipTrunk.selection} } } }`,
    query: listQuery,
    variables: ({ query }) => pageArgs(query.page, query.limit),
    respond: (data) => ({ data: data.sipTrunks.nodes.map(sipTrunk.present) }),
    response: z.strictObject({ data: z.array(sipTrunk.schema) }),
  }),
  operationRoute({
    method: 'POST',
    path: '/phone-numbers',
    endpoint: 'E16',
    summary: 'Create a phone number on a SIP trunk',
    operation: `mutation($input: PhoneNumberCreateInput!) { createPhoneNumber(input: $input) { ${phoneNumber.selection} } }`,
    body: phoneNumberCreate,
    answers: {
      409: 'the number exists already',
      502: 'LiveKit refused or did not answer (DIALER=livekit): nothing was written',
    },
    status: 201,
    variables: ({ body }) => ({ input: PhoneNumberCreate.toInput(body) }),
    respond: (data) => phoneNumber.present(data.createPhoneNumber),
    response: phoneNumber.schema,
  }),
  operationRoute({
    method: 'POST',
    path: '/phone-numbers/bulk',
    endpoint: 'E17',
    summary: 'Create phone numbers in bulk on a SIP trunk, all or nothing',
    operation: `mutation($input: PhoneNumbersCreateInput!) { createPhoneNumbers(input: $input) { count created { ${phoneNumber.selection} } } }`,
    body: phoneNumbersCreate,
    answers: {
      409: 'a number exists already, or is given twice',
      502: 'LiveKit refused or did not answer (DIALER=livekit): nothing was written',
    },
    status: 201,
    variables: ({ body }) => ({ input: PhoneNumbersCreate.toInput(body) }),
    respond: ({ createPhoneNumbers: result }) => ({
      count: result.count,
      created: result.created.map(phoneNumber.present),
    }),
    response: z.strictObject({ count: integer(), created: z.array(phoneNumber.schema) }),
  }),
  operationRoute({
    method: 'GET',
    path: '/phone-numbers',
    endpoint: null,
    summary: 'List phone numbers, newest first',
    operation: `query($first: Int, $after: String) { phoneNumbers(first: $first, after: $after) { nodes { ${phoneNumber.selection} } } }`,
    query: listQuery,
    variables: ({ query }) => pageArgs(query.page, query.limit),
    respond: (data) => ({ data: data.phoneNumbers.nodes.map(phoneNumber.present) }),
    response: z.strictObject({ data: z.array(phoneNumber.schema) }),
  }),
  operationRoute({
    method: 'GET',
    path: '/analytics/insights',
    endpoint: 'E20',
    summary: 'List insights whose period lies within period_start and period_end, newest first',
    operation: `query($periodStart: Date, $periodEnd: Date, $first: Int, $after: String) {
      insights(periodStart: $periodStart, periodEnd: $periodEnd, first: $first, after: $after) {
        totalCount nodes { ${insight.selection} } } }`,
    query: insightsQuery,
    variables: ({ query }) => ({
      periodStart: query.period_start ?? null,
      periodEnd: query.period_end ?? null,
      first: query.limit,
      after: cursorBefore(query.offset),
    }),
    respond: (data, { query }) => ({
      insights: data.insights.nodes.map(insight.present),
      limit: query.limit,
      offset: query.offset,
      total: data.insights.totalCount,
    }),
    response: z.strictObject({
      insights: z.array(insight.schema),
      limit: integer(),
      offset: integer(),
      total: integer(),
    }),
  }),
];
