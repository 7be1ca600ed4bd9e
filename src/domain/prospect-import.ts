// Prospects from a CSV file: a header row naming the columns, then
// one prospect per row. The file is read as it arrives, never held whole, and
// checked to its end before anything is written: one bad row refuses the
// whole file, and the refusal names each offending line and column (up to
// 100). A good file is written in one transaction, by INSERT … SELECT from
// unnest arrays, in chunks. REST (a text/csv body), GraphQL (the text) and
// the CLI (a file) all import through here.
import { pipeline } from 'node:stream/promises';
import { setImmediate } from 'node:timers/promises';
import { CsvError, parse } from 'csv-parse';
import { type CountryCode, isSupportedCountry, parsePhoneNumberFromString } from 'libphonenumber-js/min';
import { z } from 'zod';
import { advisoryLock } from '../db/sql/advisory-lock.ts';
import { insertProspects } from '../db/sql/insert-prospects.ts';
import type { ProspectColumns } from '../db/sql/prospect-rows.ts';
import { prospectsByPhone } from '../db/sql/prospects-by-phone.ts';
import { updateProspects } from '../db/sql/update-prospects.ts';
import type { SqlClient } from '../db/tx.ts';
import { ianaTimezone } from '../records/time-zones.ts';
import type { ConsentAdd } from './consents.ts';
import { DomainError } from './errors.ts';
import { limits } from './limits.ts';
import { type CONSENT_CELLS, consentColumnsOf, rowConsent, writeImportedConsents } from './prospect-import-consents.ts';
import { requireAll } from './prospects.ts';
import type { Scope } from './scope.ts';
import { e164 } from './telephony.ts';

const duplicateModes = ['skip', 'update', 'error'] as const;

export const prospectImportOptions = z
  .strictObject({
    list_name: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .meta({ description: 'also creates a prospect list of this name holding the imported prospects;' }),
    tag_ids: z.array(z.string()).max(limits.bulkItems).optional().meta({
      description:
        'tags of the organization (`tag_…`) put on the imported prospects; an unknown one is BAD_INPUT (400);',
    }),
    default_country: z
      .string()
      .regex(/^[A-Za-z]{2}$/, { message: 'must be an ISO 3166 alpha-2 country code, e.g. US' })
      .transform((code) => code.toUpperCase())
      .refine(isSupportedCountry, { message: 'is not a country with telephone numbering' })
      .optional()
      .meta({ description: 'ISO 3166 alpha-2 country (US, FR…) that phone numbers without a + are read in;' }),
    on_duplicate: z.enum(duplicateModes).default('skip').meta({
      description:
        'what a row whose phone already belongs to a prospect of the organization does: `skip` it, `update` that prospect, or refuse the file (`error`);',
    }),
  })
  .meta({ id: 'ProspectImportOptions', description: 'How a CSV file of prospects is imported.' });

export type ProspectImportOptions = z.output<typeof prospectImportOptions>;

const FIELDS = ['first_name', 'last_name', 'email', 'phone', 'timezone'] as const;
type Field = (typeof FIELDS)[number];

/** Header spellings read as each field, compared without case, spaces or punctuation ("Phone Number", "E-mail"). */
export const FIELD_ALIASES: Record<Field, string[]> = {
  first_name: ['first_name', 'first', 'given_name', 'forename', 'fname'],
  last_name: ['last_name', 'last', 'surname', 'family_name', 'lname'],
  email: ['email', 'email_address', 'mail'],
  phone: [
    'phone',
    'phone_number',
    'phone_no',
    'mobile',
    'mobile_phone',
    'mobile_number',
    'cell',
    'cell_phone',
    'telephone',
    'tel',
  ],
  timezone: ['timezone', 'tz'],
};

const compact = (name: string) =>
  name
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]/gu, '');
const fieldOfHeader = new Map(
  Object.entries(FIELD_ALIASES).flatMap(([field, aliases]) =>
    aliases.map((alias) => [compact(alias), field as Field] as const),
  ),
);

/** The key an attribute column is stored under, usable in templates: "Account Number" -> account_number. */
const attributeKey = (name: string) =>
  name
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '_')
    .replace(/^_+|_+$/g, '');

