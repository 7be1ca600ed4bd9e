// An organization's settings (GET/PATCH /settings, GraphQL `organization {
// settings }` and `updateOrganizationSettings`): what the organization decides
// for all its batches and calls. Each is a column of "Organization".
import { z } from 'zod';
import { searchConfigurationNamed } from '../db/sql/search-configuration-named.ts';
import { Prisma } from '../generated/prisma/client.ts';
import { blackoutDates } from '../records/blackout-dates.ts';
import {
  type ContactLimit,
  contactLimits,
  type NumberHealthSettings,
  numberHealthSettings,
} from '../records/contact-settings.ts';
import { int } from '../records/values.ts';
import { badInput, notFound } from './errors.ts';
import { MAX_RETENTION_DAYS } from './limits.ts';
import type { Scope } from './scope.ts';

export const organizationSettingsUpdate = z
  .strictObject({
    max_concurrent_calls: int(1, 100_000).nullable().optional().meta({
      description:
        "The organization's calls in progress at once, over every instance, at most (its share of the engines' lines); null: no bound of its own",
    }),
    redact_pii: z.boolean().optional().meta({
      description:
        "Mask phone numbers, e-mail addresses and card numbers in call records' transcripts and summaries as they are reported (default true)",
    }),
    retention_days: int(1, MAX_RETENTION_DAYS).nullable().optional().meta({
      description:
        "Days a run's personal data is kept after it ended (its attempts' numbers and pre-call variables, its call records' words, its webhook events' copies); then it is scrubbed in the background, counts and outcomes kept. null (the default): kept until erased",
    }),
    transcript_language: z
      .string()
      .regex(/^[a-z_]{1,63}$/, { message: "must be a text search configuration's name (english, simple, …)" })
      .optional()
      .meta({
        description:
          'The language call records are searched in: a PostgreSQL text search configuration (english, french, simple, …; default english). Records reported from then on use it',
      }),
    require_consent: z.boolean().optional().meta({
      description:
        "Place a call only with a live consent of the callee (docs/consent.md); a batch's own require_consent overrides it (default false)",
    }),
    blackout_dates: blackoutDates.nullable().optional().meta({
      description:
        "Days no call starts, in the callee's zone, for callees of a country or region (holidays); the list replaces the last; null: none (default none)",
    }),
    contact_limits: contactLimits.optional(),
    number_health: numberHealthSettings.nullable().optional(),
  })
  .meta({ id: 'OrganizationSettingsUpdate', description: 'Settings to change: those absent stay, null clears one.' });
type OrganizationSettingsUpdate = z.output<typeof organizationSettingsUpdate>;

/** The settings as the organization's row holds them. */
const settingsColumns = {
  maxConcurrentCalls: true,
  redactPii: true,
  transcriptLanguage: true,
  retentionDays: true,
  requireConsent: true,
  blackoutDates: true,
  contactLimits: true,
  numberHealth: true,
} as const;

export interface OrganizationSettings {
  maxConcurrentCalls: number | null;
  redactPii: boolean;
  transcriptLanguage: string;
  retentionDays: number | null;
  requireConsent: boolean;
  blackoutDates: unknown;
  /** JSON columns: the values contact-settings.ts validated when they were set. */
  contactLimits: unknown;
  numberHealth: unknown;
}

/** The contact settings as stored (validated when set). */
export const contactLimitsOf = (stored: unknown) => (stored ?? []) as ContactLimit[];
export const numberHealthOf = (stored: unknown) => (stored ?? null) as NumberHealthSettings | null;

const isSearchConfiguration = async (scope: Scope, name: string) =>
  (await searchConfigurationNamed(scope.prisma, name)).length > 0;

/** The caller's organization's settings (the tenant client reads its own row only). */
export async function organizationSettings(scope: Scope): Promise<OrganizationSettings> {
  const row = await scope.prisma.organization.findFirst({ select: settingsColumns });
  if (!row) throw notFound('organization');
  return row;
}

/** Changes the members given, in one statement; answers the settings after. */
export async function updateOrganizationSettings(
  scope: Scope,
  data: OrganizationSettingsUpdate,
): Promise<OrganizationSettings> {
  if (data.transcript_language !== undefined && !(await isSearchConfiguration(scope, data.transcript_language)))
    throw badInput([
      {
        path: 'transcript_language',
        rule: 'reference',
        message: `is not a text search configuration of the database (${data.transcript_language})`,
      },
    ]);
  const [row] = await scope.prisma.organization.updateManyAndReturn({
    data: {
      maxConcurrentCalls: data.max_concurrent_calls,
      redactPii: data.redact_pii,
      transcriptLanguage: data.transcript_language,
      retentionDays: data.retention_days,
      requireConsent: data.require_consent,
      blackoutDates: data.blackout_dates === null ? [] : data.blackout_dates,
      contactLimits: data.contact_limits,
      // null clears it (Prisma's DbNull for a JSON column); absent leaves it.
      numberHealth: data.number_health === null ? Prisma.DbNull : data.number_health,
    },
    select: settingsColumns,
  });
  if (!row) throw notFound('organization');
  return row;
}
