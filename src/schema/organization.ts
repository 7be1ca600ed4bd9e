import {
  contactLimitsOf,
  numberHealthOf,
  organizationSettings,
  organizationSettingsUpdate,
  type OrganizationSettings as Settings,
  updateOrganizationSettings,
} from '../domain/organization-settings.ts';
import { blackoutDate, blackoutDates } from '../records/blackout-dates.ts';
import { contactLimit, numberHealthSettings } from '../records/contact-settings.ts';
import { builder } from './builder.ts';
import { scopeOf, unscopedClient } from './context.ts';
import { typesFromSchema } from './json-schema-types.ts';

const BlackoutDate = typesFromSchema(blackoutDate);
const ContactLimitType = typesFromSchema(contactLimit);
const NumberHealthType = typesFromSchema(numberHealthSettings);

const OrganizationSettings = builder.objectRef<Settings>('OrganizationSettings').implement({
  description: 'What the organization decides for all its batches and calls (REST `GET /settings`).',
  fields: (t) => ({
    maxConcurrentCalls: t.exposeInt('maxConcurrentCalls', {
      nullable: true,
      description:
        "The organization's calls in progress at once over every instance, at most (its share of the engines' lines); null: no bound of its own.",
    }),
    redactPii: t.exposeBoolean('redactPii', {
      description:
        "Whether phone numbers, e-mail addresses and card numbers in call records' transcripts and summaries are masked as they are reported.",
    }),
    transcriptLanguage: t.exposeString('transcriptLanguage', {
      description: 'The PostgreSQL text search configuration call records are searched in (`english`, `simple`, …).',
    }),
    retentionDays: t.exposeInt('retentionDays', {
      nullable: true,
      description:
        "Days a run's personal data is kept after it ended, then scrubbed (counts and outcomes kept); null: until erased.",
    }),
    requireConsent: t.exposeBoolean('requireConsent', {
      description:
        "Whether calls are placed only with a live consent of the callee (docs/consent.md); a batch's own `requireConsent` overrides it.",
    }),
    blackoutDates: t.field({
      type: [BlackoutDate.output()],
      description: "Days no call starts, in the callee's zone, for callees of a country or region (holidays).",
      resolve: (settings) => blackoutDates.parse(settings.blackoutDates ?? []),
    }),
    contactLimits: t.field({
      type: [ContactLimitType.output()],
      description:
        "Calls to one number over all the organization's batches, at most, in each window; a run over one waits until it allows (empty: none).",
      resolve: (settings) => contactLimitsOf(settings.contactLimits),
    }),
    numberHealth: t.field({
      type: NumberHealthType.output(),
      nullable: true,
      description: NumberHealthType.description,
      resolve: (settings) => numberHealthOf(settings.numberHealth),
    }),
  }),
});

const OrganizationSettingsUpdate = typesFromSchema(organizationSettingsUpdate);

// Nodes like every other prefixed id: node(id:) reads the caller's own, and null for anyone else's.
builder.prismaNode('Organization', {
  id: { field: 'id' },
  nullable: true,
  description: 'A customer of the platform: everything an API key reads or writes belongs to its organization.',
  fields: (t) => ({
    name: t.exposeString('name', { description: 'Its name, as given when it was created.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it was created.' }),
    settings: t.field({
      type: OrganizationSettings,
      description: 'Its settings.',
      resolve: (_organization, _args, context) => organizationSettings(scopeOf(context)),
    }),
    apiKeys: t.relation('apiKeys', {
      description:
        "The organization's keys, newest first (their hashes and the keys themselves are never readable); needs the `keys:admin` scope.",
      query: { orderBy: [{ createdAt: 'desc' }, { id: 'desc' }] },
    }),
  }),
});

builder.queryField('organization', (t) =>
  t.prismaField({
    type: 'Organization',
    description: "The caller's organization, the one its API key belongs to.",
    resolve: (query, _root, _args, context) =>
      unscopedClient(context).organization.findUniqueOrThrow({
        ...query,
        where: { id: context.viewer.organizationId },
      }),
  }),
);

builder.mutationFields((t) => ({
  updateOrganizationSettings: t.field({
    type: OrganizationSettings,
    description: 'Changes the settings given (REST `PATCH /settings`); those absent stay, null clears one.',
    args: {
      input: t.arg({
        type: OrganizationSettingsUpdate.input(),
        required: true,
        description: 'The settings to change.',
      }),
    },
    resolve: (_root, args, context) =>
      updateOrganizationSettings(scopeOf(context), OrganizationSettingsUpdate.parse(context, args.input)),
  }),
}));