const MAX_LENGTH: Record<Field | 'attribute' | 'header', number> = {
  first_name: 200,
  last_name: 200,
  email: 320,
  phone: 64,
  timezone: 64,
  attribute: 1000,
  header: 100,
};
const MAX_COLUMNS = 100;
/** A row's longest text in bytes (its quoted line breaks included): csv-parse stops reading a longer one. */
export const MAX_ROW_BYTES = 64 * 1024;
/** The most bytes csv-parse is handed at once: it parses what it is handed without a break. */
const PARSE_PIECE_BYTES = 64 * 1024;
/**
 * How long reading a file runs before other requests get a turn. Every row
 * is a task of a few microseconds, all of them ready: without a turn given,
 * a file whose bytes have arrived is read to its end while every other
 * request waits (a tenant's blank lines held another's queries for seconds).
 */
const READ_SLICE_MS = 5;
/** Problems listed in a refusal; the message counts them all. */
const MAX_LISTED = 100;
/**
 * Rows per INSERT or UPDATE statement. Each statement's parameters are made
 * while nothing else runs (~7 µs a row): 2,000 rows hold other requests
 * ~15 ms, where 10,000 held them ~70 ms, and the import takes no longer.
 */
const WRITE_CHUNK = 2_000;

/** A file's bytes as they arrive (a request, a file stream), or at once (a list of one buffer). */
export type FileBytes = AsyncIterable<Uint8Array> | Iterable<Uint8Array>;

/** One reason a file is refused: its line (1 is the first), column (as the header names it) and rule. */
interface ImportProblem {
  line: number | null;
  column: string | null;
  rule: string;
  message: string;
}

class Problems {
  readonly listed: ImportProblem[] = [];
  total = 0;

  add(problem: ImportProblem) {
    this.total++;
    if (this.listed.length < MAX_LISTED) this.listed.push(problem);
  }

  refusal() {
    const where = (problem: ImportProblem) =>
      [problem.line === null ? 'file' : `line ${problem.line}`, problem.column].filter(Boolean).join(', ');
    const first = this.listed.slice(0, 3).map((problem) => `${where(problem)}: ${problem.message}`);
    const more = this.total > MAX_LISTED ? ` (the first ${MAX_LISTED} are listed)` : '';
    return new DomainError(
      'BAD_INPUT',
      `nothing was imported: the file has ${this.total} error${this.total === 1 ? '' : 's'}${more}; ${first.join('; ')}`,
      this.listed,
    );
  }
}

/** A problem that ends the reading (the file cannot be read further). */
class UnreadableFileError extends Error {
  constructor(readonly problem: ImportProblem) {
    super(problem.message);
  }
}

const tooLarge = (maxBytes: number) =>
  new DomainError('PAYLOAD_TOO_LARGE', `the file is larger than ${maxBytes} bytes (PROSPECT_IMPORT_MAX_BYTES)`);

/** The bytes as UTF-8 text (a leading BOM dropped), refusing other encodings and files over the size limit. */
async function* utf8Text(source: FileBytes, maxBytes: number): AsyncGenerator<string> {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let bytes = 0;
  const decode = (chunk?: Uint8Array) => {
    try {
      return chunk ? decoder.decode(chunk, { stream: true }) : decoder.decode();
    } catch {
      throw new UnreadableFileError({ line: null, column: null, rule: 'utf-8', message: 'the file is not UTF-8 text' });
    }
  };
  for await (const chunk of source) {
    bytes += chunk.byteLength;
    if (bytes > maxBytes) throw tooLarge(maxBytes);
    // A whole file in one chunk (GraphQL's text) is parsed a piece at a time, each parse one short task.
    for (let start = 0; start < chunk.byteLength; start += PARSE_PIECE_BYTES)
      yield decode(chunk.subarray(start, start + PARSE_PIECE_BYTES));
  }
  yield decode();
}

const CSV_MESSAGES: Partial<Record<CsvError['code'], string>> = {
  CSV_QUOTE_NOT_CLOSED: 'a quoted field opened on this row is not closed before the end of the file',
  CSV_INVALID_CLOSING_QUOTE:
    'a closing quote is followed by other characters (a quote inside a quoted field is written "")',
  CSV_MAX_RECORD_SIZE: `the row is longer than ${MAX_ROW_BYTES} bytes`,
};

interface Header {
  names: string[];
  fields: Map<Field, number>;
  attributes: [key: string, index: number][];
  /** The consent columns (prospect-import-consents.ts). */
  consent: Map<(typeof CONSENT_CELLS)[number], number>;
}

