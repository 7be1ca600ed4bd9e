// POST /prospects/import: a CSV file of prospects, read as it
// arrives (src/domain/prospect-import.ts).
import { z } from 'zod';
import { limits } from '../../domain/limits.ts';
import {
  FIELD_ALIASES,
  type ImportResult,
  importOptionsOf,
  MAX_ROW_BYTES,
  prospectImportOptions,
  readProspectCsv,
  writeProspectImport,
} from '../../domain/prospect-import.ts';
import { integer } from '../../records/values.ts';
import { uploadRoute } from '../route.ts';

/** The options as query parameters: `tag_ids` a comma-separated list (or the parameter repeated). */
const importQuery = prospectImportOptions.extend({
  tag_ids: z
    .union([z.string(), z.array(z.string())])
    .transform((given) =>
      [given]
        .flat()
        .flatMap((text) => text.split(','))
        .map((id) => id.trim())
        .filter(Boolean),
    )
    .pipe(prospectImportOptions.shape.tag_ids.unwrap())
    .optional()
    .meta({
      description:
        'tags of the organization (`tag_…`, comma-separated) put on the imported prospects; an unknown one is BAD_INPUT (400);',
    }),
});

const aliases = Object.entries(FIELD_ALIASES)
  .map(([field, spellings]) => `\`${field}\` (${spellings.filter((spelling) => spelling !== field).join(', ')})`)
  .join(', ');

const CSV_DESCRIPTION =
  `A UTF-8 CSV file (RFC 4180; a BOM, CRLF and quoted commas and newlines are fine). Its first row names the columns: ${aliases}, ` +
  "in any case and spacing; `phone` is required. Other columns are kept as the prospect's `attributes` (strings), " +
  'named in snake_case ("Account Number" -> account_number). Any bad row refuses the whole file: 400 listing up to 100 ' +
  `errors as {line, column, rule, message}. At most ${limits.importRows} rows below the header, blank ones included, ` +
  `each at most ${MAX_ROW_BYTES} bytes (400 beyond either), and at most ${limits.importBytes} bytes (413 beyond).`;

export const presentImport = (result: ImportResult) => ({
  count: result.count,
  ...(result.listId ? { list_id: result.listId } : {}),
  duplicates_skipped: result.duplicatesSkipped,
});

export const prospectImportRoutes = [
  uploadRoute({
    method: 'POST',
    path: '/prospects/import',
    endpoint: null,
    summary: 'Import prospects from a CSV file (text/csv, streamed), all or nothing',
    query: importQuery,
    status: 201,
    upload: { contentType: 'text/csv', description: CSV_DESCRIPTION, maxBytes: limits.importBytes },
    field: 'Mutation.importProspects',
    read: async (scope, query, body) => {
      const options = await importOptionsOf(scope, query);
      return { options, parsed: await readProspectCsv(body, options) };
    },
    write: async (scope, { options, parsed }) => presentImport(await writeProspectImport(scope, parsed, options)),
    response: z
      .strictObject({
        count: integer().meta({ description: 'Prospects created, or updated (`on_duplicate=update`).' }),
        list_id: z.string().optional().meta({ description: 'The list created (`list_name`).' }),
        duplicates_skipped: integer().meta({
          description: "Rows skipped because their phone was a prospect's already, or an earlier row's.",
        }),
      })
      .meta({ id: 'ProspectImport' }),
  }),
];
