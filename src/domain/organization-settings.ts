// An organization's settings (GET/PATCH /settings, GraphQL `organization {
// settings }` and `updateOrganizationSettings`): what the organization decides
// for all its batches and calls. Each is a column of "Organization".
import { z } from 'zod';
import { int } from '../records/values.ts';
import { notFound } from './errors.ts';
import type { Scope } from './scope.ts';

export const organizationSettingsUpdate = z
  .strictObject({
    max_concurrent_calls: int(1, 100_000).nullable().optional().meta({
      description:
        "The organization's calls in progress at once, over every instance, at most (its share of the engines' lines); null: no bound of its own",
    }),
  })
  .meta({ id: 'OrganizationSettingsUpdate', description: 'Settings to change: those absent stay, null clears one.' });
type OrganizationSettingsUpdate = z.output<typeof organizationSettingsUpdate>;

/** The settings as the organization's row holds them. */
const settingsColumns = { maxConcurrentCalls: true } as const;

export interface OrganizationSettings {
  maxConcurrentCalls: number | null;
}

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
  const [row] = await scope.prisma.organization.updateManyAndReturn({
    data: { maxConcurrentCalls: data.max_concurrent_calls },
    select: settingsColumns,
  });
  if (!row) throw notFound('organization');
  return row;
}
