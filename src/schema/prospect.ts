import { Prisma } from '../generated/prisma/client.ts';
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
import { runOrderSql } from '../domain/runs.ts';
import { builder, type NodeRef } from './builder.ts';
import { typesFromSchema } from './json-schema-types.ts';
import { offsetConnection } from './pagination.ts';
import { Run } from './run.ts';

const noCondition = { sql: Prisma.empty, key: '' };

export const Tag: NodeRef<'Tag'> = builder.prismaNode('Tag', {
  id: { field: 'id' },
  nullable: true,
  fields: (t) => ({
    name: t.exposeString('name'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

export const Prospect: NodeRef<'Prospect'> = builder.prismaNode('Prospect', {
  id: { field: 'id' },
  nullable: true,
  fields: (t) => ({
    firstName: t.exposeString('firstName'),
    lastName: t.exposeString('lastName'),
    email: t.exposeString('email'),
    phone: t.exposeString('phone'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    tags: t.field({
      type: [Tag],
      resolve: (prospect, _args, context) => context.loaders.tagsOfProspect.load(prospect.id),
    }),
    runs: t.connection({
      type: Run,
      description: "The prospect's runs, most recently started first.",
      resolve: (prospect, args, context) =>
        offsetConnection(
          args,
          (page) =>
            context.loaders.pages.load({
              list: 'runsOfProspect',
              parentId: prospect.id,
              where: noCondition,
              orderBy: runOrderSql(),
              ...page,
            }) as never,
          () => context.loaders.counts.load({ list: 'runsOfProspect', parentId: prospect.id, where: noCondition }),
        ),
    }),
  }),
});

export const ProspectList: NodeRef<'ProspectList'> = builder.prismaNode('ProspectList', {
  id: { field: 'id' },
  nullable: true,
  fields: (t) => ({
    name: t.exposeString('name'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    prospectCount: t.int({
      resolve: (list, _args, context) => context.prisma.prospectListMember.count({ where: { listId: list.id } }),
    }),
    prospects: t.connection({
      type: Prospect,
      resolve: (list, args, context) =>
        offsetConnection(
          args,
          ({ offset, limit }) =>
            context.prisma.prospect.findMany({
              where: { lists: { some: { listId: list.id } } },
              orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
              skip: offset,
              take: limit,
            }),
          () => context.prisma.prospectListMember.count({ where: { listId: list.id } }),
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
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, context) => context.loaders.prospect.load(String(args.id)),
  }),
  prospects: t.connection({
    type: Prospect,
    description: "The organization's prospects, oldest first.",
    resolve: (_root, args, context) =>
      offsetConnection(
        args,
        ({ offset, limit }) =>
          context.prisma.prospect.findMany({ orderBy: [{ createdAt: 'asc' }, { id: 'asc' }], skip: offset, take: limit }),
        () => context.prisma.prospect.count(),
      ),
  }),
  prospectLists: t.connection({
    type: ProspectList,
    resolve: (_root, args, context) =>
      offsetConnection(
        args,
        ({ offset, limit }) =>
          context.prisma.prospectList.findMany({ orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], skip: offset, take: limit }),
        () => context.prisma.prospectList.count(),
      ),
  }),
  tags: t.connection({
    type: Tag,
    description: "The organization's tags, by name.",
    resolve: (_root, args, context) =>
      offsetConnection(
        args,
        ({ offset, limit }) => context.prisma.tag.findMany({ orderBy: [{ name: 'asc' }], skip: offset, take: limit }),
        () => context.prisma.tag.count(),
      ),
  }),
}));

builder.mutationFields((t) => ({
  createProspects: t.field({
    type: [Prospect],
    args: { input: t.arg({ type: ProspectsCreate.input(), required: true }) },
    resolve: (_root, args, context) => createProspects(context, ProspectsCreate.toStored(args.input)),
  }),
  createProspectList: t.field({
    type: ProspectList,
    args: { input: t.arg({ type: ProspectListCreate.input(), required: true }) },
    resolve: (_root, args, context) => createProspectList(context, ProspectListCreate.toStored(args.input)),
  }),
  createTag: t.field({
    type: Tag,
    args: { input: t.arg({ type: TagCreate.input(), required: true }) },
    resolve: (_root, args, context) => createTag(context, TagCreate.toStored(args.input)),
  }),
  addTagsToProspect: t.field({
    type: Prospect,
    description: 'Adds tags to a prospect (E21); tags it already has stay once.',
    args: {
      prospectId: t.arg.id({ required: true }),
      input: t.arg({ type: ProspectTagsAdd.input(), required: true }),
    },
    resolve: (_root, args, context) =>
      addTagsToProspect(context, String(args.prospectId), ProspectTagsAdd.toStored(args.input)),
  }),
}));
