import { eraseProspect } from '../domain/prospect-erasure.ts';
import {
  addTagsToProspect,
  createProspectList,
  createProspects,
  createTag,
  prospectListCreate,
  prospectsCreate,
  prospectTagsAdd,
  tagCreate,
} from '../domain/prospects.ts';
import { builder, type NodeRef } from './builder.ts';
import { scopeOf } from './context.ts';
import { entityById } from './federation.ts';
import { typesFromSchema } from './json-schema-types.ts';
import { modelConnection, offsetConnection } from './pagination.ts';
import { tenantNodeId } from './tenant-nodes.ts';

const Tag: NodeRef<'Tag'> = builder.prismaNode('Tag', {
  ...tenantNodeId,
  nullable: true,
  description: 'A label put on prospects (E21 adds tags to a prospect). REST: `POST /tags`.',
  fields: (t) => ({
    name: t.exposeString('name', { description: 'Its name, unique in the organization.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it was created.' }),
  }),
});

export const Prospect: NodeRef<'Prospect'> = builder.prismaNode('Prospect', {
  ...tenantNodeId,
  nullable: true,
  description: 'A person runs call: one run per batch that includes them. REST: `/prospects/{id}`.',
  fields: (t) => ({
    firstName: t.exposeString('firstName', { description: 'First name; empty when none was given.' }),
    lastName: t.exposeString('lastName', { description: 'Last name; empty when none was given.' }),
    email: t.exposeString('email', { description: 'E-mail address; empty when none was given.' }),
    phone: t.exposeString('phone', {
      description:
        'The number runs call, E.164; empty when none was given (a run then fails undialled, `invalid_number`).',
    }),
    timezone: t.exposeString('timezone', {
      nullable: true,
      description:
        "IANA zone calling windows apply in for this prospect; null: its number's country's zone, else the window's.",
    }),
    attributes: t.expose('attributes', {
      type: 'JSON',
      description:
        'The columns of its CSV import that are not prospect fields, by snake_case name ("Account Number": `account_number`), as strings; ' +
        'templates read them as `{{prospect.attributes.<name>}}`. {} when none.',
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it was created.' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime', description: 'When it last changed.' }),
    tags: t.field({
      type: [Tag],
      description: 'Its tags.',
      resolve: (prospect, _args, context) => context.loaders.tagsOfProspect.load(prospect.id),
    }),
  }),
});

const ProspectList: NodeRef<'ProspectList'> = builder.prismaNode('ProspectList', {
  ...tenantNodeId,
  nullable: true,
  description:
    "A named set of prospects; a batch can call its members (E4's `prospect_list_id`). REST: `POST /prospect-lists`.",
  fields: (t) => ({
    name: t.exposeString('name', { description: 'Its name; not empty.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it was created.' }),
    prospectCount: t.int({
      description: 'How many prospects it holds.',
      resolve: (list, _args, context) => context.db.prospectListMember.count({ where: { listId: list.id } }),
    }),
    prospects: t.connection({
      type: Prospect,
      description: 'Its members, oldest first.',
      resolve: (list, args, context) =>
        offsetConnection(
          args,
          ({ offset, limit }) =>
            context.db.prospect.findMany({
              where: { lists: { some: { listId: list.id } } },
              orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
              skip: offset,
              take: limit,
            }),
          () => context.db.prospectListMember.count({ where: { listId: list.id } }),
        ),
    }),
  }),
});

const ProspectsCreate = typesFromSchema(prospectsCreate);
const ProspectListCreate = typesFromSchema(prospectListCreate);
const TagCreate = typesFromSchema(tagCreate);
const ProspectTagsAdd = typesFromSchema(prospectTagsAdd);

builder.queryFields((t) => ({
  prospect: t.field({
    type: Prospect,
    nullable: true,
    description:
      "A prospect of the organization with its tags; null for an unknown id or another organization's (`GET /prospects/{id}`).",
    args: { id: t.arg.id({ required: true, description: 'Its id (`prs_…`).' }) },
    resolve: (_root, args, context) => context.loaders.prospect.load(String(args.id)),
  }),
  prospects: t.connection({
    type: Prospect,
    description: "The organization's prospects, oldest first.",
    resolve: (_root, args, context) =>
      modelConnection(args, context.db.prospect, { orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] }),
  }),
  prospectLists: t.connection({
    type: ProspectList,
    description: "The organization's prospect lists, newest first.",
    resolve: (_root, args, context) =>
      modelConnection(args, context.db.prospectList, { orderBy: [{ createdAt: 'desc' }, { id: 'desc' }] }),
  }),
  tags: t.connection({
    type: Tag,
    description: "The organization's tags, by name.",
    resolve: (_root, args, context) => modelConnection(args, context.db.tag, { orderBy: [{ name: 'asc' }] }),
  }),
}));

const EraseProspectPayload = builder.objectRef<{ id: string }>('EraseProspectPayload').implement({
  description: 'What `eraseProspect` answers.',
  fields: (t) => ({
    // Not named `id`: clients that normalize by id would mistake it for the prospect.
    erasedProspectId: t.exposeID('id', { description: 'The id of the prospect erased; drop its cached members.' }),
  }),
});

builder.mutationFields((t) => ({
  eraseProspect: t.field({
    type: EraseProspectPayload,
    description:
      "Erases a person (`DELETE /prospects/{prospect_id}`): the prospect's personal members, the copies of its number on its attempts, its calls' transcripts, summaries, data and recordings are emptied, its tags and lists removed; outcomes and counts stay. A second erasure answers the same.",
    args: { id: t.arg.id({ required: true, description: 'The prospect (`prs_…`).' }) },
    resolve: (_root, args, context) => eraseProspect(scopeOf(context), String(args.id)),
  }),
  createProspects: t.field({
    type: [Prospect],
    description: 'Creates prospects, all or nothing, and returns them (`POST /prospects`).',
    args: { input: t.arg({ type: ProspectsCreate.input(), required: true, description: 'The prospects.' }) },
    resolve: (_root, args, context) => createProspects(scopeOf(context), ProspectsCreate.parse(context, args.input)),
  }),
  createProspectList: t.field({
    type: ProspectList,
    description: 'Creates a prospect list with the given members (`POST /prospect-lists`).',
    args: { input: t.arg({ type: ProspectListCreate.input(), required: true, description: 'Its name and members.' }) },
    resolve: (_root, args, context) =>
      createProspectList(scopeOf(context), ProspectListCreate.parse(context, args.input)),
  }),
  createTag: t.field({
    type: Tag,
    description: 'Creates a tag; a name the organization already has is a CONFLICT (`POST /tags`).',
    args: { input: t.arg({ type: TagCreate.input(), required: true, description: 'Its name.' }) },
    resolve: (_root, args, context) => createTag(scopeOf(context), TagCreate.parse(context, args.input)),
  }),
  addTagsToProspect: t.field({
    type: Prospect,
    description: 'Adds tags to a prospect (E21); tags it already has stay once.',
    args: {
      prospectId: t.arg.id({ required: true, description: 'The prospect (`prs_…`).' }),
      input: t.arg({ type: ProspectTagsAdd.input(), required: true, description: 'The tags to add.' }),
    },
    resolve: (_root, args, context) =>
      addTagsToProspect(scopeOf(context), String(args.prospectId), ProspectTagsAdd.parse(context, args.input)),
  }),
}));

// A federation entity: other subgraphs may resolve it by id (federation.ts).
entityById(Prospect, 'prospect');
