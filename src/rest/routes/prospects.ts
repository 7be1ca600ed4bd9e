// Prospects, lists and tags: POST /prospects/{prospect_id}/tags and DECISIONS.md's extensions.
import { z } from 'zod';
import { prospectListCreate, prospectsCreate, prospectTagsAdd, tagCreate } from '../../domain/prospects.ts';
import { prospect, prospectList, tag } from '../../records/prospects.ts';
import { integer } from '../../records/values.ts';
import { wireNames } from '../../schema/json-schema-names.ts';
import { found, genericBody, genericBodySchema, operationRoute } from '../route.ts';

const ProspectsCreate = wireNames(prospectsCreate);
const ProspectListCreate = wireNames(prospectListCreate);
const TagCreate = wireNames(tagCreate);
const ProspectTagsAdd = wireNames(prospectTagsAdd);

/** `{ "prospects": [...] }`, or one prospect's members alone (read as a list of one). */
const prospectsBody = z
  .preprocess(
    (body) =>
      body && typeof body === 'object' && !Array.isArray(body) && !('prospects' in body) ? { prospects: [body] } : body,
    prospectsCreate,
  )
  .meta({ description: 'Many prospects as {"prospects": [...]}, or one prospect\'s members alone' });

export const prospectRoutes = [
  operationRoute({
    method: 'POST',
    path: '/prospects',
    endpoint: null,
    summary: 'Create prospects: one, or many as {"prospects": [...]}',
    operation: `mutation($input: ProspectsCreateInput!) { createProspects(input: $input) { ${prospect.selection} } }`,
    body: prospectsBody,
    status: 201,
    variables: ({ body }) => ({ input: ProspectsCreate.toInput(body) }),
    respond: (data) => ({ count: data.createProspects.length, created: data.createProspects.map(prospect.present) }),
    response: z.strictObject({ count: integer(), created: z.array(prospect.schema) }),
  }),
  operationRoute({
    method: 'GET',
    path: '/prospects/:prospect_id',
    endpoint: null,
    summary: 'Get a prospect with its tags',
    operation: `query($id: ID!) { prospect(id: $id) { ${prospect.selection} } }`,
    variables: ({ params }) => ({ id: params.prospect_id }),
    respond: (data) => prospect.present(found(data.prospect, 'prospect')),
    response: prospect.schema,
  }),
  operationRoute({
    method: 'DELETE',
    path: '/prospects/:prospect_id',
    endpoint: null,
    summary:
      "Erase a person: the prospect's personal members, its number on its attempts and its calls' transcripts, summaries, data and recordings are emptied, its tags and lists removed; outcomes and counts stay (again: the same answer)",
    operation: `mutation($id: ID!) { eraseProspect(id: $id) { erasedProspectId } }`,
    variables: ({ params }) => ({ id: params.prospect_id }),
    respond: () => ({}),
    response: z.strictObject({}),
  }),
  operationRoute({
    method: 'POST',
    path: '/prospects/:prospect_id/tags',
    endpoint: 'E21',
    summary: 'Add tags to a prospect (idempotent)',
    operation: `mutation($id: ID!, $input: ProspectTagsAddInput!) {
      addTagsToProspect(prospectId: $id, input: $input) { id tags { ${tag.selection} } } }`,
    body: prospectTagsAdd,
    variables: ({ params, body }) => ({ id: params.prospect_id, input: ProspectTagsAdd.toInput(body) }),
    respond: (data) =>
      genericBody('tags added', {
        prospect_id: data.addTagsToProspect.id,
        tags: data.addTagsToProspect.tags.map(tag.present),
      }),
    response: genericBodySchema(z.strictObject({ prospect_id: z.string(), tags: z.array(tag.schema) })),
  }),
  operationRoute({
    method: 'POST',
    path: '/prospect-lists',
    endpoint: null,
    summary: 'Create a prospect list',
    operation: `mutation($input: ProspectListCreateInput!) { createProspectList(input: $input) { ${prospectList.selection} } }`,
    body: prospectListCreate,
    status: 201,
    variables: ({ body }) => ({ input: ProspectListCreate.toInput(body) }),
    respond: (data) => prospectList.present(data.createProspectList),
    response: prospectList.schema,
  }),
  operationRoute({
    method: 'POST',
    path: '/tags',
    endpoint: null,
    summary: 'Create a tag',
    operation: `mutation($input: TagCreateInput!) { createTag(input: $input) { ${tag.selection} } }`,
    body: tagCreate,
    answers: { 409: 'a tag of that name exists' },
    status: 201,
    variables: ({ body }) => ({ input: TagCreate.toInput(body) }),
    respond: (data) => tag.present(data.createTag),
    response: tag.schema,
  }),
];