function readHeader(record: string[], line: number, problems: Problems): Header | null {
  const before = problems.total;
  const fail = (column: string | null, rule: string, message: string) => problems.add({ line, column, rule, message });
  const names = record.map((name) => name.trim());
  if (names.length > MAX_COLUMNS)
    fail(null, 'max columns', `the header has ${names.length} columns; at most ${MAX_COLUMNS}`);
  const fields = new Map<Field, number>();
  const attributes: [string, number][] = [];
  const keys = new Map<string, string>();
  for (const [index, name] of names.entries()) {
    const field = fieldOfHeader.get(compact(name));
    const key = field ?? attributeKey(name);
    if (name.length > MAX_LENGTH.header) {
      fail(name.slice(0, 40), 'max length', `a column name has at most ${MAX_LENGTH.header} characters`);
      continue;
    }
    if (!key) {
      fail(name || null, 'header', `column ${index + 1} has no name made of letters or digits`);
      continue;
    }
    const same = keys.get(key);
    if (same !== undefined) {
      fail(name, 'duplicate column', `names the same ${field ? 'field' : 'attribute'} (${key}) as column "${same}"`);
      continue;
    }
    keys.set(key, name);
    if (field) fields.set(field, index);
    else attributes.push([key, index]);
  }
  if (!fields.has('phone')) {
    fail(null, 'required column', `the header names no phone column (${FIELD_ALIASES.phone.join(', ')}, in any case)`);
  }
  const { cells: consent, rest } = consentColumnsOf(attributes);
  return problems.total === before ? { names, fields, attributes: rest, consent } : null;
}

/** The number in E.164, read in `country` when it has no +; null when it is not a possible number. */
function normalisedPhone(text: string, country: CountryCode | undefined): string | null {
  if (e164.safeParse(text).success) return text;
  const parsed = parsePhoneNumberFromString(text, country ? { defaultCountry: country } : undefined);
  if (!parsed?.isPossible()) return null;
  return e164.safeParse(parsed.number).success ? parsed.number : null;
}

const emailAddress = z.email();

/** The rows a file holds, column by column (the arrays the INSERT unnests). */
interface Rows {
  lines: number[];
  firstNames: string[];
  lastNames: string[];
  emails: string[];
  phones: string[];
  timezones: (string | null)[];
  attributes: Record<string, string>[];
  consents: (ConsentAdd | null)[];
}

/** A file read and checked whole: what `writeProspectImport` writes. */
export interface ParsedImport {
  /** The fields the header names: an update changes only those. */
  fields: Set<Field>;
  /** The phone column's name in the header. */
  phoneColumn: string;
  rows: Rows;
  /** Rows that repeated an earlier row's phone and were skipped (`on_duplicate=skip`). */
  repeatsSkipped: number;
}

class RowReader {
  readonly rows: Rows = {
    lines: [],
    firstNames: [],
    lastNames: [],
    emails: [],
    phones: [],
    timezones: [],
    attributes: [],
    consents: [],
  };
  repeatsSkipped = 0;
  /** The row index of each phone seen. */
  private readonly phones = new Map<string, number>();
  private readonly zoneProblems = new Map<string, string | null>();

  constructor(
    readonly header: Header,
    private readonly options: ProspectImportOptions,
    private readonly problems: Problems,
  ) {}

  get count() {
    return this.rows.lines.length;
  }

  private zoneProblem(zone: string) {
    let problem = this.zoneProblems.get(zone);
    if (problem === undefined) {
      const result = ianaTimezone.safeParse(zone);
      problem = result.success ? null : (result.error.issues[0]?.message ?? 'is not an IANA time zone');
      this.zoneProblems.set(zone, problem);
    }
    return problem;
  }

