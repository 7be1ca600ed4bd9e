// importProspects: a CSV file's text, for small files (large ones stream
// through `POST /prospects/import` or the CLI); the same domain function.
import { type ImportResult, importProspects, prospectImportOptions } from '../domain/prospect-import.ts';
import { builder } from './builder.ts';
import { scopeOf } from './context.ts';
import { typesFromSchema } from './json-schema-types.ts';

const ProspectImportOptions = typesFromSchema(prospectImportOptions);

const ProspectImport = builder.objectRef<ImportResult>('ProspectImport').implement({
  description: 'What a CSV import wrote (`POST /prospects/import`).',
  fields: (t) => ({
    count: t.exposeInt('count', { description: 'Prospects created, or updated (`onDuplicate: "update"`).' }),
    listId: t.exposeID('listId', { nullable: true, description: 'The prospect list created (`listName`), else null.' }),
    duplicatesSkipped: t.exposeInt('duplicatesSkipped', {
      description:
        'Rows skipped because their phone was a prospect\'s already, or an earlier row\'s (`onDuplicate: "skip"`).',
    }),
  }),
});

builder.mutationFields((t) => ({
  importProspects: t.field({
    type: ProspectImport,
    description:
      'Imports prospects from the text of a CSV file, all or nothing (`POST /prospects/import`, which streams large files). ' +
      'A bad row refuses the whole file: BAD_INPUT whose `detail` lists up to 100 errors as {line, column, rule, message}.',
    args: {
      csv: t.arg.string({
        required: true,
        description: "The file's text: a header row naming the columns, then one prospect per row.",
      }),
      options: t.arg({
        type: ProspectImportOptions.input(),
        required: false,
        description: 'How to import it; defaults apply without.',
      }),
    },
    resolve: (_root, args, context) =>
      importProspects(
        scopeOf(context),
        [Buffer.from(args.csv)],
        ProspectImportOptions.parse(context, args.options ?? {}),
      ),
  }),
}));
