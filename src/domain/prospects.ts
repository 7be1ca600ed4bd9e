// Prospects (the people runs call), prospect lists and tags.
import { z } from 'zod';
import { isUniqueViolation } from '../db/prisma-errors.ts';
import { rowKey } from '../db/tenant.ts';
import { ianaTimezone } from '../records/time-zones.ts';
import { badInput, conflict, notFound } from './errors.ts';
import { limits } from './limits.ts';
import type { Scope } from './scope.ts';

const prospectCreate = z
  .strictObject({
    first_name: z.string().max(200).optional().meta({ description: 'first name, default empty;' }),
    last_name: z.string().max(200).optional().meta({ description: 'last name, default empty;' }),
    email: z.string().max(320).optional().meta({ description: 'e-mail address, default empty;' }),
    phone: z.string().max(32).optional().meta({
      description:
        'the number runs call, E.164; without a valid one a run fails undialled (`invalid_number`); default empty;',
    }),
    timezone: ianaTimezone
      .optional()
      .meta({ description: "the prospect's IANA time zone, e.g. America/Chicago: calling windows apply in it" }),
  })
  .meta({ id: 'ProspectCreate', description: 'A person runs call; every member is optional.' });

export const prospectsCreate = z
  .strictObject({
    prospects: z.array(prospectCreate).min(1).max(limits.bulkItems).meta({ description: 'the prospects;' }),
  })
  .meta({ id: 'ProspectsCreate', description: 'Prospects to create, all or nothing (`POST /prospects`).' });

export const prospectListCreate = z
  .strictObject({
    name: z.string().min(1).meta({ description: "the list's name;" }),
    prospect_ids: z.array(z.string()).max(limits.bulkItems).optional().meta({
      description:
        'its members (`prs_…`), prospects of the organization (an unknown one is BAD_INPUT, 400), each once; default none;',
    }),
  })
  .meta({
    id: 'ProspectListCreate',
    description: 'A named list of prospects, which a batch can call (`POST /prospect-lists`).',
  });

export const tagCreate = z
  .strictObject({
    name: z
      .string()
      .min(1)
      .max(100)
      .meta({ description: "the tag's name, unique in the organization (a duplicate is a CONFLICT, 409);" }),
  })
  .meta({ id: 'TagCreate', description: 'A tag to put on prospects (`POST /tags`).' });

export const prospectTagsAdd = z
  .strictObject({
    tag_ids: z.array(z.string()).min(1).max(limits.bulkItems).meta({
      description:
        'tags of the organization (`tag_…`); ones the prospect has stay once; an unknown one is BAD_INPUT (400);',
    }),
  })
  .meta({ id: 'ProspectTagsAdd', description: "E21's body: the tags to add to the prospect." });

type ProspectsCreate = z.output<typeof prospectsCreate>;
type ProspectListCreate = z.output<typeof prospectListCreate>;
type TagCreate = z.output<typeof tagCreate>;
type ProspectTagsAdd = z.output<typeof prospectTagsAdd>;

export async function createProspects(scope: Scope, { prospects }: ProspectsCreate) {
  return scope.prisma.prospect.createManyAndReturn({
    data: prospects.map((prospect) => ({
      organizationId: scope.viewer.organizationId,
      firstName: prospect.first_name ?? '',
      lastName: prospect.last_name ?? '',
      email: prospect.email ?? '',
      phone: prospect.phone ?? '',
      timezone: prospect.timezone ?? null,
    })),
  });
}

/** Throws the 400 naming `path` when some of `ids` are not the organization's `what`. */
export async function requireAll(
  ids: string[],
  found: (ids: string[]) => Promise<{ id: string }[]>,
  path: string,
  what: string,
) {
  const unique = [...new Set(ids)];
  const known = new Set((await found(unique)).map((row) => row.id));
  const unknown = unique.filter((id) => !known.has(id));
  if (unknown.length > 0) {
    throw badInput(
      unknown.slice(0, 20).map((id) => ({ path, rule: 'exists', message: `${what} ${id} does not exist` })),
    );
  }
  return unique;
}

export async function createProspectList(scope: Scope, data: ProspectListCreate) {
  const prospectIds = await requireAll(
    data.prospect_ids ?? [],
    (ids) => scope.prisma.prospect.findMany({ where: { id: { in: ids } }, select: { id: true } }),
    'prospect_ids',
    'prospect',
  );
  return scope.prisma.prospectList.create({
    data: {
      organizationId: scope.viewer.organizationId,
      name: data.name,
      members: { createMany: { data: prospectIds.map((prospectId) => ({ prospectId })) } },
    },
  });
}

export async function createTag(scope: Scope, data: TagCreate) {
  const existing = await scope.prisma.tag.findFirst({ where: { name: data.name } });
  if (existing) throw conflict(`a tag named "${data.name}" already exists`, { tag_id: existing.id });
  try {
    return await scope.prisma.tag.create({ data: { organizationId: scope.viewer.organizationId, name: data.name } });
  } catch (error) {
    if (isUniqueViolation(error)) throw conflict(`a tag named "${data.name}" already exists`);
    throw error;
  }
}

/** Adds tags to a prospect; tags it already has stay once (idempotent). */
export async function addTagsToProspect(scope: Scope, prospectId: string, data: ProspectTagsAdd) {
  const prospect = await scope.prisma.prospect.findUnique({ where: rowKey(scope.viewer.organizationId, prospectId) });
  if (!prospect) throw notFound('prospect');
  const tagIds = await requireAll(
    data.tag_ids,
    (ids) => scope.prisma.tag.findMany({ where: { id: { in: ids } }, select: { id: true } }),
    'tag_ids',
    'tag',
  );
  await scope.prisma.prospectTag.createMany({
    data: tagIds.map((tagId) => ({ organizationId: scope.viewer.organizationId, prospectId, tagId })),
    skipDuplicates: true,
  });
  return prospect;
}
