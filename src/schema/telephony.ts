// SIP trunks and phone numbers. How numbers relate to a trunk pair is told in
// src/domain/telephony.ts: both trunks of a pair list, and count, the pair's numbers.

import { rowKey } from '../db/tenant.ts';
import { phoneNumberHealth, phoneNumberRest, restorePhoneNumber, restPhoneNumber } from '../domain/number-health.ts';
import {
  createPhoneNumber,
  createPhoneNumbers,
  createSipTrunk,
  pairKeyOf,
  phoneNumberCreate,
  phoneNumbersCreate,
  sipTrunkCreate,
  sipTrunkProviders,
} from '../domain/telephony.ts';
import type { PhoneNumber as PhoneNumberRow, SipTrunk as SipTrunkRow } from '../generated/prisma/client.ts';
import { phoneNumberHealth as phoneNumberHealthRecord } from '../records/contact-settings.ts';
import { builder, type NodeRef } from './builder.ts';
import { scopeOf } from './context.ts';
import { entityById } from './federation.ts';
import { typesFromSchema } from './json-schema-types.ts';
import { modelConnection } from './pagination.ts';
import { tenantNodeId } from './tenant-nodes.ts';

const SipTrunk: NodeRef<'SipTrunk'> = builder.prismaNode('SipTrunk', {
  ...tenantNodeId,
  nullable: true,
  description:
    'One trunk of an inbound/outbound pair (E15 creates both); the pair shares name, address, credentials and numbers. ' +
    'REST: `GET /sip-trunks`.',
  // No field reads authPasswordEncrypted: the password is never returned.
  fields: (t) => ({
    name: t.exposeString('name', { description: 'Its name, shared by the pair.' }),
    provider: t.exposeString('provider', {
      description: `The SIP provider: one of ${sipTrunkProviders.map((provider) => `\`${provider}\``).join(', ')}.`,
    }),
    type: t.string({ description: '`inbound` or `outbound`.', resolve: (trunk) => trunk.direction }),
    isActive: t.exposeBoolean('isActive', { description: 'Its active flag: true unless set outside this API.' }),
    maxConcurrency: t.exposeInt('maxConcurrency', {
      description: "Calls in flight at once on this trunk, over every instance (E15's `max_concurrency`).",
    }),
    phoneCount: t.int({
      description: 'How many numbers the trunk pair has (both trunks of a pair share them).',
      resolve: async (trunk, _args, context) => (await context.loaders.numbersOfPair.load(pairKeyOf(trunk))).length,
    }),
    address: t.exposeString('address', { description: 'The SIP address the trunk connects to, shared by the pair.' }),
    authUsername: t.exposeString('authUsername', {
      nullable: true,
      description: 'The SIP authentication user name; null when none. The password is never returned.',
    }),
    createdAt: t.expose('createdAt', {
      type: 'DateTime',
      description: 'When it was created (both trunks of a pair at once).',
    }),
    livekitTrunkId: t.exposeString('livekitTrunkId', {
      nullable: true,
      description:
        "Its id in LiveKit (`ST_…`) when it was created with DIALER=livekit; null otherwise (LiveKit's calls cannot use it).",
    }),
    phoneNumbers: t.field({
      type: [PhoneNumber],
      description: "The trunk pair's numbers, oldest first.",
      resolve: (trunk, _args, context) => context.loaders.numbersOfPair.load(pairKeyOf(trunk)),
    }),
  }),
});

const Health = typesFromSchema(phoneNumberHealthRecord);
const PhoneNumberRest = typesFromSchema(phoneNumberRest);

const PhoneNumber: NodeRef<'PhoneNumber'> = builder.prismaNode('PhoneNumber', {
  ...tenantNodeId,
  nullable: true,
  description:
    'A number of the organization, stored on a trunk and unique in the organization; calls use it as caller id. ' +
    'REST: `GET /phone-numbers` (E15, E16 and E17 create them).',
  fields: (t) => ({
    number: t.exposeString('number', { description: 'E.164.' }),
    label: t.exposeString('label', { description: 'A free label; empty when none was given.' }),
    provider: t.exposeString('provider', { description: "The trunk's provider." }),
    sipTrunkId: t.exposeID('sipTrunkId', { description: 'The id of the trunk it is stored on (`trk_…`).' }),
    trunkName: t.string({
      description: "That trunk's name.",
      resolve: async (number, _args, context) => (await context.loaders.sipTrunk.load(number.sipTrunkId))!.name,
    }),
    isVerified: t.exposeBoolean('isVerified', {
      description: 'Whether it was verified: false unless set outside this API.',
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it was added.' }),
    health: t.field({
      type: Health.output(),
      description: Health.description,
      resolve: (number, _args, context) => phoneNumberHealth(scopeOf(context), number),
    }),
    sipTrunk: t.field({
      type: SipTrunk,
      description: 'The trunk it is stored on.',
      resolve: async (number, _args, context) => (await context.loaders.sipTrunk.load(number.sipTrunkId))!,
    }),
  }),
});

const CreateSipTrunkPayload = builder
  .objectRef<{ inboundTrunk: SipTrunkRow; outboundTrunk: SipTrunkRow; phoneNumbers: PhoneNumberRow[] }>(
    'CreateSipTrunkPayload',
  )
  .implement({
    description: "What `createSipTrunk` answers: E15's response.",
    fields: (t) => ({
      inboundTrunk: t.field({
        type: SipTrunk,
        description: 'The inbound trunk of the pair.',
        resolve: (payload) => payload.inboundTrunk,
      }),
      outboundTrunk: t.field({
        type: SipTrunk,
        description: 'The outbound trunk of the pair.',
        resolve: (payload) => payload.outboundTrunk,
      }),
      phoneNumbers: t.field({
        type: [PhoneNumber],
        description: 'The numbers created, stored on the outbound trunk.',
        resolve: (payload) => payload.phoneNumbers,
      }),
    }),
  });

const CreatePhoneNumbersPayload = builder
  .objectRef<{ count: number; created: PhoneNumberRow[] }>('CreatePhoneNumbersPayload')
  .implement({
    description: "What `createPhoneNumbers` answers: E17's response.",
    fields: (t) => ({
      count: t.exposeInt('count', { description: 'How many numbers were created.' }),
      created: t.field({
        type: [PhoneNumber],
        description: 'The numbers created.',
        resolve: (payload) => payload.created,
      }),
    }),
  });

const SipTrunkCreate = typesFromSchema(sipTrunkCreate);
const PhoneNumberCreate = typesFromSchema(phoneNumberCreate);
const PhoneNumbersCreate = typesFromSchema(phoneNumbersCreate);

builder.queryFields((t) => ({
  sipTrunk: t.field({
    type: SipTrunk,
    nullable: true,
    description: "A SIP trunk of the organization; null for an unknown id or another organization's.",
    args: { id: t.arg.id({ required: true, description: 'Its id (`trk_…`).' }) },
    resolve: (_root, args, context) => context.loaders.sipTrunk.load(String(args.id)),
  }),
  sipTrunks: t.connection({
    type: SipTrunk,
    description: "The organization's SIP trunks, newest first; a pair's inbound trunk before its outbound one.",
    resolve: (_root, args, context) =>
      modelConnection(args, context.db.sipTrunk, {
        orderBy: [{ createdAt: 'desc' }, { pairId: 'asc' }, { direction: 'asc' }, { id: 'asc' }],
      }),
  }),
  phoneNumber: t.field({
    type: PhoneNumber,
    nullable: true,
    description: "A phone number of the organization; null for an unknown id or another organization's.",
    args: { id: t.arg.id({ required: true, description: 'Its id (`num_…`).' }) },
    resolve: (_root, args, context) =>
      context.db.phoneNumber.findUnique({ where: rowKey(context.viewer.organizationId, String(args.id)) }),
  }),
  phoneNumbers: t.connection({
    type: PhoneNumber,
    description: "The organization's phone numbers, newest first.",
    resolve: (_root, args, context) =>
      modelConnection(args, context.db.phoneNumber, { orderBy: [{ createdAt: 'desc' }, { number: 'asc' }] }),
  }),
}));

builder.mutationFields((t) => ({
  createSipTrunk: t.field({
    type: CreateSipTrunkPayload,
    description:
      'Creates an inbound and an outbound trunk and the given numbers, all or nothing (E15). With DIALER=livekit the pair is ' +
      'created in LiveKit first: BAD_GATEWAY (502) when LiveKit fails, and nothing is written.',
    args: { input: t.arg({ type: SipTrunkCreate.input(), required: true, description: 'The pair and its numbers.' }) },
    resolve: (_root, args, context) =>
      createSipTrunk(scopeOf(context), context.secrets, SipTrunkCreate.parse(context, args.input), context.trunks),
  }),
  createPhoneNumber: t.field({
    type: PhoneNumber,
    description:
      "Adds a number to a trunk of the organization (E16); with DIALER=livekit to the pair's trunks in LiveKit too (BAD_GATEWAY when it fails).",
    args: {
      input: t.arg({ type: PhoneNumberCreate.input(), required: true, description: 'The number and its trunk.' }),
    },
    resolve: (_root, args, context) =>
      createPhoneNumber(scopeOf(context), PhoneNumberCreate.parse(context, args.input), context.trunks),
  }),
  createPhoneNumbers: t.field({
    type: CreatePhoneNumbersPayload,
    description:
      "Adds numbers to a trunk of the organization, all or nothing (E17); with DIALER=livekit to the pair's trunks in LiveKit too (BAD_GATEWAY when it fails).",
    args: {
      input: t.arg({ type: PhoneNumbersCreate.input(), required: true, description: 'The numbers and their trunk.' }),
    },
    resolve: (_root, args, context) =>
      createPhoneNumbers(scopeOf(context), PhoneNumbersCreate.parse(context, args.input), context.trunks),
  }),
  restPhoneNumber: t.field({
    type: PhoneNumber,
    description:
      'Rests a number of the organization by hand for `hours`: its trunk does not use it for new calls while it has others ' +
      '(REST `POST /phone-numbers/{id}/rest`); sends `phone_number.rested`.',
    args: {
      id: t.arg.id({ required: true, description: 'Its id (`num_…`).' }),
      input: t.arg({ type: PhoneNumberRest.input(), required: true, description: 'For how long.' }),
    },
    resolve: (_root, args, context) =>
      restPhoneNumber(scopeOf(context), String(args.id), PhoneNumberRest.parse(context, args.input).hours),
  }),
  restorePhoneNumber: t.field({
    type: PhoneNumber,
    description: 'Ends a number’s rest now; its health starts afresh (REST `POST /phone-numbers/{id}/restore`).',
    args: { id: t.arg.id({ required: true, description: 'Its id (`num_…`).' }) },
    resolve: (_root, args, context) => restorePhoneNumber(scopeOf(context), String(args.id)),
  }),
}));

// A federation entity: other subgraphs may resolve it by id (federation.ts).
entityById(SipTrunk, 'sipTrunk');

// A federation entity: other subgraphs may resolve it by id (federation.ts).
entityById(PhoneNumber, 'phoneNumber');