  read(record: string[], line: number) {
    const { header, problems } = this;
    if (record.length !== header.names.length) {
      problems.add({
        line,
        column: null,
        rule: 'columns',
        message: `the row has ${record.length} fields; the header has ${header.names.length}`,
      });
      return;
    }
    const before = problems.total;
    const fail = (index: number, rule: string, message: string) =>
      problems.add({ line, column: header.names[index]!, rule, message });
    const cells = record.map((cell) => cell.trim());
    cells.forEach((cell, index) => {
      if (cell.includes('\u0000')) fail(index, 'no NUL', 'must not contain the NUL character (U+0000)');
    });
    const cell = (field: Field) => {
      const index = header.fields.get(field);
      if (index === undefined) return '';
      const value = cells[index]!;
      if (value.length > MAX_LENGTH[field]) fail(index, 'max length', `has more than ${MAX_LENGTH[field]} characters`);
      return value;
    };
    const firstName = cell('first_name');
    const lastName = cell('last_name');
    const phoneIndex = header.fields.get('phone')!;
    const given = cell('phone');
    const phone = given ? normalisedPhone(given, this.options.default_country) : null;
    if (!given) fail(phoneIndex, 'required', 'is empty: every row needs a phone number');
    else if (!phone) {
      const hint = this.options.default_country
        ? ` in ${this.options.default_country}`
        : ' (give it with +country code, or set default_country)';
      fail(phoneIndex, 'phone', `"${given}" is not a possible phone number${hint}`);
    }
    const email = cell('email');
    if (email && !emailAddress.safeParse(email).success)
      fail(header.fields.get('email')!, 'email', `"${email}" is not an e-mail address`);
    const timezone = cell('timezone');
    const zoneProblem = timezone ? this.zoneProblem(timezone) : null;
    if (zoneProblem) fail(header.fields.get('timezone')!, 'timezone', `"${timezone}" ${zoneProblem}`);
    const attributes: Record<string, string> = {};
    for (const [key, index] of header.attributes) {
      const value = cells[index]!;
      if (value.length > MAX_LENGTH.attribute)
        fail(index, 'max length', `has more than ${MAX_LENGTH.attribute} characters`);
      attributes[key] = value;
    }
    const consent = rowConsent(header.consent, cells, fail);
    if (problems.total !== before || !phone) return;

    const values = { firstName, lastName, email, timezone: timezone || null, attributes, consent };
    const earlier = this.phones.get(phone);
    if (earlier === undefined) {
      this.phones.set(phone, this.count);
      this.append(line, phone, values);
    } else if (this.options.on_duplicate === 'error') {
      fail(phoneIndex, 'duplicate', `${phone} is also the phone of line ${this.rows.lines[earlier]}`);
    } else if (this.options.on_duplicate === 'skip') {
      this.repeatsSkipped++;
    } else {
      // update: the later row's values win, attributes merged, as an update of a stored prospect does.
      const { rows } = this;
      rows.firstNames[earlier] = values.firstName;
      rows.lastNames[earlier] = values.lastName;
      rows.emails[earlier] = values.email;
      rows.timezones[earlier] = values.timezone;
      rows.attributes[earlier] = { ...rows.attributes[earlier], ...attributes };
      rows.consents[earlier] = consent ?? rows.consents[earlier]!;
    }
  }

  private append(
    line: number,
    phone: string,
    values: {
      firstName: string;
      lastName: string;
      email: string;
      timezone: string | null;
      attributes: Record<string, string>;
      consent: ConsentAdd | null;
    },
  ) {
    const { rows } = this;
    rows.lines.push(line);
    rows.firstNames.push(values.firstName);
    rows.lastNames.push(values.lastName);
    rows.emails.push(values.email);
    rows.phones.push(phone);
    rows.timezones.push(values.timezone);
    rows.attributes.push(values.attributes);
    rows.consents.push(values.consent);
  }
}

const lineBreaks = (text: string) => text.match(/\r\n|\r|\n/g)?.length ?? 0;

/** Waits for the event loop's next turn once `sliceMs` have passed since the last one: other requests run then. */
function turnGiver(sliceMs: number) {
  let sliceStart = performance.now();
  return async () => {
    if (performance.now() - sliceStart < sliceMs) return;
    await setImmediate();
    sliceStart = performance.now();
  };
}

type ParsedRecord = { record: string[]; raw: string };

/**
 * The parser's records in order, then its failure if it failed. A stream's own
 * async iterator throws a failure at once and drops the records the parser had
 * already made: a row before the faulty one went unread, and the failure's
 * line depended on how busy the event loop was.
 */
