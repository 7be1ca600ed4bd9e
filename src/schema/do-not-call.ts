// The organization's do-not-call list (src/domain/do-not-call.ts).
import { addDoNotCallNumbers, doNotCallAdd, removeDoNotCallNumber } from '../domain/do-not-call.ts';
import { builder } from './builder.ts';
import { scopeOf } from './context.ts';
import { typesFromSchema } from './json-schema-types.ts';
import { modelConnection } from './pagination.ts';

const DoNotCallNumber = builder.prismaObject('DoNotCallNumber', {
  description: "A number on the organization's do-not-call list: no run dials it.",
  fields: (t) => ({
    number: t.exposeString('number', { description: 'The listed number, E.164.' }),
    reason: t.exposeString('reason', {
      nullable: true,
      description: 'Why it is listed, as last given; null when none was.',
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it was first listed.' }),
  }),
});

const DoNotCallAddResult = builder.objectRef<{ count: number }>('DoNotCallAddResult').implement({
  description: 'What adding numbers to the do-not-call list did.',
  fields: (t) => ({
    count: t.exposeInt('count', {
      description: 'How many distinct numbers the request named; all of them are now listed.',
    }),
  }),
});

const DoNotCallAdd = typesFromSchema(doNotCallAdd);

builder.queryFields((t) => ({
  doNotCallNumbers: t.connection({
    type: DoNotCallNumber,
    description: "The organization's do-not-call list, most recently listed first.",
    resolve: (_root, args, context) =>
      modelConnection(args, context.db.doNotCallNumber, { orderBy: [{ createdAt: 'desc' }, { number: 'asc' }] }),
  }),
}));

builder.mutationFields((t) => ({
  addDoNotCallNumbers: t.field({
    type: DoNotCallAddResult,
    description:
      'Adds numbers to the do-not-call list; numbers already listed stay once, their reason replaced when one is given.',
    args: {
      input: t.arg({ type: DoNotCallAdd.input(), required: true, description: 'The numbers and, optionally, why.' }),
    },
    resolve: (_root, args, context) => addDoNotCallNumbers(scopeOf(context), DoNotCallAdd.parse(context, args.input)),
  }),
  removeDoNotCallNumber: t.field({
    type: DoNotCallNumber,
    nullable: true,
    description:
      'Takes a number off the do-not-call list and returns it as it was listed; NOT_FOUND when it is not listed.',
    args: { number: t.arg.string({ required: true, description: 'The listed number, E.164.' }) },
    resolve: (_root, args, context) => removeDoNotCallNumber(scopeOf(context), args.number),
  }),
}));