async function* recordsThenFailure(parser: ReturnType<typeof parse>): AsyncGenerator<ParsedRecord> {
  let failure: unknown = null;
  let ended = false;
  let wake: (() => void) | null = null;
  const waken = () => wake?.();
  parser.on('error', (error) => {
    failure = error;
    waken();
  });
  parser.on('end', () => {
    ended = true;
    waken();
  });
  parser.on('readable', waken);
  try {
    for (;;) {
      // A destroyed stream still hands out what it holds.
      for (let record = parser.read(); record !== null; record = parser.read()) yield record as ParsedRecord;
      if (failure) throw failure;
      if (ended) return;
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
      wake = null;
    }
  } finally {
    // A stop before the end (a refused header, the row limit) stops the reading of the body too.
    parser.destroy();
  }
}

/**
 * Reads and checks a CSV file, writing nothing: the rows to write, or the
 * refusal (BAD_INPUT listing the problems; PAYLOAD_TOO_LARGE over the size
 * limit). Reading stops early only where going on cannot help: a bad header,
 * a file the parser cannot read further, or one over the row limit.
 */
export async function readProspectCsv(
  source: FileBytes,
  options: ProspectImportOptions,
  maxRows = limits.importRows,
  maxBytes = limits.importBytes,
): Promise<ParsedImport> {
  const problems = new Problems();
  const parser = parse({ raw: true, relax_column_count: true, relax_quotes: true, max_record_size: MAX_ROW_BYTES });
  const feeding = pipeline(utf8Text(source, maxBytes), parser);
  // Its failures come out of the parser too, and a stop before the end makes it fail: only that is left here.
  feeding.catch(() => {});
  let reader: RowReader | null = null;
  let headerRefused = false;
  /** Rows read, blank ones and the header included: what the row limit counts (the header is one more). */
  let rowsRead = 0;
  /** Rows below the header that hold something. */
  let filledRows = 0;
  /** Where the next record starts: csv-parse counts lines inside quoted fields its own way, so they are counted here. */
  let line = 1;
  const giveTurn = turnGiver(READ_SLICE_MS);
  try {
    for await (const { record, raw } of recordsThenFailure(parser)) {
      const start = line;
      line += lineBreaks(raw);
      // A blank row counts too: reading one costs as much, and uncounted, a body of blank lines was read to its end.
      if (++rowsRead > maxRows + 1) {
        problems.add({
          line: start,
          column: null,
          rule: 'max rows',
          message: `the file has more than ${maxRows} rows, blank ones included (PROSPECT_IMPORT_MAX_ROWS)`,
        });
        break;
      }
      await giveTurn();
      if (record.every((cell) => cell.trim() === '')) continue;
      if (!reader) {
        const header = readHeader(record, start, problems);
        if (!header) {
          headerRefused = true;
          break;
        }
        reader = new RowReader(header, options, problems);
      } else {
        filledRows++;
        reader.read(record, start);
      }
    }
  } catch (error) {
    if (error instanceof UnreadableFileError) problems.add(error.problem);
    else if (error instanceof CsvError)
      problems.add({ line, column: null, rule: 'csv', message: CSV_MESSAGES[error.code] ?? error.message });
    else throw error;
  }
  if (!reader && !headerRefused && problems.total === 0) {
    problems.add({
      line: null,
      column: null,
      rule: 'header',
      message: 'the file is empty: its first row names the columns',
    });
  } else if (reader && filledRows === 0 && problems.total === 0) {
    problems.add({ line: null, column: null, rule: 'rows', message: 'the file has no rows below its header' });
  }
  if (problems.total > 0) throw problems.refusal();
  const { header, rows, repeatsSkipped } = reader!;
  return {
    fields: new Set(header.fields.keys()),
    phoneColumn: header.names[header.fields.get('phone')!]!,
    rows,
    repeatsSkipped,
  };
}

/** The options, checked: the tags named must be the organization's (each once). */
export async function importOptionsOf(scope: Scope, options: ProspectImportOptions): Promise<ProspectImportOptions> {
  if (!options.tag_ids || options.tag_ids.length === 0) return options;
  const tagIds = await requireAll(
    options.tag_ids,
    (ids) => scope.prisma.tag.findMany({ where: { id: { in: ids } }, select: { id: true } }),
    'tag_ids',
    'tag',
  );
  return { ...options, tag_ids: tagIds };
}

export interface ImportResult {
  /** Prospects created, or updated (`on_duplicate=update`). */
  count: number;
  listId: string | null;
  duplicatesSkipped: number;
}

/** The phones of `phones` that prospects of the organization have, each with one such prospect. */
async function existingPhones(tx: SqlClient, organizationId: string, phones: string[]) {
  const found = await prospectsByPhone(tx, organizationId, phones);
  return new Map(found.map((row) => [row.phone, row.id]));
}

/** The rows at `indexes`, one array per column. */
function columnsOf(rows: Rows, indexes: number[]): ProspectColumns {
  const column = <T>(values: T[]) => indexes.map((index) => values[index]!);
  return {
    firstNames: column(rows.firstNames),
    lastNames: column(rows.lastNames),
    emails: column(rows.emails),
    phones: column(rows.phones),
    timezones: column(rows.timezones),
    attributes: indexes.map((index) => JSON.stringify(rows.attributes[index])),
  };
}

/**
 * Writes a file `readProspectCsv` accepted, in one transaction: new phones
 * are inserted; a phone a prospect of the organization has is skipped,
 * updates that prospect (every one with that phone), or refuses the file,
 * per `on_duplicate`. Imports of one organization take turns (an advisory
 * lock), so two at once cannot both create the same phone.
 */
export async function writeProspectImport(
  scope: Scope,
  parsed: ParsedImport,
  options: ProspectImportOptions,
  onWritten?: (rows: number, total: number) => void,
): Promise<ImportResult> {
  const organizationId = scope.viewer.organizationId;
  const { rows, fields } = parsed;
  return scope.prisma.$transaction(
    async (tx) => {
      await advisoryLock(tx, `prospect-import:${organizationId}`);
      const existing = await existingPhones(tx, organizationId, rows.phones);
      const fresh: number[] = [];
      const known: number[] = [];
      for (const [index, phone] of rows.phones.entries()) (existing.has(phone) ? known : fresh).push(index);
      if (known.length > 0 && options.on_duplicate === 'error') {
        const problems = new Problems();
        for (const index of known) {
          const phone = rows.phones[index]!;
          problems.add({
            line: rows.lines[index]!,
            column: parsed.phoneColumn,
            rule: 'duplicate',
            message: `${phone} is the phone of prospect ${existing.get(phone)}`,
          });
        }
        throw problems.refusal();
      }
      const list = options.list_name
        ? await tx.prospectList.create({ data: { organizationId, name: options.list_name } })
        : null;
      const tagIds = options.tag_ids ?? [];
      const total = fresh.length + (options.on_duplicate === 'update' ? known.length : 0);
      let count = 0;
      let done = 0;
      const memberships = { listId: list?.id ?? null, tagIds };
      const writeAll = async (indexes: number[], write: (columns: ProspectColumns) => Promise<number>) => {
        for (let start = 0; start < indexes.length; start += WRITE_CHUNK) {
          const chunk = indexes.slice(start, start + WRITE_CHUNK);
          count += await write(columnsOf(rows, chunk));
          done += chunk.length;
          onWritten?.(done, total);
        }
      };
      await writeAll(fresh, (columns) => insertProspects(tx, organizationId, columns, memberships));
      if (options.on_duplicate === 'update') {
        await writeAll(known, (columns) => updateProspects(tx, organizationId, columns, fields, memberships));
      }
      const written = options.on_duplicate === 'update' ? [...fresh, ...known] : fresh;
      const consents = written.flatMap((index) => {
        const consent = rows.consents[index];
        return consent ? [{ phone: rows.phones[index]!, consent }] : [];
      });
      if (consents.length > 0) {
        const owners = await existingPhones(
          tx,
          organizationId,
          consents.map(({ phone }) => phone),
        );
        await writeImportedConsents(tx, organizationId, consents, owners);
      }
      const skipped = options.on_duplicate === 'skip' ? known.length : 0;
      return { count, listId: list?.id ?? null, duplicatesSkipped: parsed.repeatsSkipped + skipped };
    },
    { timeout: 120_000, maxWait: 10_000 }, // 100,000 rows
  );
}

/** Checks the options, reads and checks the whole file, then writes it: all of it, or nothing. */
export async function importProspects(
  scope: Scope,
  source: FileBytes,
  given: ProspectImportOptions,
  onWritten?: (rows: number, total: number) => void,
): Promise<ImportResult> {
  const options = await importOptionsOf(scope, given);
  const parsed = await readProspectCsv(source, options);
  return writeProspectImport(scope, parsed, options, onWritten);
}
